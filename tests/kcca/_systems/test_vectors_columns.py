"""A kernel of ids over a large training set gives the solver its training kernel as columns
and its dev and test blocks as rows on demand (Workspace, DENSE_TRAIN_LIMIT): no block is held
whole, the system ranks as the dense one does, and a mix of such kernels works too."""

from __future__ import annotations

import numpy as np
import pytest

from kcca._cache import Cache
from kcca.data._demo import make_demo_corpus
from kcca._lowrank import CallableColumns, KernelRows
from kcca._systems import blocks as B
from kcca._systems import load_spec, run_system
from kcca._systems.blocks import Workspace
from kcca._systems.config import RunConfig
from kcca._systems.spec import KernelSpec
from tests.support.planted_vectors import plant_vectors, vectors_experiment


@pytest.fixture(scope="module")
def corpus():
    return make_demo_corpus(n_train=60, n_dev=20, n_test=20, image_size=32, seed=1, judgments=False)


def _spec(tmp_path, images, captions):
    path = tmp_path / "vectors.toml"
    text = vectors_experiment(images.as_posix(), captions.as_posix(), '"geometric:5:6"')
    path.write_text(text.replace('function = "rbf"', 'function = "linear"'), encoding="utf-8")
    return load_spec(path)


def test_columns_above_the_limit_rank_as_the_dense_blocks(corpus, tmp_path, monkeypatch):
    images, captions = plant_vectors(corpus, tmp_path)
    spec = _spec(tmp_path, images, captions)
    config = RunConfig.of(progress=False)
    dense = run_system(corpus, spec, cache=Cache(tmp_path / "dense"), config=config)
    dense_image = Workspace(corpus, Cache(None), config).image_blocks(spec.image_kernel)
    monkeypatch.setattr(B, "DENSE_TRAIN_LIMIT", 50)
    ws = Workspace(corpus, Cache(tmp_path / "columns"), config)
    image = ws.image_blocks(spec.image_kernel)
    text = ws.text_blocks(spec.text_kernel, spec.preprocessing)
    for blocks in (image, text):
        assert isinstance(blocks.train, CallableColumns) and blocks.n_train == 60
        assert isinstance(blocks.dev, KernelRows) and isinstance(blocks.test, KernelRows)
        assert blocks.dev.shape == (20, 60) and blocks.test.shape == (20, 60)
    np.testing.assert_allclose(image.train.columns([0, 7]), dense_image.train[:, [0, 7]])
    np.testing.assert_array_equal(np.asarray(image.test), dense_image.test)
    np.testing.assert_array_equal(image.dev.rows(slice(3, 9)), dense_image.dev[3:9])
    columns = run_system(corpus, spec, workspace=ws)
    for task in ("annotation", "search"):
        ours, theirs = columns.table()[task], dense.table()[task]
        assert ours["R@5"] >= 80 and abs(ours["R@5"] - theirs["R@5"]) <= 10, (ours, theirs)


def test_a_mix_of_column_parts(corpus, tmp_path, monkeypatch):
    images, _ = plant_vectors(corpus, tmp_path)
    monkeypatch.setattr(B, "DENSE_TRAIN_LIMIT", 50)
    ws = Workspace(corpus, Cache(None), RunConfig.of(progress=False))
    part = {"name": "vectors", "params": {"path": str(images)}}
    mix = ws.image_blocks(
        KernelSpec("mix", {"parts": [{**part, "weight": 1}, {**part, "weight": 3}]})
    )
    single = ws.image_blocks(KernelSpec("vectors", {"path": str(images)}))
    assert isinstance(mix.train, CallableColumns)
    np.testing.assert_allclose(mix.train.columns([3]), single.train.columns([3]))
    np.testing.assert_allclose(mix.train.diag(), single.train.diag())
    np.testing.assert_allclose(np.asarray(mix.dev), np.asarray(single.dev))


def test_a_vectors_image_kernel_reads_no_image_file(tmp_path, monkeypatch):
    """Its cache key and the cache entries' input records name the ids and the vectors
    file, never the images (at COCO's size, hashing every image would outlast the run)."""
    import kcca._fingerprints as F
    from kcca.data._flickr8k import load_flickr8k_with_splits
    from tests.support.flickr_like import write_flickr_like

    write_flickr_like(tmp_path / "data")
    corpus = load_flickr8k_with_splits(tmp_path / "data", None)
    assert corpus.image_paths  # the corpus has image files
    images, _ = plant_vectors(corpus, tmp_path)
    digested: list[str] = []
    real = F.file_digest

    def spy(path):
        digested.append(str(path))
        return real(path)

    monkeypatch.setattr(F, "file_digest", spy)
    monkeypatch.setattr(B, "file_digest", spy)
    ws = Workspace(corpus, Cache(tmp_path / "cache"), RunConfig.of(progress=False))
    part = {"name": "vectors", "params": {"path": str(images)}}
    ws.image_blocks(KernelSpec("vectors", {"path": str(images)}))
    ws.image_blocks(KernelSpec("mix", {"parts": [{**part, "weight": 1}, {**part, "weight": 2}]}))
    image_files = set(map(str, corpus.image_paths.values()))
    assert digested and not image_files & set(digested), digested[:5]


def test_a_grid_projects_rows_on_demand_block_by_block(monkeypatch):
    """KCCAGrid.transform_x / transform_y of KernelRows equal those of the whole block."""
    from kcca._solver import KCCAGrid

    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(40, 5)), rng.normal(size=(40, 4))
    grid = KCCAGrid(kappas=(0.1, 1.0), n_components=[2, 4]).fit(x @ x.T, y @ y.T)
    new = rng.normal(size=(13, 5)) @ x.T
    monkeypatch.setattr(KernelRows, "STEP_CELLS", 40 * 3)  # blocks of three rows
    rows = KernelRows(lambda index: new[index], new.shape)
    assert [b.shape[0] for _, b in rows.blocks()] == [3, 3, 3, 3, 1]
    for ours, whole in zip(grid.transform_x(rows), grid.transform_x(new)):
        np.testing.assert_allclose(ours, whole, rtol=1e-12, atol=1e-12)


def test_all_captions_and_nn_with_rows_on_demand(corpus, tmp_path, monkeypatch):
    import dataclasses

    images, captions = plant_vectors(corpus, tmp_path)
    spec = _spec(tmp_path, images, captions)
    monkeypatch.setattr(B, "DENSE_TRAIN_LIMIT", 50)
    ws = Workspace(corpus, Cache(None), RunConfig.of(progress=False, protocol="all-captions"))
    res = run_system(corpus, spec, workspace=ws)
    ((annotation, search),) = res.protocol_ranks[1]
    assert np.mean(annotation <= 5) > 0.8 and np.mean(search <= 5) > 0.8
    nn = dataclasses.replace(spec, name="NN_VEC", model="nn")
    table = run_system(corpus, nn, workspace=ws).table()
    assert table["annotation"]["R@5"] > 50, table


def test_a_large_pools_borda_is_ranked_in_blocks_of_queries(monkeypatch):
    """borda_rankings over more than BORDA_CELLS cells ranks blocks of queries: the same
    rankings as the whole pool at once (each query's Borda count is its own)."""
    from kcca._solver import KCCAGrid
    from kcca._systems import grid as G

    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(300, 6)), rng.normal(size=(300, 5))
    kx, ky = rng.normal(size=(120, 6)) @ x.T, rng.normal(size=(120, 5)) @ y.T
    models = [(0.1, 2), (1.0, 4), (0.1, 4)]

    def ranked(task: str) -> np.ndarray:
        grid = KCCAGrid(kappas=(0.1, 1.0), n_components=[2, 4]).fit(x @ x.T, y @ y.T)
        return G.borda_rankings(grid, kx, ky, task, models)

    whole = {task: ranked(task) for task in ("annotation", "search")}
    monkeypatch.setattr(G, "BORDA_CELLS", 3 * 120 * 7)  # blocks of seven queries
    for task in whole:
        np.testing.assert_array_equal(ranked(task), whole[task])
