"""The ``vectors`` kernel in a system: image ids and caption ids handed to it by the
workspace, an experiment file naming it on both sides, far-above-chance recall on the demo
corpus with planted vectors, and cache keys that follow the content of the vectors files."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from kcca._cache import Cache, cache_stats, reset_cache_stats
from kcca.data._corpus import caption_id
from kcca.data._demo import make_demo_corpus
from kcca._systems import check_names, load_spec, run_system
from kcca._systems.blocks import Workspace
from kcca._systems.config import RunConfig
from kcca._systems.spec import KernelSpec
from tests.support.planted_vectors import plant_vectors, vectors_experiment


@pytest.fixture(scope="module")
def corpus():
    return make_demo_corpus(n_train=60, n_dev=20, n_test=20, image_size=32, seed=1,
                            judgments=False)


def experiment(folder: Path, images: Path, captions: Path) -> Path:
    path = folder / "vectors.toml"
    path.write_text(
        vectors_experiment(images.as_posix(), captions.as_posix(), '"geometric:5:6"'),
        encoding="utf-8",
    )
    return path


def test_vectors_on_both_sides_recall_far_above_chance(corpus, tmp_path):
    images, captions = plant_vectors(corpus, tmp_path)
    spec = load_spec(experiment(tmp_path, images, captions))
    assert check_names(spec) == []
    reset_cache_stats()
    config = RunConfig.of(progress=False)
    res = run_system(corpus, spec, cache=Cache(tmp_path / "cache"), config=config)
    table = res.table()
    for task in ("annotation", "search"):
        # chance on 20 test items: R@1 5%, R@5 25%, median rank 10.5
        assert table[task]["R@1"] >= 60 and table[task]["R@5"] >= 90, table
        assert table[task]["median rank"] <= 2, table
    assert cache_stats()["system-image-gram"] == {"computed": 1, "loaded": 0}
    reset_cache_stats()
    again = run_system(corpus, spec, cache=Cache(tmp_path / "cache"), config=config)
    assert again.table() == table
    assert all(c["computed"] == 0 for c in cache_stats().values())


def test_the_workspace_hands_the_kernel_ids(corpus, tmp_path):
    images, captions = plant_vectors(corpus, tmp_path)
    ws = Workspace(corpus, Cache(None), RunConfig.of(progress=False))
    assert ws.caption_id_items()["train"][0] == tuple(
        caption_id(corpus.split("train")[0], n) for n in range(5)
    )
    assert ws.caption_id_items()["test"] == [cid for _, cid, _ in corpus.pool("test")]
    image = ws.image_blocks(KernelSpec("vectors", {"path": str(images)}))
    assert image.train.shape == (60, 60) and image.test.shape == (20, 60)
    assert str(images) in image.inputs and str(tmp_path / "images.ids.txt") in image.inputs
    text = ws.text_blocks(KernelSpec("vectors", {"path": str(captions)}), "demo")
    assert text.train.shape == (60, 60) and text.dev.shape == (20, 60)
    assert str(captions) in text.inputs


def _keys(corpus, images: Path, captions: Path) -> tuple[dict, dict]:
    ws = Workspace(corpus, Cache(None), RunConfig.of(progress=False))
    image = ws.image_blocks(KernelSpec("vectors", {"path": str(images)}))
    text = ws.text_blocks(KernelSpec("vectors", {"path": str(captions)}), "demo")
    return image.key, text.key


def test_cache_keys_follow_the_content_of_the_files(corpus, tmp_path):
    images, captions = plant_vectors(corpus, tmp_path)
    image_key, text_key = _keys(corpus, images, captions)
    assert "files" in image_key and "files" in text_key
    assert _keys(corpus, images, captions) == (image_key, text_key)
    plant_vectors(corpus, tmp_path, seed=4)  # same paths, same shapes, new numbers
    new_image, new_text = _keys(corpus, images, captions)
    assert new_image != image_key and new_text != text_key
    assert {k: v for k, v in new_image.items() if k != "files"} == {
        k: v for k, v in image_key.items() if k != "files"
    }
    ids = tmp_path / "images.ids.txt"  # the ids file counts too: same ids, another order
    lines = ids.read_text().split()
    ids.write_text("\n".join(lines[::-1]) + "\n")
    np.save(images, np.load(images)[::-1])
    assert _keys(corpus, images, captions)[0] != new_image


def test_a_run_with_changed_vectors_computes_again(corpus, tmp_path):
    images, captions = plant_vectors(corpus, tmp_path)
    spec = load_spec(experiment(tmp_path, images, captions))
    small = dataclasses.replace(spec, grid=dataclasses.replace(spec.grid, kappas=(0.5,), d=(1,)))
    config = RunConfig.of(progress=False)
    run_system(corpus, small, cache=Cache(tmp_path / "cache"), config=config)
    plant_vectors(corpus, tmp_path, seed=5)
    reset_cache_stats()
    run_system(corpus, small, cache=Cache(tmp_path / "cache"), config=config)
    stats = cache_stats()
    assert stats["system-image-gram"] == {"computed": 1, "loaded": 0}
    assert stats["system-text-gram"]["loaded"] == 0
