"""Fixtures of the feature tests."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.soft_trigram_literal import VOCAB


@pytest.fixture
def items():
    """Six two-caption training items and four test captions (an empty one, one with words
    outside the word kernel) for the soft trigram tests."""
    rng = np.random.default_rng(11)
    caps = []
    for _ in range(14):
        n = int(rng.integers(1, 6))
        caps.append([VOCAB[int(i)] for i in rng.integers(0, len(VOCAB), n)])
    caps[0] = ["dog"]
    caps[1] = ["dog", "dog", "run", "dog", "beach"]
    train = [caps[i:i + 2] for i in range(0, 12, 2)]  # six two-caption items
    train[5] = [["zebra", "run"], []]  # word unknown to the word kernel, empty caption
    test = [["puppy", "sprint", "sand"], ["ball", "ball"], ["zebra"], []]
    return train, test
