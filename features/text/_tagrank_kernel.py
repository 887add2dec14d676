"""The tag rank kernel TAGRANK (Section 3.4.2, eq. 9-11; Hwang & Grauman 2012).

Each sentence gets two vectors over the vocabulary:

* absolute rank (eq. 9): ``a(i) = 1 / log2(1 + p_i)``, ``p_i`` the 1-based position of word
  ``w_i`` in the (preprocessed) sentence, averaged over its occurrences;
* relative rank (eq. 10): ``r(i) = 1 - sum_{k <= p_i} n_ik / n_i``, ``n_ik`` the number of times
  ``w_i`` stands at position ``k`` in the training captions (a fractional average position
  sums ``k <= floor(p_i)``); a word never seen in training gets ``r(i) = 0`` (no evidence).

``K_T = 1/2 [exp(-chi2(r, r') / (2 Omega)) + exp(-chi2(a, a') / (2 Omega'))]`` (eq. 11), with
``chi2(x, y) = sum_k (x_k - y_k)^2 / (x_k + y_k)`` and 0/0 terms = 0. The paper leaves Omega and
Omega' open; here they are the mean chi-squared distances of the r- and a-vectors over
``n_pairs`` training sentence pairs (two different sentences drawn uniformly, with
``random_state``). Multi-caption items average the sentence-pair kernel over the cross
product of their captions (Sec. 3.4.2), so a five-caption item's self-kernel is below 1.
An empty caption has zero vectors and gets the literal value of eq. 11 (1 against another
empty caption). The kernel is not normalised.
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Sequence

import numba
import numpy as np

from features.kernels._base import Kernel, register_kernel
from features.kernels._row_chunks import fill_by_row_chunks
from features.text._text_items import TextItem, as_items
from kcca.errors import DataError


def absolute_positions(caption: Sequence[str]) -> dict[str, float]:
    """Mean 1-based position of each word of the caption (``p_i`` of eq. 9-10)."""
    pos: dict[str, list[int]] = defaultdict(list)
    for k, w in enumerate(caption, start=1):
        pos[w].append(k)
    return {w: sum(v) / len(v) for w, v in pos.items()}


class _SentenceSet:
    """Sentences as sorted word ids with their r- and a-values, grouped by item."""

    def __init__(self, item_ptr, sent_ptr, ids, r, a):
        self.item_ptr, self.sent_ptr, self.ids, self.r, self.a = item_ptr, sent_ptr, ids, r, a
        seg = np.repeat(np.arange(len(sent_ptr) - 1), np.diff(sent_ptr))
        # float64 even without words (bincount of nothing gives integers): one compiled
        # specialisation of the kernels
        n = len(sent_ptr) - 1
        self.r_sum = np.bincount(seg, weights=r, minlength=n).astype(np.float64, copy=False)
        self.a_sum = np.bincount(seg, weights=a, minlength=n).astype(np.float64, copy=False)

    def arrays(self) -> tuple:
        return (self.item_ptr, self.sent_ptr, self.ids, self.r, self.a, self.r_sum, self.a_sum)

    def __len__(self) -> int:
        return len(self.item_ptr) - 1


@numba.njit(nogil=True, cache=True)
def _chi2_pair(s, t, A, B):
    """chi2 of the r-vectors and of the a-vectors of sentence s (in A) and t (in B)."""
    _, asp, aids, ar, aa, ars, aas = A
    _, bsp, bids, br, ba, brs, bas = B
    cr = ars[s] + brs[t]
    ca = aas[s] + bas[t]
    i, iend = asp[s], asp[s + 1]
    j, jend = bsp[t], bsp[t + 1]
    while i < iend and j < jend:
        if aids[i] == bids[j]:
            x, y = ar[i], br[j]
            if x + y > 0.0:
                cr -= 4.0 * x * y / (x + y)
            x, y = aa[i], ba[j]
            if x + y > 0.0:
                ca -= 4.0 * x * y / (x + y)
            i += 1
            j += 1
        elif aids[i] < bids[j]:
            i += 1
        else:
            j += 1
    return max(cr, 0.0), max(ca, 0.0)


@numba.njit(nogil=True, cache=True)
def _block(rows, cols, A, B, inv_r, inv_a, lower, out):
    aip = A[0]
    bip = B[0]
    for ri in range(rows.shape[0]):
        ia = rows[ri]
        for ci in range(cols.shape[0]):
            ib = cols[ci]
            if lower and ib > ia:
                continue
            acc = 0.0
            n = 0
            for s in range(aip[ia], aip[ia + 1]):
                for t in range(bip[ib], bip[ib + 1]):
                    cr, ca = _chi2_pair(s, t, A, B)
                    acc += 0.5 * (math.exp(-cr * inv_r) + math.exp(-ca * inv_a))
                    n += 1
            out[ri, ci] = acc / n if n > 0 else 0.0


@numba.njit(nogil=True, cache=True)
def _mean_chi2(pairs, A):
    sr = 0.0
    sa = 0.0
    for k in range(pairs.shape[0]):
        cr, ca = _chi2_pair(pairs[k, 0], pairs[k, 1], A, A)
        sr += cr
        sa += ca
    n = max(pairs.shape[0], 1)
    return sr / n, sa / n


@register_kernel("tagrank")
@dataclass(eq=False, repr=False)
class TagRankKernel(Kernel):
    """TAGRANK kernel (eq. 9-11), averaged over caption pairs of multi-caption items.

    Items are token lists; a training item is the captions of one image (a list of token
    lists).

    Parameters
    ----------
    n_pairs : int, default=20000
        Training sentence pairs sampled to set Omega and Omega' (mean chi2 distance).
    random_state : int or None, default=0
        Seed of that sample.
    n_jobs : int or None, default=None
        Threads (None = all cores).
    progress : bool, default=True
        Show a tqdm bar.

    Attributes
    ----------
    omega_, omega_prime_ : float
        Eq. 11's Omega (relative ranks) and Omega' (absolute ranks).
    word_ids_ : dict of str to int
        The training vocabulary.
    position_cdf_ : dict of str to ndarray
        Per word, the cumulative distribution of its training positions (eq. 10).
    train_items_ : sequence
        The training items.

    Examples
    --------
    >>> from features.text._tagrank_kernel import TagRankKernel
    >>> train = [[["a", "dog", "runs"], ["dog", "running"]],
    ...          [["a", "red", "car"], ["car", "on", "road"]]]
    >>> kernel = TagRankKernel(n_pairs=100, n_jobs=1, progress=False).fit(train)
    >>> kernel.gram([["puppy", "runs"], ["red", "car"]]).round(3)
    array([[0.479, 0.441],
           [0.393, 0.549]])
    """

    execution_params = ("n_jobs", "progress")

    n_pairs: int = 20000
    random_state: int | None = 0
    n_jobs: int | None = None
    progress: bool = True

    def fit(self, train_items: Sequence[Any]) -> "TagRankKernel":
        items = as_items(train_items, "training items")
        counts: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
        for it in items:
            for cap in it:
                for k, w in enumerate(cap, start=1):
                    counts[w][k] += 1
        self.word_ids_ = {w: i for i, w in enumerate(counts)}
        self.position_cdf_ = {}
        for w, c in counts.items():
            n_max = max(c)
            hist = np.zeros(n_max + 1)
            for k, v in c.items():
                hist[k] = v
            self.position_cdf_[w] = np.cumsum(hist) / hist.sum()
        self.train_set_ = self._sentences(items, dict(self.word_ids_))
        self.omega_, self.omega_prime_ = self._omegas(self.train_set_)
        self.train_items_ = train_items
        return self

    def _omegas(self, sents: _SentenceSet) -> tuple[float, float]:
        n = len(sents.sent_ptr) - 1
        if n < 2:
            raise DataError("TagRank needs at least two training captions to set Omega")
        rng = np.random.default_rng(self.random_state)
        i = rng.integers(0, n, size=self.n_pairs)
        j = rng.integers(0, n - 1, size=self.n_pairs)
        j = j + (j >= i)  # a different sentence, uniformly
        pairs = np.stack([i, j], axis=1).astype(np.int64)
        om_r, om_a = _mean_chi2(pairs, sents.arrays())
        out = []
        for name, om in (("Omega", om_r), ("Omega'", om_a)):
            if not om > 0:
                warnings.warn(
                    f"TagRank {name}: the sampled training sentences are all "
                    "identical (mean chi2 = 0); using 1.0",
                    RuntimeWarning,
                    stacklevel=3,
                )
                om = 1.0
            out.append(float(om))
        return out[0], out[1]

    def rank_vectors(self, caption: Sequence[str]) -> tuple[dict[str, float], dict[str, float]]:
        """(relative rank r of eq. 10, absolute rank a of eq. 9) of one caption, as dicts."""
        r, a = {}, {}
        for w, p in absolute_positions(caption).items():
            a[w] = 1.0 / math.log2(1.0 + p)
            cdf = self.position_cdf_.get(w)
            if cdf is None:
                r[w] = 0.0
            else:
                r[w] = 1.0 - cdf[min(int(math.floor(p)), len(cdf) - 1)]
        return r, a

    def _sentences(self, items: Sequence[TextItem], ids: dict[str, int]) -> _SentenceSet:
        item_ptr, sent_ptr = [0], [0]
        all_ids, all_r, all_a = [], [], []
        for it in items:
            for cap in it:
                r, a = self.rank_vectors(cap)
                rows = sorted((ids.setdefault(w, len(ids)), r[w], a[w]) for w in a)
                for g, rv, av in rows:
                    all_ids.append(g)
                    all_r.append(rv)
                    all_a.append(av)
                sent_ptr.append(len(all_ids))
            item_ptr.append(len(sent_ptr) - 1)
        return _SentenceSet(
            np.asarray(item_ptr, np.int64),
            np.asarray(sent_ptr, np.int64),
            np.asarray(all_ids, np.int64),
            np.asarray(all_r, np.float64),
            np.asarray(all_a, np.float64),
        )

    def _side(self, items, ids) -> _SentenceSet:
        if items is self.train_items_:
            return self.train_set_
        return self._sentences(as_items(items), ids)

    def _gram(self, items_a: Sequence[Any], items_b: Sequence[Any]) -> np.ndarray:
        self._check_fitted()
        ids = dict(self.word_ids_)
        a = self._side(items_a, ids)
        same = items_a is items_b
        b = a if same else self._side(items_b, ids)
        return self._block(a, b, same)

    def _block(
        self, a: _SentenceSet, b: _SentenceSet, symmetric: bool, cols: np.ndarray | None = None
    ) -> np.ndarray:
        na = len(a)
        cols = np.arange(len(b), dtype=np.int64) if cols is None else cols
        out = np.zeros((na, len(cols)))
        if na == 0 or len(cols) == 0:
            return out
        inv_r, inv_a = 1.0 / (2 * self.omega_), 1.0 / (2 * self.omega_prime_)
        A, B = a.arrays(), b.arrays()

        def run(r0: int, r1: int) -> None:
            c = cols[:r1] if symmetric else cols
            # whole rows (C-contiguous: one compiled specialisation); the kernel writes the
            # first len(c) columns
            _block(np.arange(r0, r1, dtype=np.int64), c, A, B, inv_r, inv_a, symmetric, out[r0:r1])

        return fill_by_row_chunks(
            out,
            run,
            max(1, min(na, 32)),
            lower=symmetric,
            n_jobs=self.n_jobs,
            desc="tagrank kernel",
            progress=self.progress,
        )

    def diag(self, items: Sequence[Any]) -> np.ndarray:
        """Self-kernel of each item (1 for one-caption items, below 1 for most others)."""
        self._check_fitted()
        s = self._side(items, dict(self.word_ids_))
        out = np.empty(len(s))
        for i in range(len(s)):
            idx = np.array([i], dtype=np.int64)
            blk = np.zeros((1, 1))
            _block(
                idx,
                idx,
                s.arrays(),
                s.arrays(),
                1 / (2 * self.omega_),
                1 / (2 * self.omega_prime_),
                False,
                blk,
            )
            out[i] = blk[0, 0]
        return out

    def gram_columns(self, indices: Sequence[int]) -> np.ndarray:
        """Columns ``indices`` of the train x train kernel: shape (n_train, len(indices))."""
        self._check_fitted()
        idx = np.asarray(indices, dtype=np.int64)
        n = len(self.train_set_)
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise IndexError(f"column indices must lie in [0, {n}); got {idx.min()}..{idx.max()}")
        return self._block(self.train_set_, self.train_set_, False, cols=idx)
