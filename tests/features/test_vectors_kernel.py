"""The ``vectors`` kernel (features.kernels._vectors): each function against
sklearn.metrics.pairwise on random data, the float64 row blocks, the RBF median heuristic,
multi-caption items (the mean of their vectors), and its named errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.distance import pdist
from sklearn.metrics.pairwise import (
    cosine_similarity,
    linear_kernel,
    polynomial_kernel,
    rbf_kernel,
)
from sklearn.preprocessing import normalize

import features.kernels._vector_functions as functions
import features.kernels._vectors as vectors_module
from features.kernels import available_kernels, make_kernel
from features.kernels._vectors import VectorsKernel
from kcca.errors import DataError

N, DIM = 70, 12
IDS = [f"img{i:03d}.jpg" for i in range(N)]
TRAIN, TEST = IDS[:50], IDS[50:]


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> tuple[Path, np.ndarray]:
    folder = tmp_path_factory.mktemp("vectors")
    x = np.random.default_rng(7).normal(size=(N, DIM)).astype(np.float32)
    np.save(folder / "v.npy", x)
    (folder / "v.ids.txt").write_text("\n".join(IDS) + "\n", encoding="utf-8")
    return folder / "v.npy", x.astype(np.float64)


def sklearn_kernel(function: str, a, b, gamma=None, degree=3, coef0=1.0):
    return {
        "linear": lambda: linear_kernel(a, b),
        "cosine": lambda: cosine_similarity(a, b),
        "rbf": lambda: rbf_kernel(a, b, gamma=gamma),
        "polynomial": lambda: polynomial_kernel(a, b, degree=degree, gamma=gamma, coef0=coef0),
    }[function]()


def test_registered_as_vectors():
    assert "vectors" in available_kernels()
    kernel = make_kernel("vectors", path="x.npy", function="rbf")
    assert isinstance(kernel, VectorsKernel) and kernel.item_type == "ids"
    assert set(kernel.params) == {
        "path", "ids_path", "function", "normalise", "gamma", "degree", "coef0"
    }


@pytest.mark.parametrize("normalise", [False, True])
@pytest.mark.parametrize(
    "function,params",
    [("linear", {}), ("cosine", {}), ("rbf", {"gamma": 0.05}),
     ("polynomial", {"gamma": 0.2, "degree": 2, "coef0": 0.5}), ("polynomial", {})],
)
def test_each_function_against_sklearn(data, function, params, normalise):
    path, x = data
    kernel = VectorsKernel(path=str(path), function=function, normalise=normalise, **params)
    kernel.fit(TRAIN)
    seen = normalize(x) if normalise else x
    gamma = params.get("gamma", 1 / DIM if function == "polynomial" else None)
    extra = {k: v for k, v in params.items() if k != "gamma"}
    train = kernel.gram(TRAIN)
    assert train.dtype == np.float64 and np.array_equal(train, train.T)
    np.testing.assert_allclose(
        train, sklearn_kernel(function, seen[:50], seen[:50], gamma, **extra), rtol=1e-12,
        atol=1e-12,
    )
    np.testing.assert_allclose(
        kernel.gram(TEST), sklearn_kernel(function, seen[50:], seen[:50], gamma, **extra),
        rtol=1e-12, atol=1e-12,
    )
    np.testing.assert_allclose(
        kernel.diag(TEST), np.diag(sklearn_kernel(function, seen[50:], seen[50:], gamma, **extra)),
        rtol=1e-12, atol=1e-12,
    )


@pytest.mark.parametrize("function", ["linear", "rbf", "polynomial"])
def test_row_blocks_give_the_same_numbers(data, function, monkeypatch):
    path, x = data
    whole = VectorsKernel(path=str(path), function=function, gamma=0.1).fit(TRAIN)
    train, test = whole.gram(TRAIN), whole.gram(TEST)
    monkeypatch.setattr(functions, "BLOCK_BYTES", 8 * 50 * 7)  # slabs of 7 rows
    sliced = VectorsKernel(path=str(path), function=function, gamma=0.1).fit(TRAIN)
    got = sliced.gram(TRAIN)
    assert np.array_equal(got, got.T)
    np.testing.assert_allclose(got, train, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(sliced.gram(TEST), test, rtol=1e-12, atol=1e-13)


def test_rbf_gamma_is_the_median_heuristic(data, monkeypatch):
    path, x = data
    kernel = VectorsKernel(path=str(path), function="rbf").fit(TRAIN)
    assert kernel.gamma_ == pytest.approx(1 / np.median(pdist(x[:50], "sqeuclidean")), rel=1e-12)
    np.testing.assert_allclose(kernel.gram(TEST), rbf_kernel(x[50:], x[:50], gamma=kernel.gamma_))
    assert VectorsKernel(path=str(path), function="rbf", gamma=2.0).fit(TRAIN).gamma_ == 2.0
    assert VectorsKernel(path=str(path)).fit(TRAIN).gamma_ is None
    # above MEDIAN_SAMPLE training vectors: a seeded sample, the same on every fit
    monkeypatch.setattr(functions, "MEDIAN_SAMPLE", 20)
    take = np.sort(np.random.default_rng(functions.MEDIAN_SEED).choice(50, 20, replace=False))
    sampled = VectorsKernel(path=str(path), function="rbf").fit(TRAIN)
    assert sampled.gamma_ == pytest.approx(1 / np.median(pdist(x[take], "sqeuclidean")))
    assert VectorsKernel(path=str(path), function="rbf").fit(TRAIN).gamma_ == sampled.gamma_


def test_the_median_heuristic_refuses_equal_vectors(tmp_path):
    np.save(tmp_path / "v.npy", np.ones((4, 3)))
    (tmp_path / "v.ids.txt").write_text("a\nb\nc\nd\n")
    with pytest.raises(DataError, match="median squared distance .* is 0") as info:
        VectorsKernel(path=str(tmp_path / "v.npy"), function="rbf").fit(["a", "b", "c"])
    assert "gamma" in info.value.fix


@pytest.mark.parametrize("normalise", [False, True])
@pytest.mark.parametrize("function", ["linear", "cosine", "rbf"])
def test_a_multi_caption_item_is_the_mean_of_its_vectors(data, function, normalise):
    path, x = data
    groups = [tuple(IDS[5 * i : 5 * i + 5]) for i in range(8)] + [(IDS[40], IDS[41])]
    kernel = VectorsKernel(path=str(path), function=function, normalise=normalise, gamma=0.05)
    kernel.fit(groups)
    rows = normalize(x) if normalise else x
    means = np.stack([rows[[IDS.index(i) for i in g]].mean(axis=0) for g in groups])
    gamma = 0.05 if function == "rbf" else None
    np.testing.assert_allclose(kernel.gram(groups), sklearn_kernel(function, means, means, gamma),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kernel.gram(TEST), sklearn_kernel(function, rows[50:], means, gamma),
                               rtol=1e-12, atol=1e-12)


def test_linear_mean_item_is_the_mean_of_the_caption_pair_values(data):
    path, x = data
    kernel = VectorsKernel(path=str(path)).fit([tuple(IDS[:5]), tuple(IDS[5:10])])
    assert kernel.gram([tuple(IDS[10:15])])[0, 1] == pytest.approx(
        linear_kernel(x[10:15], x[5:10]).mean(), rel=1e-12
    )


def test_the_vectors_are_memory_mapped(data):
    path, _ = data
    kernel = VectorsKernel(path=str(path)).fit(TRAIN)
    assert isinstance(kernel.vectors_.vectors, np.memmap)
    assert kernel.input_files() == {"vectors": str(path), "ids": str(path.parent / "v.ids.txt")}


@pytest.mark.parametrize(
    "params,match",
    [
        ({"function": "laplacian"}, "unknown function 'laplacian'"),
        ({"function": "rbf", "gamma": 0.0}, "gamma 0.0 is not a positive number"),
        ({"function": "polynomial", "degree": 2.5}, "degree 2.5 is not a whole number"),
        ({"function": "polynomial", "degree": 0}, "degree 0 is not a whole number"),
        ({"function": "polynomial", "coef0": -1.0}, "coef0 -1.0 is negative"),
    ],
)
def test_parameters_that_are_refused(data, params, match):
    with pytest.raises(DataError, match=match) as info:
        VectorsKernel(path=str(data[0]), **params).fit(TRAIN)
    assert info.value.fix


def test_no_path(data):
    with pytest.raises(DataError, match="needs the file of the items' vectors"):
        VectorsKernel().fit(TRAIN)
    assert VectorsKernel().input_files() == {}


def test_items_that_are_not_ids(data):
    kernel = VectorsKernel(path=str(data[0]))
    with pytest.raises(DataError, match="item 1 is list .* not an id or a list of ids") as info:
        kernel.fit([IDS[0], [["a", "dog", "runs"]]])
    assert "cannot encode images or token lists" in info.value.fix
    with pytest.raises(DataError, match="item 0 is tuple"):
        kernel.fit([()])


def test_an_item_with_no_vector_is_named(data):
    kernel = VectorsKernel(path=str(data[0])).fit(TRAIN)
    with pytest.raises(DataError, match=r"no vector for id 'img999\.jpg#2'"):
        kernel.gram(["img999.jpg#2"])
    with pytest.raises(DataError, match=r"no vector for id 'x#0' \(and 1 more of the 3 ids"):
        VectorsKernel(path=str(data[0])).fit([(IDS[0], "x#0", "x#1")])


def test_items_are_read_a_few_at_a_time_with_the_same_numbers(data, monkeypatch):
    path, _ = data
    groups = [tuple(IDS[5 * i : 5 * i + 5]) for i in range(8)] + [(IDS[40],), IDS[41]]
    whole = VectorsKernel(path=str(path), normalise=True).fit(groups)
    monkeypatch.setattr(vectors_module, "ITEMS_AT_ONCE", 3)
    pieces = VectorsKernel(path=str(path), normalise=True).fit(groups)
    assert np.array_equal(pieces.train_vectors_, whole.train_vectors_)
    assert np.array_equal(pieces.gram(TEST), whole.gram(TEST))
