"""The embedded demo corpus: determinism, splits, captions vs scenes, rendering, CLI."""

from __future__ import annotations

import pickle
import re

import cv2
import numpy as np
import pytest

from kcca.data._corpus import Corpus
from kcca.data._demo import (
    OBJECT_RGB,
    DemoImages,
    caption_relevant,
    make_demo_corpus,
    render_scene,
    shape_mask,
)
from kcca.data._demo_grammar import (
    COLOURS,
    RELATIONS,
    SHAPES,
    SIZES,
    CaptionMeaning,
    Mention,
    surface_forms,
)
from kcca.data._errors import DataError


def small(seed: int = 3, **kw) -> Corpus:
    args = dict(n_train=30, n_dev=10, n_test=10, image_size=64, seed=seed)
    args.update(kw)
    return make_demo_corpus(**args)


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return small()


@pytest.fixture(scope="module")
def big() -> Corpus:
    return make_demo_corpus(n_train=300, n_dev=50, n_test=50, image_size=48, seed=1,
                            judgments=False)


def _contains(text: str, form: str) -> bool:
    return f" {form} " in f" {text.lower()} "


def _all_ids(c: Corpus) -> list[str]:
    return [i for s in ("train", "dev", "test") for i in c.split(s)]


# ------------------------------------------------------------------ determinism
def test_same_seed_same_corpus_and_bytes(corpus):
    again = small()
    assert again.captions == corpus.captions
    assert again.splits == corpus.splits
    for image_id in _all_ids(corpus)[:8]:
        assert corpus.images(image_id).tobytes() == again.images(image_id).tobytes()


def test_different_seed_differs(corpus):
    other = small(seed=4)
    assert other.captions != corpus.captions
    assert other.splits != corpus.splits
    image_id = corpus.split("train")[0]
    assert other.images(image_id).tobytes() != corpus.images(image_id).tobytes()


def test_no_two_images_identical(corpus):
    digests = {corpus.images(i).tobytes() for i in _all_ids(corpus)}
    assert len(digests) == len(corpus.captions)


# ------------------------------------------------------------------ shape of the corpus
def test_splits_sizes_disjoint_and_ids(corpus):
    assert {k: len(v) for k, v in corpus.splits.items()} == {"train": 30, "dev": 10, "test": 10}
    ids = _all_ids(corpus)
    assert len(set(ids)) == 50 == len(corpus.captions)
    assert all(re.fullmatch(r"demo_\d{5}\.png", i) for i in ids)
    assert corpus.pool_caption_index == 2 and corpus.expert is None
    assert [p[1] for p in corpus.pool("test")] == [f"{i}#2" for i in corpus.split("test")]


def test_default_sizes():
    c = make_demo_corpus(judgments=False)
    assert {k: len(v) for k, v in c.splits.items()} == {"train": 600, "dev": 200, "test": 200}
    assert c.images(c.split("dev")[0]).shape == (96, 96, 3)


def test_five_nonempty_flickr_style_captions(corpus):
    for image_id, caps in corpus.captions.items():
        assert len(caps) == 5
        for text in caps:
            assert text.endswith(" .") and text[0].isupper()
            assert len(text.split()) >= 3 and "  " not in text
        assert len(set(caps)) >= 4  # distinct where the grammar allows


def test_bad_arguments_raise():
    with pytest.raises(DataError):
        make_demo_corpus(n_train=-1)
    with pytest.raises(DataError):
        make_demo_corpus(image_size=8)
    with pytest.raises(DataError):
        small().images("nope.png")


# ------------------------------------------------------------------ captions vs scenes
def test_captions_name_actual_colours_and_shapes(corpus):
    for image_id, caps in corpus.captions.items():
        spec = corpus.images.spec(image_id)
        for n, text in enumerate(caps):
            meaning = corpus.images.meaning(image_id, n)
            assert meaning.mentions
            for m in meaning.mentions:
                obj = spec.objects[m.object_index]
                assert (m.colour, m.shape) == (obj.colour, obj.shape)
                assert any(_contains(text, f) for f in surface_forms("colour", obj.colour))
                assert any(_contains(text, f) for f in surface_forms("shape", obj.shape))
                if m.size:
                    assert m.size == obj.size
                    assert any(_contains(text, f) for f in surface_forms("size", obj.size))
                if m.texture:
                    assert m.texture == obj.texture
                    assert any(_contains(text, f) for f in surface_forms("texture", obj.texture))
            # no colour word of a colour absent from the scene (background phrases aside)
            present = {o.colour for o in spec.objects}
            for colour, forms in COLOURS.items():
                if colour not in present and colour not in ("blue", "green"):
                    assert not any(_contains(text, f) for f in forms), (text, spec.describe())


def test_synonym_and_order_variety(big):
    texts = [t for caps in big.captions.values() for t in caps]
    for family in (COLOURS, SHAPES, SIZES, RELATIONS):
        for concept, forms in family.items():
            used = {f for f in forms if any(_contains(t, f) for t in texts)}
            assert len(used) >= 2, (concept, used)
    # captions of two-object scenes: some name one object only, both orders occur
    partial = both_orders = 0
    orders = set()
    for image_id in big.captions:
        spec = big.images.spec(image_id)
        if len(spec.objects) != 2:
            continue
        for n in range(5):
            idx = tuple(m.object_index for m in big.images.meaning(image_id, n).mentions)
            partial += len(idx) == 1
            orders.add(idx)
    both_orders = {(0, 1), (1, 0)} <= orders
    assert partial > 0 and both_orders


@pytest.mark.slow
def test_content_words_known_to_wordnet(big, nltk_data_dir):
    from nltk.corpus import wordnet as wn

    function_words = {",", ".", ":", "a", "an", "the", "of", "to", "and", "with", "that",
                      "this", "than", "we", "you", "against", "among", "beside"}
    vocab = {w.lower() for caps in big.captions.values() for t in caps for w in t.split()}
    unknown = sorted(w for w in vocab - function_words if not wn.synsets(w))
    assert not unknown


# ------------------------------------------------------------------ rendering
def test_image_size_dtype_and_pickle(corpus):
    image_id = corpus.split("test")[0]
    img = corpus.images(image_id)
    assert img.shape == (64, 64, 3) and img.dtype == np.uint8
    clone = pickle.loads(pickle.dumps(corpus.images))
    assert isinstance(clone, DemoImages)
    assert clone(image_id).tobytes() == img.tobytes()
    assert small(image_size=80).images(image_id).shape == (80, 80, 3)


def test_objects_drawn_in_their_colour_and_place(big):
    checked = 0
    for image_id in big.split("train")[:60]:
        spec = big.images.spec(image_id)
        img = render_scene(spec, 96).astype(np.float32)
        for obj in spec.objects:
            mask = shape_mask(obj, 96)
            inside = mask > 0.99
            ys, xs = np.nonzero(inside)
            cx, cy = xs.mean() / 96, ys.mean() / 96
            if obj.position == "left":
                assert cx < 0.4
            elif obj.position == "right":
                assert cx > 0.6
            elif obj.position == "top":
                assert cy < 0.4
            elif obj.position == "bottom":
                assert cy > 0.6
            if obj.texture == "plain":
                mean = img[inside].mean(axis=0)
                assert np.abs(mean - np.array(OBJECT_RGB[obj.colour])).max() < 8
                checked += 1
    assert checked > 5


def test_object_colours_distinct_in_cielab():
    rgb = np.array(list(OBJECT_RGB.values()), np.float32)[None] / 255.0
    lab = cv2.cvtColor(rgb, cv2.COLOR_RGB2Lab)[0]
    d = np.linalg.norm(lab[:, None] - lab[None], axis=2)
    assert d[np.triu_indices(len(lab), 1)].min() > 25


# ------------------------------------------------------------------ synthetic judgments
def test_synthetic_crowd_judgments(corpus):
    test_ids = corpus.split("test")
    assert corpus.crowd is not None and len(corpus.crowd) == len(test_ids) ** 2
    for image_id, cid, _ in corpus.pool("test"):
        assert corpus.crowd[(image_id, cid)].relevant()  # own caption is always relevant
    assert any(not j.relevant() for j in corpus.crowd.values())
    assert small(judgments=False).crowd is None


def test_relevance_rule():
    spec = small().images.spec("demo_00001.png")
    obj = spec.objects[0]
    yes = CaptionMeaning((Mention(0, obj.colour, obj.shape, obj.size, obj.texture),))
    assert caption_relevant(yes, spec)
    other = next(c for c in COLOURS if c not in {o.colour for o in spec.objects})
    assert not caption_relevant(CaptionMeaning((Mention(0, other, obj.shape),)), spec)
    wrong_size = "small" if obj.size == "large" else "large"
    if not any(o.size == wrong_size and o.shape == obj.shape and o.colour == obj.colour
               for o in spec.objects):
        assert not caption_relevant(CaptionMeaning((Mention(0, obj.colour, obj.shape,
                                                            wrong_size),)), spec)


# ------------------------------------------------------------------ CLI
@pytest.mark.slow
def test_cli_demo_runs_the_pipeline_end_to_end(tmp_path, capsys):
    """A small demo: contact sheet, KCCA + Borda for TRI5 and BoW5, recall far above chance."""
    import re as _re

    from kcca._cli import main
    from kcca.data._demo import make_demo_corpus as _make
    from kcca._evaluate.rankings_io import read_rankings

    out = tmp_path / "demo"
    argv = ["demo", "--out", str(out), "--n-train", "80", "--n-dev", "30", "--n-test", "30",
            "--image-size", "48", "--sheet", "4", "--seed", "5", "--d", "1", "4",
            "--kappas", "0.5", "5", "--n-count", "8", "--cache-dir", str(tmp_path / "cache"),
            "--quiet"]
    assert main(argv) == 0
    png = out / "contact_sheet.png"
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert img is not None and img.shape[0] > 200 and img.shape[1] > 400
    text = capsys.readouterr().out
    assert "train 80, dev 30, test 30" in text and "vocabulary" in text
    assert str(png) in text
    assert text.count("#0 ") == 3
    # the metrics table: one row per system and task, and chance (R@1 3.3, R@10 33.3, 15.5)
    rows = {}
    for line in text.splitlines():
        m = _re.match(r"(TRI5|BoW5|chance)\s+(annotation|search)\s+([\d.]+)\s+([\d.]+)\s+"
                      r"([\d.]+)\s+([\d.]+)$", line)
        if m:
            rows[m.group(1), m.group(2)] = tuple(map(float, m.groups()[2:]))
    assert len(rows) == 6
    for task in ("annotation", "search"):
        assert rows["chance", task] == (3.3, 16.7, 33.3, 15.5)
        for system in ("TRI5", "BoW5"):
            r1, r5, r10, med = rows[system, task]
            assert r5 >= 2 * 16.7 and r10 >= 55.0 and med <= 9.0, (system, task, rows)
    plot = cv2.imread(str(out / "recall_at_k.png"))
    assert plot is not None and plot.shape[1] > 600
    corpus = _make(n_train=80, n_dev=30, n_test=30, image_size=48, seed=5)
    back = read_rankings(out / "rankings_TRI5.json", corpus.pool("test"))
    assert set(back.tasks) == {"annotation", "search"}
    # deterministic under the seed: a second run (from the cache) prints the same table
    assert main(argv) == 0
    again = capsys.readouterr().out
    assert [l for l in again.splitlines() if l.startswith(("TRI5 ", "BoW5 "))] == \
        [l for l in text.splitlines() if l.startswith(("TRI5 ", "BoW5 "))]


def test_the_next_step_the_demo_prints_runs_as_printed(tmp_path, capsys):
    """``kcca demo`` ends with a ``kcca evaluate ...`` command: it runs as printed."""
    import re
    import shlex

    from kcca._cli import main

    out = tmp_path / "out"
    assert main(["--cache-dir", str(tmp_path / "cache"), "demo", "--out", str(out),
                 "--n-train", "60", "--n-dev", "20", "--n-test", "20", "--n-count", "4",
                 "--p", "2", "--d", "1", "--kappas", "1"]) == 0
    text = capsys.readouterr().out
    commands = re.findall(r"next: `(kcca [^`]+)`", text)
    assert commands, text
    for command in commands:  # a long one continues its lines with " \\", as a shell does
        assert main(shlex.split(command.replace("\\\n", " "))[1:]) == 0, command
