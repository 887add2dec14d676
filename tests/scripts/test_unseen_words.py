"""scripts/unseen_words.py: new captions lose every sequence holding a word unseen in training."""

from __future__ import annotations

import numpy as np
import pytest

from features.text.trigram_kernel import TrigramKernel
from tests.scripts.load import load_script

TRAIN = [[["dog", "run", "beach"], ["dog", "play"]], [["man", "ride", "bike"]],
         [["girl", "swim"]], [["boy", "climb", "rock"]]]


@pytest.mark.parametrize("weighting", [None, "sqrt-idf"])
def test_a_new_caption_scores_as_if_its_unseen_words_were_absent(weighting):
    script = load_script("unseen_words")
    seen = script.training_vocabulary(TRAIN)
    assert {"dog", "run", "bike", "rock"} <= seen and "zebra" not in seen
    with_unseen = TrigramKernel(weighting=weighting).fit(TRAIN)
    script.drop_unseen(with_unseen, seen)
    plain = TrigramKernel(weighting=weighting).fit(TRAIN)
    got = with_unseen.gram([["zebra", "dog", "run", "okapi"]])
    want = plain.gram([["dog", "run"]])
    np.testing.assert_allclose(got, want)
    assert want[0, 0] > 0
    # the unpatched kernel keeps the unseen words in the caption's self-kernel
    assert not np.allclose(plain.gram([["zebra", "dog", "run", "okapi"]]), want)
