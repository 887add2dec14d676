"""Slow, obviously correct caption-metric oracles for the tests of :mod:`kcca.captions`.

* :func:`cider_d_reference` and :func:`cider_reference`: CIDEr-D (Chen et al. 2015, eq. 19-20)
  and plain CIDEr (eq. 16-18) by direct loops over n-gram dictionaries, the peers of the
  sparse-matrix scorers of :mod:`kcca.captions._cider` (same IDF, same details; see there);
* :func:`lcs_length_dp`: the longest common subsequence by the textbook recurrence, the peer
  of the bit-parallel :func:`kcca.captions._rouge.lcs_length_bits` (ROUGE-L, eq. 5-7).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Sequence

import numpy as np

from kcca.captions._scorer import Tokens


def ngrams_by_order(tokens: Sequence[str], max_n: int = 4) -> list[Counter]:
    """``[Counter of 1-grams, ..., Counter of max_n-grams]`` (keys are token tuples)."""
    return [
        Counter(zip(*(tokens[i:] for i in range(n)))) if len(tokens) >= n else Counter()
        for n in range(1, max_n + 1)
    ]


def document_frequency(refs_counts: Sequence[Sequence[list[Counter]]]) -> Counter:
    """df of every n-gram: the number of images whose references contain it (eq. 16)."""
    df: Counter = Counter()
    for image_refs in refs_counts:
        seen: set = set()
        for counts in image_refs:
            for c in counts:
                seen.update(c)
        df.update(seen)
    return df


def _idf_lookup(df: Counter, n_images: int):
    log_n = math.log(float(n_images))
    cache: dict = {}

    def idf(g) -> float:
        v = cache.get(g)
        if v is None:
            v = log_n - math.log(max(1.0, float(df.get(g, 0))))
            cache[g] = v
        return v

    return idf


def _vectors(counts: list[Counter], idf, normalise_tf: bool) -> tuple[list[dict], list[float]]:
    """tf-idf vectors per order and their Euclidean norms."""
    vecs, norms = [], []
    total = sum(sum(c.values()) for c in counts) if normalise_tf else 1.0
    for c in counts:
        v = {}
        sq = 0.0
        for g, tf in c.items():
            w = (tf / total if normalise_tf else float(tf)) * idf(g)
            v[g] = w
            sq += w * w
        vecs.append(v)
        norms.append(math.sqrt(sq))
    return vecs, norms


def cider_d_reference(
    references: Sequence[Sequence[Tokens]],
    candidates: Sequence[Tokens],
    n: int = 4,
    sigma: float = 6.0,
) -> np.ndarray:
    """Per-item CIDEr-D by direct loops over n-gram dictionaries (the slow, obvious form)."""
    ref_counts = [[ngrams_by_order(r, n) for r in refs] for refs in references]
    cand_counts = [ngrams_by_order(c, n) for c in candidates]
    idf = _idf_lookup(document_frequency(ref_counts), len(candidates))
    two_s2 = 2.0 * sigma**2
    scores = np.empty(len(candidates))
    for i, (cc, rcs) in enumerate(zip(cand_counts, ref_counts)):
        vec, norm = _vectors(cc, idf, False)
        length = sum(cc[1].values()) if n > 1 else 0
        total = [0.0] * n
        for rc in rcs:
            vref, nref = _vectors(rc, idf, False)
            delta = float(length - (sum(rc[1].values()) if n > 1 else 0))
            penalty = math.e ** (-(delta**2) / two_s2)
            for k in range(n):
                vr = vref[k]
                val = 0.0
                for g, w in vec[k].items():
                    r = vr.get(g, 0.0)
                    val += (w if w < r else r) * r
                if norm[k] != 0 and nref[k] != 0:
                    val /= norm[k] * nref[k]
                total[k] += val * penalty
        scores[i] = sum(total) / n / len(rcs) * 10.0
    return scores


def cider_reference(
    references: Sequence[Sequence[Tokens]], candidates: Sequence[Tokens], n: int = 4
) -> np.ndarray:
    """Per-item plain CIDEr (eq. 16-18) by direct loops (the slow, obvious form)."""
    ref_counts = [[ngrams_by_order(r, n) for r in refs] for refs in references]
    cand_counts = [ngrams_by_order(c, n) for c in candidates]
    idf = _idf_lookup(document_frequency(ref_counts), len(candidates))
    scores = np.empty(len(candidates))
    for i, (cc, rcs) in enumerate(zip(cand_counts, ref_counts)):
        vec, norm = _vectors(cc, idf, True)
        total = 0.0
        for rc in rcs:
            vref, nref = _vectors(rc, idf, True)
            for k in range(n):
                if norm[k] == 0 or nref[k] == 0:
                    continue
                vr = vref[k]
                total += sum(w * vr.get(g, 0.0) for g, w in vec[k].items()) / (norm[k] * nref[k])
        scores[i] = total / n / len(rcs)
    return scores


def lcs_length_dp(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence by the textbook O(|a||b|) recurrence."""
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]
