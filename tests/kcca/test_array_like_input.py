"""Array-likes in, as scikit-learn's ``check_array`` takes them: a kernel block or histogram
matrix given as nested lists gives the numbers of the array, on every backend; an object array
of numbers is converted; what is not numbers is a :class:`~kcca.errors.DataError` (a
ValueError) naming the input, never numpy's bare TypeError or an ``AttributeError``."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse

from features.kernels._image import HistogramKernel
from features.kernels._intersection import intersection_block
from kcca._backend import to_numpy, to_real_numpy
from kcca.errors import DataError
from kcca.nn import nn_annotation_scores, nn_search_scores
from kcca._solver import KCCA

BACKENDS = ["numpy", "array_api_strict"]


@pytest.fixture(scope="module")
def histograms() -> np.ndarray:
    return np.random.default_rng(0).uniform(size=(6, 5))


def with_dict(a: np.ndarray) -> np.ndarray:
    out = a.astype(object)
    out[1, 2] = {"foo": "bar"}
    return out


def test_to_numpy_converts_nested_lists_and_object_arrays_of_numbers(histograms):
    assert np.array_equal(to_numpy(histograms.tolist()), histograms)
    got = to_numpy(histograms.astype(object))
    assert got.dtype == np.float64 and np.array_equal(got, histograms)
    assert to_numpy(histograms) is histograms
    assert np.array_equal(to_numpy(scipy.sparse.csr_array(histograms)), histograms)


@pytest.mark.parametrize(
    "bad,match",
    [
        (
            lambda a: with_dict(a),
            r"H holds \{'foo': 'bar'\} \(dict, not a number\) at index \(1, 2\)",
        ),
        (lambda a: [[1.0, 2.0], [3.0]], "H is not a rectangular array of numbers"),
        (lambda a: a.astype(str), "H holds dtype <U"),
    ],
    ids=["dict-in-object-array", "ragged-lists", "strings"],
)
def test_to_numpy_names_what_is_not_numbers(histograms, bad, match):
    with pytest.raises(DataError, match=match) as info:
        to_numpy(bad(histograms), "H")
    assert isinstance(info.value, ValueError) and info.value.fix


def test_to_real_numpy_keeps_a_zero_imaginary_part_out_and_refuses_another(histograms):
    assert np.array_equal(to_real_numpy(histograms + 0j), histograms)
    with pytest.raises(DataError, match="Complex data not supported: H has a nonzero"):
        to_real_numpy(histograms + 1j, "H")


@pytest.mark.parametrize("backend", BACKENDS)
def test_histogram_intersection_of_nested_lists_is_that_of_the_array(histograms, backend):
    expected = intersection_block(histograms, backend=backend)
    got = intersection_block(histograms.tolist(), backend=backend)
    assert np.array_equal(got, expected)
    kernel = HistogramKernel(backend=backend)
    assert np.array_equal(kernel.gram_matrix(histograms.tolist()), kernel.gram_matrix(histograms))


@pytest.mark.parametrize("backend", BACKENDS)
def test_histograms_that_are_not_numbers_are_a_data_error(histograms, backend):
    with pytest.raises(DataError, match=r"a holds \{'foo': 'bar'\} .* at index \(1, 2\)"):
        intersection_block(with_dict(histograms), backend=backend)
    with pytest.raises(DataError, match="Complex data not supported"):
        intersection_block(histograms + 1j, backend=backend)


def test_nearest_neighbour_blocks_as_nested_lists(histograms):
    img, txt = histograms, histograms[::-1]
    for scores in (nn_annotation_scores, nn_search_scores):
        assert np.array_equal(scores(img.tolist(), txt.tolist()), scores(img, txt))
    with pytest.raises(DataError, match=r"image_block holds \{'foo': 'bar'\}"):
        nn_annotation_scores(with_dict(img), txt)


def test_kcca_reports_a_kernel_of_non_numbers_as_a_data_error(histograms):
    K = histograms @ histograms.T + np.eye(6)
    with pytest.raises(DataError, match=r"Kx holds \{'foo': 'bar'\}"):
        KCCA(n_components=1).fit(with_dict(K), K)
    model = KCCA(n_components=1).fit(K.tolist(), K.tolist())
    assert np.array_equal(model.transform_x(K.tolist()), model.transform_x(K))
