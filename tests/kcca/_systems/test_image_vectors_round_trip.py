"""Exported image vectors (``kcca._systems.image_vectors``) in a ``vectors`` kernel give the
built-in kernel's blocks and, in a system, the same rankings files: the Fisher vectors with
``linear-float32``, the pyramid and whole-image histograms with ``intersection``."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from features._image_features import ImageFeatureConfig
from features._vectors_file import read_item_vectors
from features._vectors_writer import write_item_vectors
from kcca._cache import Cache
from kcca.data._corpus import SPLITS
from kcca.data._demo import make_demo_corpus
from kcca.errors import DataError
from kcca._systems import load_spec, run_system
from kcca._systems.blocks import Workspace
from kcca._systems.config import RunConfig
from kcca._systems.image_vectors import MATCHING_FUNCTION, image_kernel_vectors
from kcca._systems.spec import KernelSpec

FISHER = {"n_gaussians": 2, "pca_dim": 4, "strips": 1, "sample_images": 10, "per_image": 30,
          "step": 6}
SMALL_FEATURES = ImageFeatureConfig(n_images=10, points_per_image=100, max_iter=20,
                                    vocabulary={"color": 8, "texture": 8, "sift": 8})


@pytest.fixture(scope="module")
def corpus():
    return make_demo_corpus(n_train=40, n_dev=10, n_test=10, image_size=48, seed=1,
                            judgments=False)


def workspace(corpus) -> Workspace:
    return Workspace(corpus, Cache(None),
                     RunConfig.of(progress=False, image_config=SMALL_FEATURES))


def export(corpus, ws, kernel: str, params: dict, path: Path) -> Path:
    ids = [i for s in SPLITS for i in corpus.split(s)]
    features = None if kernel == "fisher" else ws.image_features()
    exported = image_kernel_vectors(corpus, kernel, params, ids, features=features)
    write_item_vectors(path, exported.ids, exported.vectors)
    return path


def experiment(folder: Path, name: str, image_kernel: str) -> Path:
    path = folder / f"{name}.toml"
    path.write_text(f"""name = "{name}"
preprocessing = "demo"

[image_kernel]
{image_kernel}

[text_kernel]
name = "bow"

[grid]
p = [1]
d = [1]
kappas = [0.1, 1.0]
n = "geometric:5:6"
""", encoding="utf-8")
    return path


def toml_table(params: dict) -> str:
    return "{" + ", ".join(f"{k} = {v!r}" for k, v in params.items()) + "}"


@pytest.mark.parametrize("kernel,params,suffix", [
    ("fisher", FISHER, ".npz"),
    ("pyramid", {}, ".npy"),
    ("histogram", {"feature_types": ["color", "sift"]}, ".npz"),
])
def test_the_vectors_kernel_gives_the_built_in_blocks(corpus, tmp_path, kernel, params, suffix):
    ws = workspace(corpus)
    path = export(corpus, ws, kernel, params, tmp_path / f"{kernel}{suffix}")
    built_in = ws.image_blocks(KernelSpec(kernel, params))
    vectors = ws.image_blocks(
        KernelSpec("vectors", {"path": str(path), "function": MATCHING_FUNCTION[kernel]})
    )
    for split in SPLITS:
        assert np.abs(vectors[split] - built_in[split]).max() <= 1e-10, split


def test_fisher_vectors_in_float64_differ_by_float32_rounding(corpus, tmp_path):
    ws = workspace(corpus)
    path = export(corpus, ws, "fisher", FISHER, tmp_path / "fisher.npz")
    built_in = ws.image_blocks(KernelSpec("fisher", FISHER))
    linear = ws.image_blocks(KernelSpec("vectors", {"path": str(path)}))
    assert 0 < np.abs(linear.train - built_in.train).max() < 1e-5


@pytest.mark.parametrize("mixed", [False, True])
def test_a_system_on_exported_vectors_writes_the_same_rankings(corpus, tmp_path, mixed):
    """Fisher vectors alone, and experiments/vectors' system at the demo's size: the mean of
    K^PY and the Fisher-vector kernel, each part replaced by a vectors kernel."""
    ws = workspace(corpus)
    fisher = export(corpus, ws, "fisher", FISHER, tmp_path / "fisher.npz")
    pyramid = export(corpus, ws, "pyramid", {}, tmp_path / "pyramid.npy")
    fisher_vectors = (f'{{name = "vectors", params = {{path = "{fisher.as_posix()}", '
                      'function = "linear-float32"}}')
    pyramid_vectors = (f'{{name = "vectors", params = {{path = "{pyramid.as_posix()}", '
                       'function = "intersection"}}')
    if mixed:
        kernels = [f'name = "mix"\nparams = {{parts = [{{name = "pyramid"}}, '
                   f'{{name = "fisher", params = {toml_table(FISHER)}}}]}}',
                   f'name = "mix"\nparams = {{parts = [{pyramid_vectors}, {fisher_vectors}]}}']
    else:
        kernels = [f'name = "fisher"\nparams = {toml_table(FISHER)}',
                   f'name = "vectors"\nparams = {{path = "{fisher.as_posix()}", '
                   'function = "linear-float32"}']
    files = []
    for side, image_kernel in zip(("built-in", "exported"), kernels):
        spec = load_spec(experiment(tmp_path, side, image_kernel))
        result = run_system(corpus, dataclasses.replace(spec, name="same"), workspace=ws)
        files.append(result.write_rankings(tmp_path / f"{side}.json", corpus))
    assert files[0].read_bytes() == files[1].read_bytes()


def test_the_exported_file_is_what_the_reader_loads(corpus, tmp_path):
    ws = workspace(corpus)
    path = export(corpus, ws, "pyramid", {}, tmp_path / "pyramid.npz")
    loaded = read_item_vectors(path)
    assert isinstance(loaded.vectors, np.memmap)  # stored uncompressed
    ids = list(corpus.split("test"))
    np.testing.assert_array_equal(
        loaded.gather(ids), image_kernel_vectors(corpus, "pyramid", {}, ids,
                                                 features=ws.image_features()).vectors)


@pytest.mark.parametrize("kernel,params,match", [
    ("bow", {}, "cannot be exported"),
    ("pyramid", {"p": 2}, "before the power p"),
    ("fisher", {"gaussians": 2}, "does not take these parameters"),
])
def test_what_cannot_be_exported(corpus, kernel, params, match):
    with pytest.raises(DataError, match=match):
        image_kernel_vectors(corpus, kernel, params, [])


def test_intersection_refuses_negative_vectors(tmp_path):
    from features.kernels._vectors import VectorsKernel

    np.savez(tmp_path / "v.npz", ids=np.array(["a", "b"]), vectors=np.array([[1.0, -1.0],
                                                                             [0.5, 0.5]]))
    kernel = VectorsKernel(path=str(tmp_path / "v.npz"), function="intersection")
    with pytest.raises(DataError, match="no negative entry"):
        kernel.fit(["a", "b"]).gram(["a"])


def test_the_diagonal_is_the_built_in_one(corpus, tmp_path):
    from features.kernels._image import PyramidKernel
    from features.kernels._vectors import VectorsKernel

    ws = workspace(corpus)
    path = export(corpus, ws, "pyramid", {}, tmp_path / "pyramid.npz")
    ids = list(corpus.split("dev"))
    vectors = VectorsKernel(path=str(path), function="intersection").fit(ids)
    built_in = PyramidKernel(p=1).fit(ws.image_features().items(ids))
    np.testing.assert_allclose(vectors.diag(ids), built_in.diag(ws.image_features().items(ids)),
                               rtol=0, atol=1e-12)
