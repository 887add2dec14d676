"""Every file a stage reads is in its cache key: an edit recomputes exactly the stages that
read the file (and gives the numbers of a fresh cache), everything else is loaded; a restored
file finds its old entries; ``kcca cache verify`` names what changed and ``prune`` removes it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from features._image_features import ImageFeatureConfig
from kcca._cache import Cache
from kcca._cli import main
from kcca.data._demo import make_demo_corpus
from kcca.data._flickr8k import load_flickr8k
from kcca._systems import GridSpec, KernelSpec, SystemSpec, Workspace, run_system
from kcca._systems import blocks
from kcca._systems.config import RunConfig

TINY_IMAGES = ImageFeatureConfig(n_images=20, points_per_image=100, max_iter=20,
                                 vocabulary={"color": 16, "texture": 16, "sift": 16})
GRID = GridSpec(p=(2,), d=(1,), kappas=(0.5, 5.0), n=(5, 10, 20, 39))
TEXT_STAGES = ("system-text-gram",)
IMAGE_STAGES = ("image-features", "system-image-gram")
MODEL_STAGES = ("system-dev", "system-test")


@pytest.fixture(autouse=True)
def lemma_preset(monkeypatch):
    """The demo preset reading the lemma file (as the paper's BoW5 does), no NLTK needed."""
    monkeypatch.setitem(blocks.LOCAL_PRESETS, "demo-lemmas",
                        {**blocks.LOCAL_PRESETS["demo"], "source": "lemmas"})


def spec(preprocessing: str = "demo-lemmas") -> SystemSpec:
    return SystemSpec("bow-sys", KernelSpec("pyramid"), KernelSpec("bow"),
                      preprocessing=preprocessing, grid=GRID, per_criterion=2)


@pytest.fixture(scope="module")
def flickr(tmp_path_factory) -> Path:
    """A Flickr 8K-shaped folder written from a small demo corpus (PNG images)."""
    demo = make_demo_corpus(n_train=40, n_dev=15, n_test=15, image_size=40, seed=5)
    root = tmp_path_factory.mktemp("flickr") / "data"
    text, images = root / "flickr8k" / "text", root / "flickr8k" / "images"
    text.mkdir(parents=True)
    images.mkdir()
    lines = [f"{i}#{n}\t{c}" for i, caps in demo.captions.items() for n, c in enumerate(caps)]
    (text / "Flickr8k.token.txt").write_text("\n".join(lines) + "\n")
    (text / "Flickr8k.lemma.token.txt").write_text("\n".join(lines) + "\n")
    for split in ("train", "dev", "test"):
        (text / f"Flickr_8k.{split}Images.txt").write_text("\n".join(demo.split(split)) + "\n")
    pool = demo.pool("test")
    (text / "ExpertAnnotations.txt").write_text(
        "".join(f"{i}\t{c}\t4\t4\t4\n" for i, c, _ in pool))
    (text / "CrowdFlowerAnnotations.txt").write_text(  # every test pair judged relevant
        "".join(f"{i}\t{c}\t1\t3\t0\n" for i, _, _ in pool for _, c, _ in pool))
    for i in demo.captions:
        cv2.imwrite(str(images / i), cv2.cvtColor(demo.load_image(i), cv2.COLOR_RGB2BGR))
    return root


def copy_of(flickr: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(flickr, tmp_path / "data"))


def run(data: Path, cache_dir: Path | None, preprocessing: str = "demo-lemmas"):
    """One system run; returns (rankings, evaluation, stage -> computed count)."""
    corpus = load_flickr8k(data)
    cache = Cache(cache_dir)
    ws = Workspace(corpus, cache, RunConfig.of(seed=0, progress=False, image_config=TINY_IMAGES))
    res = run_system(corpus, spec(preprocessing), workspace=ws)
    computed = {s: c["computed"] for s, c in cache.stats.items() if c["computed"]}
    return res.rankings, res.evaluation, computed


def same(a: dict, b: dict) -> bool:
    return all(np.array_equal(a[t], b[t]) for t in ("annotation", "search"))


def shift_pool_captions(path: Path, ids: list[str], pool_index: int = 2) -> None:
    """Move caption #pool_index of each of ``ids`` one image along (a cyclic shift)."""
    lines = path.read_text().splitlines()
    where = {l.split("\t")[0]: k for k, l in enumerate(lines)}
    keys = [f"{i}#{pool_index}" for i in ids]
    texts = [lines[where[k]].split("\t", 1)[1] for k in keys]
    for k, t in zip(keys, texts[1:] + texts[:1]):
        lines[where[k]] = f"{k}\t{t}"
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.data_variables
def test_an_edited_lemma_file_recomputes_the_text_stages_only(flickr, tmp_path):
    data, cache = copy_of(flickr, tmp_path), tmp_path / "cache"
    before, _, _ = run(data, cache)
    test_ids = (data / "flickr8k/text/Flickr_8k.testImages.txt").read_text().split()
    shift_pool_captions(data / "flickr8k/text/Flickr8k.lemma.token.txt", test_ids)
    after, _, computed = run(data, cache)
    fresh, _, _ = run(data, tmp_path / "fresh")
    assert same(after, fresh) and not same(after, before)
    assert set(computed) == {"text-preprocess", *TEXT_STAGES, *MODEL_STAGES}


@pytest.mark.data_variables
def test_the_caption_file_is_not_read_by_a_lemma_system_but_is_by_a_caption_system(
        flickr, tmp_path):
    data, cache = copy_of(flickr, tmp_path), tmp_path / "cache"
    run(data, cache)
    run(data, cache, preprocessing="demo")
    test_ids = (data / "flickr8k/text/Flickr_8k.testImages.txt").read_text().split()
    shift_pool_captions(data / "flickr8k/text/Flickr8k.token.txt", test_ids)
    assert run(data, cache)[2] == {}  # nothing it reads changed: every stage loaded
    after, _, computed = run(data, cache, preprocessing="demo")
    assert "system-text-gram" in computed and not set(IMAGE_STAGES) & set(computed)
    assert same(after, run(data, tmp_path / "fresh", preprocessing="demo")[0])


@pytest.mark.data_variables
def test_an_edited_image_recomputes_its_record_and_the_image_stages(flickr, tmp_path):
    data, cache = copy_of(flickr, tmp_path), tmp_path / "cache"
    before, _, _ = run(data, cache)
    test_ids = (data / "flickr8k/text/Flickr_8k.testImages.txt").read_text().split()
    images = data / "flickr8k" / "images"
    original = (images / test_ids[0]).read_bytes()
    shutil.copyfile(images / test_ids[1], images / test_ids[0])  # damaged: another picture
    after, _, computed = run(data, cache)
    assert computed["image-features"] == 1
    assert {"system-image-gram", *MODEL_STAGES} <= set(computed)
    assert not set(TEXT_STAGES) & set(computed) and "codebook" not in computed
    assert same(after, run(data, tmp_path / "fresh")[0])
    (images / test_ids[0]).write_bytes(original)  # restored: its old entries are found again
    again, _, computed = run(data, cache)
    assert computed == {} and same(again, before)


@pytest.mark.data_variables
def test_an_edited_split_file_recomputes_the_stages_that_use_the_splits(flickr, tmp_path):
    data, cache = copy_of(flickr, tmp_path), tmp_path / "cache"
    before, _, _ = run(data, cache)
    split = data / "flickr8k/text/Flickr_8k.testImages.txt"
    split.write_text("\n".join(reversed(split.read_text().split())) + "\n")
    after, _, computed = run(data, cache)
    assert "image-features" not in computed and "codebook" not in computed  # per image
    assert {"system-image-gram", *TEXT_STAGES, "system-test"} <= set(computed)
    assert same(after, run(data, tmp_path / "fresh")[0]) and not same(after, before)


@pytest.mark.data_variables
def test_an_edited_judgment_file_changes_the_scores_and_recomputes_nothing(flickr, tmp_path):
    data, cache = copy_of(flickr, tmp_path), tmp_path / "cache"
    _, ev_before, _ = run(data, cache)
    crowd = data / "flickr8k/text/CrowdFlowerAnnotations.txt"
    crowd.write_text("".join(  # now only the original caption of each image is relevant
        line.replace("\t1\t3\t0", "\t0\t0\t3") if line.split("\t")[0] != line.split(
            "\t")[1].split("#")[0] else line for line in crowd.read_text().splitlines(True)))
    _, ev_after, computed = run(data, cache)
    assert computed == {}
    for task in ("annotation", "search"):
        assert ev_before.metrics[task]["S@1"].aggregate == 100.0
        assert ev_after.metrics[task]["S@1"].aggregate == ev_after.metrics[task]["R@1"].aggregate
        assert ev_after.metrics[task]["R@1"].aggregate < 100.0


@pytest.mark.data_variables
def test_verify_names_stale_entries_and_prune_removes_them(flickr, tmp_path, capsys):
    data, cache = copy_of(flickr, tmp_path), tmp_path / "cache"
    run(data, cache)
    assert main(["cache", "verify", "--cache-dir", str(cache)]) == 0
    test_ids = (data / "flickr8k/text/Flickr_8k.testImages.txt").read_text().split()
    shift_pool_captions(data / "flickr8k/text/Flickr8k.lemma.token.txt", test_ids)
    images = data / "flickr8k" / "images"
    shutil.copyfile(images / test_ids[1], images / test_ids[0])
    capsys.readouterr()
    assert main(["cache", "verify", "--cache-dir", str(cache)]) == 1
    out = capsys.readouterr().out
    assert "Flickr8k.lemma.token.txt: content changed" in out
    assert f"{test_ids[0]}: content changed" in out
    assert "system-text-gram:" in out and "image-features: 1 stale" in out
    assert "next: kcca cache prune --cache-dir " in out
    assert main(["cache", "prune", "--cache-dir", str(cache)]) == 0
    capsys.readouterr()
    assert main(["cache", "verify", "--cache-dir", str(cache)]) == 0
    assert "0 stale" in capsys.readouterr().out
    _, _, computed = run(data, cache)  # the current entries survived the prune
    assert computed["image-features"] == 1 and "codebook" not in computed


def test_a_zero_byte_image_is_not_served_from_the_cache(flickr, tmp_path, capsys):
    data, cache = copy_of(flickr, tmp_path), tmp_path / "cache"
    argv = ["features", "--corpus", "flickr8k", "--data-dir", str(data), "--cache-dir",
            str(cache), "--codebook-images", "10", "--points-per-image", "50", "--quiet"]
    assert main(argv) == 0
    image = next(iter(sorted((data / "flickr8k" / "images").iterdir())))
    image.write_bytes(b"")
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "error:" in err and image.name in err
