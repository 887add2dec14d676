"""Slow, loop-by-loop oracles of the all-captions retrieval protocol, the peers of
:mod:`kcca._evaluate.retrieval_protocol` in its tests.

:func:`scan_i2t`, :func:`scan_t2i` and :func:`scan_evalrank` re-express, loop for loop, the
functions ``i2t``, ``t2i`` and the ``fold5`` branch of ``evalrank`` in

    kuanghuei/SCAN, evaluation.py, commit 053693f0b7a22db142adfeb3236f56de84c2edd9
    (Lee et al. 2018, Apache-2.0; its file is unchanged up to HEAD 806355736e3c)

which take a precomputed ``(N, 5N)`` image x caption similarity matrix. They are the loops of
fartashf/vsepp ``evaluation.py`` (commit abe382fd9c751d1b92c95030df8fb804a7d5ef53), which
computes that matrix from embeddings on the fly. Departures, each needed to run or to define
the comparison, none changing a number:

* Python 3: ``npts`` is an ``int`` (the originals are Python 2, ``images.shape[0] / 5``);
* ``numpy.argsort(d, kind="stable")[::-1]`` where the originals call ``numpy.argsort(d)[::-1]``:
  NumPy's default sort is not stable, so the originals' order among equal scores is unspecified
  (it varies with the NumPy version and the CPU's SIMD sort); the stable sort fixes it to the
  one order that line can be read as (the higher index first among ties);
* the five-fold mean: both originals average per-fold rows over the folds, then *print* a
  wrong rsum (SCAN: ``mean_metrics[10] * 6``, six times the mean i2t average recall, since its
  rows are ``r + ri + [ar, ari, rsum]``; VSE++ at the commit above: six times the mean rsum).
  The oracle returns the mean of the rsum column, the figure the papers report.

:func:`gold_last_ranks` is a plain sort for the toolkit's tie rule (gold last among ties).
"""

from __future__ import annotations

import numpy as np


def _sorted_descending(d: np.ndarray) -> np.ndarray:
    return np.argsort(d, kind="stable")[::-1]


def scan_i2t(sims: np.ndarray) -> tuple[tuple[float, ...], np.ndarray]:
    """SCAN ``i2t``: ``sims`` (N, 5N); returns ``(r1, r5, r10, medr, meanr)`` and the 0-based
    ranks (the best of each image's five captions)."""
    npts = sims.shape[0]
    ranks = np.zeros(npts)
    for index in range(npts):
        inds = _sorted_descending(sims[index])
        rank = 1e20
        for i in range(5 * index, 5 * index + 5, 1):
            tmp = np.where(inds == i)[0][0]
            if tmp < rank:
                rank = tmp
        ranks[index] = rank
    return _metrics(ranks), ranks


def scan_t2i(sims: np.ndarray) -> tuple[tuple[float, ...], np.ndarray]:
    """SCAN ``t2i``: ``sims`` (N, 5N); returns the figures and each caption's 0-based rank of
    its image."""
    npts = sims.shape[0]
    ranks = np.zeros(5 * npts)
    sims = sims.T
    for index in range(npts):
        for i in range(5):
            inds = _sorted_descending(sims[5 * index + i])
            ranks[5 * index + i] = np.where(inds == index)[0][0]
    return _metrics(ranks), ranks


def _metrics(ranks: np.ndarray) -> tuple[float, ...]:
    """The originals' figures of 0-based ranks, with their very operations."""
    r1 = 100.0 * len(np.where(ranks < 1)[0]) / len(ranks)
    r5 = 100.0 * len(np.where(ranks < 5)[0]) / len(ranks)
    r10 = 100.0 * len(np.where(ranks < 10)[0]) / len(ranks)
    medr = np.floor(np.median(ranks)) + 1
    meanr = ranks.mean() + 1
    return (r1, r5, r10, medr, meanr)


def scan_evalrank(sims: np.ndarray, fold5: bool) -> dict[str, float]:
    """SCAN ``evalrank`` on a full (N, 5N) similarity: the whole pool, or with ``fold5`` the
    mean over five folds (images ``1000 f`` .., captions ``5000 f`` .. for N = 5,000; here
    N / 5 images per fold). Keys ``i2t`` / ``t2i`` hold the five figures, ``rsum`` the sum."""
    if not fold5:
        r, _ = scan_i2t(sims)
        ri, _ = scan_t2i(sims)
        rsum = r[0] + r[1] + r[2] + ri[0] + ri[1] + ri[2]
        return {"i2t": r, "t2i": ri, "rsum": rsum}
    size = sims.shape[0] // 5
    results = []
    for i in range(5):
        shard = sims[i * size : (i + 1) * size, i * 5 * size : (i + 1) * 5 * size]
        r, _ = scan_i2t(shard)
        ri, _ = scan_t2i(shard)
        ar = (r[0] + r[1] + r[2]) / 3
        ari = (ri[0] + ri[1] + ri[2]) / 3
        rsum = r[0] + r[1] + r[2] + ri[0] + ri[1] + ri[2]
        results += [list(r) + list(ri) + [ar, ari, rsum]]
    mean_metrics = tuple(np.array(results).mean(axis=0).flatten())
    return {
        "i2t": tuple(mean_metrics[:5]),
        "t2i": tuple(mean_metrics[5:10]),
        "rsum": mean_metrics[12],
    }


def gold_last_ranks(scores: np.ndarray, gold: list[set[int]]) -> np.ndarray:
    """1-based rank of the first gold candidate of each row when rows are sorted by score
    (descending), gold candidates after the others among equal scores, then by index."""
    out = []
    for row, own in zip(np.asarray(scores), gold):
        is_gold = np.array([c in own for c in range(len(row))])
        order = np.lexsort((np.arange(len(row)), is_gold, -row))
        out.append(min(int(np.flatnonzero(order == c)[0]) for c in own) + 1)
    return np.array(out, dtype=np.int64)
