"""``kcca query`` / ``kcca annotate`` / ``kcca fit-model`` on the demo model (kcca demo's settings).

Checked against the demo corpus's ground truth (kcca.data._demo scene specs): a sentence
naming a colour and a shape finds images with such an object in its top 5, and an image's
own captions rank high among the test images' captions.
"""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from kcca._cache import Cache
from kcca._cli import main
from kcca.data._demo_grammar import COLOURS, SHAPES
from kcca._model import load_model
from kcca._model.build import demo_model, demo_spec_and_corpus
from tests.support.demo_model import demo_cache

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    """A cache holding the demo model (fitted once per test run)."""
    return demo_cache(tmp_path_factory)


@pytest.fixture(scope="module")
def demo(cache_dir):
    """The demo model, loaded from the test cache (as `--model demo` does)."""
    return demo_model(Cache(cache_dir))


def _has(spec, colour: str, shape: str) -> bool:
    return any(o.colour == colour and o.shape == shape for o in spec.objects)


def _printed_ids(out: str) -> list[str]:
    return re.findall(r"^\s*\d+\s+(demo_\d+\.png\S*)", out, flags=re.M)


@pytest.mark.data_variables
def test_cli_query_demo_colour_and_shape(demo, cache_dir, tmp_path, capsys):
    html = tmp_path / "q.html"
    assert main(["query", "a red circle", "--model", "demo", "--cache-dir", str(cache_dir),
                 "--top", "5", "--html", str(html), "--quiet"]) == 0
    out = capsys.readouterr().out
    ids = _printed_ids(out)
    assert len(ids) == 5 and "tokens red circle" in out
    specs = demo.image_pool.source
    assert any(_has(specs.spec(i), "red", "circle") for i in ids), out
    page = html.read_text(encoding="utf-8")
    assert page.count("data:image/jpeg;base64,") >= 5 and "a red circle" in page


def test_colour_shape_queries_beat_chance(demo):
    """Over all 24 colour x shape queries: matches in the top 5 far above chance."""
    specs = demo.image_pool.source
    pool = demo.image_pool.ids
    both = colour = chance = 0.0
    for c in COLOURS:
        for s in SHAPES:
            top = demo.rank_images(f"a {c} {s}", top=5).ids
            both += sum(_has(specs.spec(i), c, s) for i in top) / 5
            colour += sum(any(o.colour == c for o in specs.spec(i).objects) for i in top) / 5
            chance += sum(_has(specs.spec(i), c, s) for i in pool) / len(pool)
    n = len(COLOURS) * len(SHAPES)
    assert both / n >= 3 * chance / n   # measured: 0.26 vs chance 0.067
    assert colour / n >= 0.6            # measured: 0.81


def test_annotate_ranks_own_captions_high(demo):
    """Among the 5 x 100 captions of the test images, an image's own rank near the top."""
    _, corpus, _ = demo_spec_and_corpus()
    ids = demo.image_pool.ids
    texts, cids, owner = [], [], []
    for i in ids:
        for n, t in enumerate(corpus.captions[i]):
            texts.append(t), cids.append(f"{i}#{n}"), owner.append(i)
    pool = demo.caption_pool_from_texts(texts, cids)
    owner = np.array(owner)
    best = []
    for i in ids:
        r = demo.rank_captions(demo.image_pool.source(i), pool=pool)
        best.append(np.flatnonzero(owner[r.indices] == i).min() + 1)
    best = np.array(best)
    assert np.median(best) <= 10 and (best <= 10).mean() >= 0.6  # measured: 4, 0.84 (chance ~83)


@pytest.mark.data_variables
def test_cli_annotate_demo_image(demo, cache_dir, tmp_path, capsys):
    _, corpus, _ = demo_spec_and_corpus()
    ids = demo.image_pool.ids[:10]
    captions = tmp_path / "captions.txt"
    captions.write_text("".join(f"{i}#{n}\t{t}\n" for i in demo.image_pool.ids
                                for n, t in enumerate(corpus.captions[i])), encoding="utf-8")
    hits = 0
    for i in ids:
        path = tmp_path / i
        cv2.imwrite(str(path), cv2.cvtColor(demo.image_pool.source(i), cv2.COLOR_RGB2BGR))
        html = tmp_path / f"{i}.html"
        assert main(["annotate", str(path), "--model", "demo", "--cache-dir", str(cache_dir),
                     "--captions", str(captions), "--top", "10", "--html", str(html),
                     "--quiet"]) == 0
        out = capsys.readouterr().out
        top = _printed_ids(out)
        assert len(top) == 10
        hits += any(c.startswith(i + "#") for c in top)
        assert "data:image/jpeg;base64," in html.read_text(encoding="utf-8")
    assert hits >= 6  # measured: 8 of the first 10 test images


def test_cli_query_images_folder(demo, cache_dir, tmp_path, capsys):
    folder = tmp_path / "imgs"
    folder.mkdir()
    for i in demo.image_pool.ids[:8]:
        cv2.imwrite(str(folder / i), cv2.cvtColor(demo.image_pool.source(i), cv2.COLOR_RGB2BGR))
    assert main(["query", "a yellow star", "--model", "demo", "--cache-dir", str(cache_dir),
                 "--images", str(folder), "--top", "3", "--quiet"]) == 0
    ids = _printed_ids(capsys.readouterr().out)
    assert len(ids) == 3 and set(ids) <= set(demo.image_pool.ids[:8])


def test_cli_fit_model_demo_small(cache_dir, tmp_path, capsys):
    out = tmp_path / "m.joblib"
    assert main(["fit-model", "--demo", "--demo-system", "BoW5", "--p", "2", "--d", "1",
                 "--out", str(out), "--cache-dir", str(cache_dir), "--quiet"]) == 0
    assert "wrote" in capsys.readouterr().out
    model = load_model(out)
    assert model.spec.name == "BoW5" and model.projections.p == 2
    assert len(model.projections.selected["search"]) == 15


def test_fit_model_demo_suggests_a_query_of_its_own_words_that_runs(cache_dir, tmp_path,
                                                                      capsys):
    """The query ``fit-model --demo`` suggests is made of the demo model's words and returns
    images, run as printed (before: a Flickr 8K query, "a dog runs on the beach", whose
    words the demo does not know)."""
    from kcca._cli.lines import joined_command

    out = tmp_path / ("a-long-folder-name-" * 4) / "demo.kcca.npz"
    out.parent.mkdir()
    assert main(["fit-model", "--demo", "--demo-system", "BoW5", "--p", "2", "--d", "1",
                 "--out", str(out), "--cache-dir", str(cache_dir), "--quiet"]) == 0
    printed = capsys.readouterr().out
    step = re.search(r"`(kcca query [^`]+)`", printed).group(1)
    argv = joined_command(step)
    model = load_model(out)
    assert argv[3:] == ["--model", str(out)] and "dog" not in argv[2]
    assert all(t in model.text.vocabulary for t in model.text.tokens(argv[2])), argv[2]
    assert main([*argv[1:], "--cache-dir", str(cache_dir), "--quiet"]) == 0
    assert len(_printed_ids(capsys.readouterr().out)) > 0


def test_fit_model_lines_fit_the_width(cache_dir, tmp_path, capsys):
    """Every line ``fit-model`` prints has at most 100 characters, but a path alone on its
    line (its test scores made lines of 333)."""
    from kcca._cli.lines import WIDTH

    out = tmp_path / ("a-long-folder-name-" * 6) / "demo.kcca.npz"
    out.parent.mkdir()
    assert main(["fit-model", "--demo", "--demo-system", "BoW5", "--p", "2", "--d", "1",
                 "--out", str(out), "--cache-dir", str(cache_dir), "--quiet"]) == 0
    for line in capsys.readouterr().out.splitlines():
        alone = line.strip().rstrip("\\").strip().strip("`")
        assert len(line) <= WIDTH or " " not in alone, f"{len(line)}: {line}"


def test_cli_fit_model_demo_takes_another_demo_folder(cache_dir, tmp_path, capsys):
    """``fit-model --demo --experiments DIR`` fits a system of DIR, as ``kcca demo
    --experiments DIR`` runs them (the flag was ignored with --demo)."""
    import shutil

    folder = tmp_path / "demo-variant"
    shutil.copytree(Path(__file__).resolve().parents[3] / "experiments" / "demo", folder)
    bow = folder / "02-BoW5.toml"
    text = bow.read_text()
    assert "kappas = " in text
    bow.write_text("\n".join("kappas = [5.0]" if line.startswith("kappas = ") else line
                             for line in text.splitlines()) + "\n")
    out = tmp_path / "m.kcca.npz"
    assert main(["fit-model", "--demo", "--experiments", str(folder), "--demo-system", "BoW5",
                 "--p", "2", "--d", "1", "--out", str(out), "--cache-dir", str(cache_dir),
                 "--quiet"]) == 0
    model = load_model(out)
    assert model.spec.name == "BoW5" and model.spec.grid.kappas == (5.0,)


@pytest.mark.parametrize("extra, message", [
    (["--demo", "--splits", "somewhere"], "--splits gives split files of Flickr 8K"),
    (["--system", "BoW5", "--demo-system", "BoW5"], "--demo-system chooses a system of the demo"),
    (["--experiment", "x.toml", "--experiments", "somewhere"],
     "--experiments is the folder searched by --system"),
])
def test_cli_fit_model_refuses_a_flag_it_would_ignore(tmp_path, capsys, monkeypatch, extra,
                                                      message):
    monkeypatch.setenv("KCCA_DATA_DIR", str(tmp_path / "no-data"))  # never a long fit
    out = tmp_path / "m.kcca.npz"
    assert main(["fit-model", *extra, "--out", str(out), "--no-cache", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"error: {message}" in err and "fix: " in err
    assert not out.exists()
