"""scripts/idf_log_base.py: IDFs in base b equal natural-log IDFs with the match weight
lambda_m / sqrt(ln b), for the exact and the word-kernel sqrt-IDF trigram kernels."""

from __future__ import annotations

import math

import numpy as np
import pytest

from features.text.idf import Idf
from features.text.trigram_kernel import TrigramKernel
from tests.features.test_soft_trigram import random_word_kernel
from tests.scripts.load import load_script

TRAIN = [[["dog", "run", "beach"], ["puppy", "sprint", "sand", "ball"]],
         [["dog", "ball"], ["dog", "run", "ball", "beach"]],
         [["sand", "beach", "dog"], ["puppy", "run"]],
         [["ball", "ball", "sprint"], ["dog"]],
         [["dog", "run", "sand"], ["beach", "puppy", "ball"]]]
TEST = [["dog", "run", "ball"], ["puppy", "sand"], ["beach", "dog", "sprint", "ball"]]


@pytest.fixture(scope="module")
def script():
    return load_script("idf_log_base")


@pytest.mark.parametrize("soft", [False, True])
@pytest.mark.parametrize("base", [10.0, 2.0])
def test_a_log_base_is_a_match_weight(script, monkeypatch, soft, base):
    wk = random_word_kernel(3) if soft else None
    plain = TrigramKernel(weighting="sqrt-idf", word_kernel=wk, progress=False).fit(TRAIN)
    moved = TrigramKernel(weighting="sqrt-idf", word_kernel=wk, progress=False,
                          lambda_m=script.match_weight(0.5, base)).fit(TRAIN)
    want_train, want_test = moved.gram(TRAIN), moved.gram(TEST)
    assert not np.allclose(plain.gram(TEST), want_test, atol=1e-3)  # the base matters

    natural = Idf.weight
    monkeypatch.setattr(Idf, "weight", lambda self, w: natural(self, w) / math.log(base))
    in_base = TrigramKernel(weighting="sqrt-idf", word_kernel=wk, progress=False).fit(TRAIN)
    np.testing.assert_allclose(in_base.gram(TRAIN), want_train, atol=1e-12)
    np.testing.assert_allclose(in_base.gram(TEST), want_test, atol=1e-12)


def test_bases_must_exceed_one(script):
    assert script.match_weight(0.5, math.e) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="exceed 1"):
        script.match_weight(0.5, 1.0)
