"""IDF weights over training images (Sections 3.1 and 3.4.1).

``lambda_w = ln(|D_train| / (|D_train(w)| + 1))``, where ``D_train(w)`` is the set of training
images in whose captions ``w`` appears at least once (document = all captions of one training
image), natural logarithm, clamped at 0 (docs/paper-notes.md#idf-weights). A word never seen in
training has ``|D_train(w)| = 0`` and gets ``ln |D_train|``. Sequences (eq. 16) get the product of
their words' weights.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Iterable, Sequence

import numpy as np

from kcca.errors import SettingError


class Idf:
    """Document frequencies of training images and the IDF weight of a word."""

    def fit(self, documents: Sequence[Iterable[Iterable[str]]]) -> "Idf":
        """``documents``: one entry per training image, each an iterable of captions."""
        df: Counter[str] = Counter()
        for doc in documents:
            # each word once per image, in first-seen order (a set's order follows the hash seed)
            df.update(dict.fromkeys((w for caption in doc for w in caption), 1))
        if not documents:
            raise ValueError("IDF needs at least one training document (image)")
        self.n_documents_ = len(documents)
        self.document_frequency_ = dict(df)
        self._log_n = math.log(self.n_documents_)
        return self

    def weight(self, word: str) -> float:
        """``lambda_w`` (clamped at 0)."""
        return max(0.0, self._log_n - math.log(self.document_frequency_.get(word, 0) + 1))

    def weights(self, words: Iterable[str]) -> np.ndarray:
        return np.array([self.weight(w) for w in words], dtype=np.float64)

    def sequence_weight(self, sequence: Iterable[str], power: float = 1.0) -> float:
        """``lambda_w ** power`` for a sequence: ``prod_k lambda_{w_k} ** power`` (eq. 16)."""
        out = 1.0
        for w in sequence:
            out *= self.weight(w) ** power
        return out


#: feature scaling exponent per weighting name: feature *= lambda_w ** power
WEIGHTING_POWER = {None: 0.0, "none": 0.0, "idf": 1.0, "sqrt-idf": 0.5}


def weighting_power(weighting: str | None) -> float:
    """Exponent of ``lambda_w`` applied to each feature ("sqrt-idf": eq. 16 / BoW5^sqrt-idf)."""
    try:
        return WEIGHTING_POWER[weighting]
    except KeyError:
        raise SettingError(
            f"unknown weighting {weighting!r}: use None, 'idf' or 'sqrt-idf'"
        ) from None
