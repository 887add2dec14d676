"""Word kernels: eq. 17-18 cosine, identity outside the vocabulary, thresholds, eq. 26-27."""

import numpy as np
import pytest

from features.text._word_kernel import WordKernel, average, maximum


def test_cosine_of_similarity_vectors():
    k = WordKernel.from_vectors("t", ["a", "b", "c"], np.array([[1, 0], [1, 1], [0, 0]]))
    assert k.similarity("a", "b") == pytest.approx(1 / np.sqrt(2))
    assert k.similarity("c", "c") == 1.0 and k.similarity("a", "c") == 0.0
    assert k.similarity("a", "zzz") == 0.0 and k.similarity("zzz", "zzz") == 1.0


def test_threshold_average_maximum():
    a = WordKernel("a", ("x", "y"), np.array([[1, 0.04], [0.04, 1]]))
    b = WordKernel("b", ("y", "z"), np.array([[1, 0.6], [0.6, 1]]))
    assert a.thresholded(0.05).similarity("x", "y") == 0.0
    assert a.thresholded(0.04).similarity("x", "y") == 0.04  # strictly below is zeroed
    avg = average([a, b])
    assert avg.similarity("x", "y") == pytest.approx(0.02)  # identity (0) outside b's vocabulary
    assert avg.similarity("y", "z") == pytest.approx(0.3)
    mx = maximum([a, b])
    assert mx.similarity("y", "z") == 0.6 and mx.similarity("x", "y") == 0.04
    assert mx.nearest("y", 2) == [("z", 0.6), ("x", 0.04)]
    np.testing.assert_array_equal(np.diag(avg.matrix), 1.0)


def test_bad_shapes():
    with pytest.raises(ValueError, match="does not match its vocabulary"):
        WordKernel("bad", ("a",), np.eye(2))
    with pytest.raises(ValueError, match="non-finite"):
        WordKernel("bad", ("a", "b"), np.array([[1, np.nan], [np.nan, 1]]))
