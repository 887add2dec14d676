"""The trigram kernel with a word kernel (eq. 19-21): the exact soft-matching engine.

``K_S(s, s') = sum_l sum_{w, w' of length l} F_s[w] F_s'[w'] prod_i kappa(w_i, w'_i)`` where
``F_s[w] = m_{s,w} lambda_m^l`` (eq. 20), times ``sqrt(lambda_w)`` for eq. 21 (the factor
``sqrt(lambda_w lambda_w')`` splits over the two sides), and ``kappa`` is the identity outside
the word kernel's vocabulary (Sec. 3.5.1). For multi-caption items ``F`` is summed over captions,
which equals summing the kernel over the cross product of captions.

Why it is fast enough (the TRI5SEM training kernel is ~10^12 elementary operations when done
as a pairwise sum over sequence pairs): every sequence of an item is made of that item's own
distinct words (~18 for five captions), and both items' sequences are grouped by prefix
(pairs by ``x``, triples by ``(x, y)``). For a pair of items (a, b) the engine

1. gathers the small word-kernel block ``S = kappa[words_a, words_b]`` (p x q, fits in L1);
2. length 1: ``u_a' S u_b`` (``u`` = unigram weights);
3. length 3 (length 2 alike, one prefix word less): with ``g`` = a's groups, ``h`` = b's,
   ``W[u, h] = sum_{j in h} f_j S[u, z_j]`` (p x H_b), ``C[g, h] = sum_{k in g} f_k W[z_k, h]``
   and ``K_3 = sum_{g,h} S[x_g, x_h] S[y_g, y_h] C[g, h]``: about
   ``p m_b + m_a H_b + G_a H_b`` (~15k) multiply-adds instead of ``m_a m_b`` (~27k) triple
   products of the plain double sum, all on L1-resident blocks.

The result is exact (no approximation): ``sigma`` of eq. 19 factorises over positions and
each product is accumulated in float64. Pairs of items are processed in row chunks, in
parallel threads (numba releases the GIL), with a tqdm bar. Only selected columns of the
train x train kernel can be computed (:meth:`SoftSequenceSet.take`), for the low-rank KCCA
path.

Two engines compute the same blocks (to float rounding), behind :func:`soft_block`:

* :func:`soft_block_numba` (``engine="numba"``, the default): the prefix-grouped loops above;
* :func:`soft_block_xp` (``engine="array-api"``): dense matrix products written once against
  the array API (CuPy on a GPU, NumPy, ``array_api_strict`` in the tests), described below.

The array-API engine is kept, and tested, as the reference formulation on any array library,
not for speed: it is slower everywhere it was timed. ``benchmarks/bench_soft_trigram.py`` on
real Flickr 8K captions (five per item, stop words kept, a word kernel with about ten
neighbours per word): on an H200 it took 34.7 s for a 600 x 600 block against the numba
engine's 2.1 s on the same machine's 16 cores (17x), and 14.5 s with larger tiles against
numba's 9.4 s on 2 threads; on a 2-core CPU with NumPy it is several hundred times slower.
Its device work grows with the square of the distinct sequences of a tile pair, where the
numba engine's grows with the items' own words. A kernel on the ``"cupy"`` backend therefore
still uses the numba engine for its soft trigram blocks unless ``engine="array-api"`` is asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Hashable, Mapping, Sequence

import numba
import numpy as np
from tqdm.auto import tqdm

from kcca._backend import get_xp, to_numpy
from features.kernels._row_chunks import fill_by_row_chunks
from kcca.errors import SettingError


@dataclass(frozen=True)
class CompiledItem:
    """One item's weighted sequences, with local word indices (into ``words``)."""

    words: np.ndarray  # (p,) int64 global word ids
    uni: np.ndarray  # (p,) float64 unigram weights (0 where a word has no unigram weight)
    bi: np.ndarray  # (m2, 2) int64 local indices, sorted
    bi_w: np.ndarray  # (m2,)
    tri: np.ndarray  # (m3, 3) int64 local indices, sorted
    tri_w: np.ndarray  # (m3,)


def compile_item(features: Mapping[tuple, float], word_id: "WordIds") -> CompiledItem:
    """Turn ``{sequence: weight}`` into a :class:`CompiledItem`; unknown words get new ids."""
    words = sorted({word_id(w) for key in features for w in key})
    local = {g: i for i, g in enumerate(words)}
    uni = np.zeros(len(words))
    bi, bi_w, tri, tri_w = [], [], [], []
    for key, v in features.items():
        ids = [local[word_id(w)] for w in key]
        if len(ids) == 1:
            uni[ids[0]] += v
        elif len(ids) == 2:
            bi.append(ids)
            bi_w.append(v)
        elif len(ids) == 3:
            tri.append(ids)
            tri_w.append(v)
        else:
            raise ValueError(
                f"sequence {key!r} has length {len(ids)}; the trigram kernel handles lengths 1-3"
            )

    def _sorted(rows, w, k):
        a = np.asarray(rows, dtype=np.int64).reshape(-1, k)
        wv = np.asarray(w, dtype=np.float64)
        if len(a):
            order = np.lexsort(a.T[::-1])
            a, wv = a[order], wv[order]
        return np.ascontiguousarray(a), wv

    bi_a, bi_wv = _sorted(bi, bi_w, 2)
    tri_a, tri_wv = _sorted(tri, tri_w, 3)
    return CompiledItem(np.asarray(words, dtype=np.int64), uni, bi_a, bi_wv, tri_a, tri_wv)


class WordIds:
    """Word -> global id: the word kernel's vocabulary first (ids < ``n_kernel``), then others.

    Words outside the word kernel's vocabulary are similar only to themselves (identity).
    """

    def __init__(
        self, kernel_vocabulary: Sequence[str], base: Mapping[Hashable, int] | None = None
    ):
        if base is None:
            base = {w: i for i, w in enumerate(kernel_vocabulary)}
        self.n_kernel = len(kernel_vocabulary)
        self.base = base
        self.extra: dict[Hashable, int] = {}

    def __call__(self, word: Hashable) -> int:
        g = self.base.get(word)
        if g is None:
            g = self.extra.get(word)
            if g is None:
                g = self.extra[word] = len(self.base) + len(self.extra)
        return g

    def frozen(self) -> "WordIds":
        base = dict(self.base)
        base.update(self.extra)
        out = WordIds((), base)
        out.n_kernel = self.n_kernel
        return out

    def extended(self) -> "WordIds":
        out = WordIds((), self.base)
        out.n_kernel = self.n_kernel
        return out


@dataclass(frozen=True)
class SoftSequenceSet:
    """Compiled items packed into flat arrays for the numba engine."""

    items: tuple[CompiledItem, ...]
    w_ptr: np.ndarray
    words: np.ndarray
    uni: np.ndarray
    b_ptr: np.ndarray  # per item: range of bigrams
    bx: np.ndarray
    by: np.ndarray
    bw: np.ndarray
    bg_ptr: np.ndarray  # per item: range of bigram prefix groups
    bg_x: np.ndarray
    bg_end: np.ndarray  # group g covers bigrams [bg_end[g-1] or item start, bg_end[g])
    t_ptr: np.ndarray
    tz: np.ndarray
    tw: np.ndarray
    tg_ptr: np.ndarray
    tg_x: np.ndarray
    tg_y: np.ndarray
    tg_end: np.ndarray

    @classmethod
    def pack(cls, items: Sequence[CompiledItem]) -> "SoftSequenceSet":
        items = tuple(items)

        def ptr(lengths):
            out = np.zeros(len(items) + 1, dtype=np.int64)
            np.cumsum(lengths, out=out[1:])
            return out

        def cat(arrs, dtype, shape_tail=()):
            arrs = [a for a in arrs if len(a)]
            if not arrs:
                return np.zeros((0, *shape_tail), dtype=dtype)
            return np.ascontiguousarray(np.concatenate(arrs).astype(dtype, copy=False))

        w_ptr = ptr([len(it.words) for it in items])
        b_ptr = ptr([len(it.bi_w) for it in items])
        t_ptr = ptr([len(it.tri_w) for it in items])
        bi = cat([it.bi for it in items], np.int64, (2,))
        tri = cat([it.tri for it in items], np.int64, (3,))

        # prefix groups (bigram: same x; trigram: same (x, y)), as end offsets into the flat arrays
        def groups(keys: np.ndarray, p: np.ndarray):
            n = len(keys)
            if n == 0:
                return (
                    np.zeros(len(items) + 1, np.int64),
                    np.zeros(0, np.int64),
                    np.zeros((0, keys.shape[1] if keys.ndim == 2 else 1), np.int64),
                )
            change = np.ones(n, dtype=bool)
            change[1:] = (keys[1:] != keys[:-1]).any(axis=1)
            change[p[:-1][p[:-1] < n]] = True  # a group never spans two items
            starts = np.flatnonzero(change)
            ends = np.append(starts[1:], n)
            g_ptr = np.searchsorted(starts, p, side="left").astype(np.int64)
            return g_ptr, ends.astype(np.int64), keys[starts]

        bg_ptr, bg_end, bg_keys = groups(bi[:, :1], b_ptr)
        tg_ptr, tg_end, tg_keys = groups(tri[:, :2], t_ptr)
        return cls(
            items=items,
            w_ptr=w_ptr,
            words=cat([it.words for it in items], np.int64),
            uni=cat([it.uni for it in items], np.float64),
            b_ptr=b_ptr,
            bx=np.ascontiguousarray(bi[:, 0]),
            by=np.ascontiguousarray(bi[:, 1]),
            bw=cat([it.bi_w for it in items], np.float64),
            bg_ptr=bg_ptr,
            bg_x=np.ascontiguousarray(bg_keys[:, 0]),
            bg_end=bg_end,
            t_ptr=t_ptr,
            tz=np.ascontiguousarray(tri[:, 2]),
            tw=cat([it.tri_w for it in items], np.float64),
            tg_ptr=tg_ptr,
            tg_x=np.ascontiguousarray(tg_keys[:, 0]),
            tg_y=(
                np.ascontiguousarray(tg_keys[:, 1])
                if tg_keys.shape[1] > 1
                else np.zeros(0, np.int64)
            ),
            tg_end=tg_end,
        )

    def __len__(self) -> int:
        return len(self.items)

    def take(self, indices: Sequence[int] | np.ndarray) -> "SoftSequenceSet":
        return SoftSequenceSet.pack([self.items[int(i)] for i in indices])

    def arrays(self) -> tuple:
        """The arrays the numba engine reads: ``(w_ptr, words, uni, bigrams, trigrams, tg_y)``.

        ``bigrams`` and ``trigrams`` are ``(ptr, last word, weight, group ptr, group first word,
        group end)``; ``tg_y``, the trigram groups' second word, is the one array bigrams lack.
        """
        bigrams = (self.b_ptr, self.by, self.bw, self.bg_ptr, self.bg_x, self.bg_end)
        trigrams = (self.t_ptr, self.tz, self.tw, self.tg_ptr, self.tg_x, self.tg_end)
        return (self.w_ptr, self.words, self.uni, bigrams, trigrams, self.tg_y)

    def max_sizes(self) -> tuple[int, int]:
        """(most distinct words in an item, most bigrams or trigrams in an item)."""
        if not len(self.items):
            return 1, 1
        p = int(np.diff(self.w_ptr).max(initial=1))
        m = max(int(np.diff(self.b_ptr).max(initial=1)), int(np.diff(self.t_ptr).max(initial=1)))
        return max(p, 1), max(m, 1)


@numba.njit(nogil=True, fastmath=True, cache=True)
def _by_prefix(total, ia, ib, p, S, X, Y, W, t, a, a_gy, b, b_gy):
    """``total`` plus the kernel of one sequence length (2 or 3) between items a and b.

    ``a``, ``b``: the length's arrays (:meth:`SoftSequenceSet.arrays`); ``a_gy``, ``b_gy``: the
    groups' second prefix word for trigrams, ``None`` for bigrams (one prefix word). With
    groups g of a and h of b (the sequences sharing a prefix; ``z`` the last word):
    ``K = sum_{g,h} S[x_g, x_h] (S[y_g, y_h]) C[g, h]``, ``C[g, h] = sum_{k in g} f_k W[z_k, h]``,
    ``W[u, h] = sum_{j in h} f_j S[u, z_j]``.
    """
    a_ptr, a_z, a_w, ag_ptr, ag_x, ag_end = a
    b_ptr, b_z, b_w, bg_ptr, bg_x, bg_end = b
    h0 = bg_ptr[ib]
    nh = bg_ptr[ib + 1] - h0
    if nh == 0 or ag_ptr[ia + 1] == ag_ptr[ia]:
        return total
    jstart = b_ptr[ib]
    for h in range(nh):
        jend = bg_end[h0 + h]
        xh = bg_x[h0 + h]
        for u in range(p):
            Su = S[u]
            acc = 0.0
            for j in range(jstart, jend):
                acc += b_w[j] * Su[b_z[j]]
            W[u, h] = acc
            X[u, h] = Su[xh]
            if b_gy is not None:
                Y[u, h] = Su[b_gy[h0 + h]]
        jstart = jend
    kstart = a_ptr[ia]
    for g in range(ag_ptr[ia], ag_ptr[ia + 1]):
        kend = ag_end[g]
        for h in range(nh):
            t[h] = 0.0
        for k in range(kstart, kend):
            fk = a_w[k]
            Wz = W[a_z[k]]
            for h in range(nh):
                t[h] += fk * Wz[h]
        Xx = X[ag_x[g]]
        acc = 0.0
        if a_gy is None:
            for h in range(nh):
                acc += t[h] * Xx[h]
        else:
            Yy = Y[a_gy[g]]
            for h in range(nh):
                acc += t[h] * Xx[h] * Yy[h]
        total += acc
        kstart = kend
    return total


@numba.njit(nogil=True, fastmath=True, cache=True)
def _pair(ia, ib, A, B, kmat, n_kernel, S, X, Y, W, t):
    aw_ptr, awords, auni, abi, atri, atg_y = A
    bw_ptr, bwords, buni, bbi, btri, btg_y = B
    a0 = aw_ptr[ia]
    p = aw_ptr[ia + 1] - a0
    b0 = bw_ptr[ib]
    q = bw_ptr[ib + 1] - b0
    # 1. the word-kernel block S = kappa[words_a, words_b] (identity outside the vocabulary)
    for u in range(p):
        gu = awords[a0 + u]
        Su = S[u]
        if gu < n_kernel:
            Ku = kmat[gu]
            for v in range(q):
                gv = bwords[b0 + v]
                Su[v] = Ku[gv] if gv < n_kernel else 0.0
        else:
            for v in range(q):
                Su[v] = 1.0 if bwords[b0 + v] == gu else 0.0
    # 2. length 1: u_a' S u_b
    total = 0.0
    for u in range(p):
        wa = auni[a0 + u]
        if wa != 0.0:
            s = 0.0
            for v in range(q):
                s += S[u, v] * buni[b0 + v]
            total += wa * s
    # 3. length 2, by prefix groups on both sides (a: g = x, b: h = x')
    total = _by_prefix(total, ia, ib, p, S, X, Y, W, t, abi, None, bbi, None)
    # 4. length 3, by prefix groups on both sides (a: g = (x, y), b: h = (x', y'))
    return _by_prefix(total, ia, ib, p, S, X, Y, W, t, atri, atg_y, btri, btg_y)


@numba.njit(nogil=True, cache=True)
def _scratch(p_max, q_max, m_max):
    """The work arrays ``S, X, Y, W, t`` of :func:`_pair` for items of at most ``p_max`` (a) and
    ``q_max`` (b) distinct words and ``m_max`` bigrams or trigrams."""
    S = np.empty((p_max, q_max))
    X = np.empty((p_max, m_max))
    Y = np.empty((p_max, m_max))
    W = np.empty((p_max, m_max))
    return S, X, Y, W, np.empty(m_max)


@numba.njit(nogil=True, fastmath=True, cache=True)
def _block(rows, cols, A, B, kmat, n_kernel, lower, out, p_max, q_max, m_max):
    """``out[r, c] = K(A[rows[r]], B[cols[c]])``; ``lower``: only where cols[c] <= rows[r]."""
    S, X, Y, W, t = _scratch(p_max, q_max, m_max)
    for r in range(rows.shape[0]):
        ia = rows[r]
        for c in range(cols.shape[0]):
            ib = cols[c]
            if lower and ib > ia:
                continue
            out[r, c] = _pair(ia, ib, A, B, kmat, n_kernel, S, X, Y, W, t)


@numba.njit(nogil=True, fastmath=True, cache=True)
def _diag(A, kmat, n_kernel, out, p_max, m_max):
    S, X, Y, W, t = _scratch(p_max, p_max, m_max)
    for i in range(out.shape[0]):
        out[i] = _pair(i, i, A, A, kmat, n_kernel, S, X, Y, W, t)


def soft_diag(a: SoftSequenceSet, kmat: np.ndarray, n_kernel: int) -> np.ndarray:
    """``K(a_i, a_i)`` for every item (the unnormalised self-kernel)."""
    out = np.zeros(len(a))
    if len(a):
        p, m = a.max_sizes()
        _diag(a.arrays(), kmat, n_kernel, out, p, m)
    return out


def _zero_block(a: SoftSequenceSet, b: SoftSequenceSet, symmetric: bool) -> np.ndarray:
    """The output block of either engine, zeros; a symmetric block needs the same items."""
    if symmetric and len(a) != len(b) and len(a) and len(b):
        raise ValueError("symmetric block needs the same items on both sides")
    return np.zeros((len(a), len(b)))


def soft_block_numba(
    a: SoftSequenceSet,
    b: SoftSequenceSet,
    kmat: np.ndarray,
    n_kernel: int,
    *,
    symmetric: bool = False,
    n_jobs: int | None = None,
    n_chunks: int | None = None,
    progress: bool = True,
    desc: str = "soft trigram kernel",
) -> np.ndarray:
    """The unnormalised kernel block ``K(a_i, b_j)`` (eq. 20/21), numba engine.

    ``symmetric``: ``a`` and ``b`` are the same set; only the lower triangle is computed and
    mirrored. Row chunks run in ``n_jobs`` threads (joblib; ``None`` = all cores).
    """
    na, nb = len(a), len(b)
    out = _zero_block(a, b, symmetric)
    if out.size == 0:
        return out
    pa, ma = a.max_sizes()
    pb, mb = b.max_sizes()
    kmat = np.ascontiguousarray(kmat, dtype=np.float64)
    A, B = a.arrays(), b.arrays()
    all_cols = np.arange(nb, dtype=np.int64)

    def run(r0: int, r1: int) -> None:
        rows = np.arange(r0, r1, dtype=np.int64)
        cols = all_cols[:r1] if symmetric else all_cols
        # whole rows (C-contiguous, as the other calls: one compiled specialisation); the
        # kernel writes the first len(cols) columns
        _block(rows, cols, A, B, kmat, n_kernel, symmetric, out[r0:r1], pa, pb, max(ma, mb))

    n_chunks = n_chunks or max(1, min(na, 64))
    return fill_by_row_chunks(
        out, run, n_chunks, lower=symmetric, n_jobs=n_jobs, desc=desc, progress=progress
    )


# ------------------------------------------------------------ the array-API engine
# Formulation. For a tile ``A`` of items (rows) and a tile ``B`` (columns), and each sequence
# length ``l`` in 1..3:
#
# * ``T_A``: the distinct length-``l`` sequences occurring in tile ``A`` (host ``np.unique``),
#   ``P_A`` (|A| x T_A): the items' weights on them (``m_{s,w} lambda_m^l`` summed over the
#   captions, times ``sqrt(lambda_w)`` for eq. 21); the same for ``B``;
# * ``S`` (p_A x p_B): the word kernel on the tiles' local vocabularies (identity outside the
#   word kernel's vocabulary; gathered on the host, one small matrix per tile pair);
# * ``Sigma[t, t'] = prod_i S[w_t,i, w'_t',i]`` (eq. 19): ``l`` gathers (``xp.take``) of ``S``
#   and elementwise products;
# * ``K_l(A, B) = P_A Sigma P_B^T`` (two ``xp.matmul``).
#
# ``T_A`` and ``T_B`` are processed in chunks of ``seq_chunk`` so the device memory per step is
# bounded by ``seq_chunk^2`` doubles (plus the small ``P`` slices). The device work per tile pair
# is about ``T_A T_B (|A| + 2 l)`` operations: it grows with the square of the number of
# distinct sequences, unlike the numba engine's prefix-grouped loops (timings: module docstring).
#
# Only the gathers, ``multiply``, ``matmul``, ``matrix_transpose`` and ``asarray`` of the
# standard are used in the device part; index preparation (``np.unique``) and the per-tile
# weight matrices are built on the host.


def _item_sequences(item, length: int) -> tuple[np.ndarray, np.ndarray]:
    """(keys (m, length) global word ids, weights (m,)) of one compiled item."""
    if length == 1:
        nz = np.flatnonzero(item.uni != 0.0)
        return item.words[nz][:, None], item.uni[nz]
    if length == 2:
        return item.words[item.bi], item.bi_w
    return item.words[item.tri], item.tri_w


class _Tile:
    """One tile of items: per length, distinct sequences and the item x sequence weights."""

    def __init__(self, s: SoftSequenceSet, idx: np.ndarray) -> None:
        self.n = len(idx)
        self.keys: dict[int, np.ndarray] = {}
        self.rows: dict[int, np.ndarray] = {}
        self.cols: dict[int, np.ndarray] = {}
        self.vals: dict[int, np.ndarray] = {}
        vocab = [np.zeros(0, np.int64)]
        for length in (1, 2, 3):
            ks, rs, ws = [np.zeros((0, length), np.int64)], [np.zeros(0, np.int64)], [np.zeros(0)]
            for r, i in enumerate(idx):
                k, w = _item_sequences(s.items[int(i)], length)
                ks.append(k.reshape(-1, length))
                rs.append(np.full(len(w), r, np.int64))
                ws.append(w)
            k = np.concatenate(ks)
            if len(k):
                uniq, inv = np.unique(k, axis=0, return_inverse=True)
                inv = inv.reshape(-1)
            else:
                uniq, inv = k, np.zeros(0, np.int64)
            self.keys[length] = uniq
            self.rows[length] = np.concatenate(rs)
            self.cols[length] = inv.astype(np.int64)
            self.vals[length] = np.concatenate(ws)
            vocab.append(uniq.reshape(-1))
        self.vocab = np.unique(np.concatenate(vocab))  # sorted global word ids
        # keys as local indices into self.vocab
        self.local = {L: np.searchsorted(self.vocab, self.keys[L]) for L in (1, 2, 3)}

    def weights(self, length: int, c0: int, c1: int) -> np.ndarray:
        """Dense (n, c1 - c0) weights of sequences c0..c1 (host)."""
        out = np.zeros((self.n, c1 - c0))
        cols = self.cols[length]
        sel = (cols >= c0) & (cols < c1)
        np.add.at(out, (self.rows[length][sel], cols[sel] - c0), self.vals[length][sel])
        return out


def _word_block(ga: np.ndarray, gb: np.ndarray, kmat: np.ndarray, n_kernel: int) -> np.ndarray:
    """``kappa[ga, gb]`` with the identity outside the word kernel's vocabulary (host)."""
    out = (ga[:, None] == gb[None, :]).astype(np.float64)
    ia = np.flatnonzero(ga < n_kernel)
    ib = np.flatnonzero(gb < n_kernel)
    if len(ia) and len(ib):
        out[np.ix_(ia, ib)] = kmat[np.ix_(ga[ia], gb[ib])]
    return out


def _tile_pair(
    ta: _Tile, tb: _Tile, kmat: np.ndarray, n_kernel: int, xp: Any, seq_chunk: int, device: Any
) -> Any:
    """Unnormalised ``K(A, B)`` (|A| x |B|) on the device."""
    S = xp.asarray(_word_block(ta.vocab, tb.vocab, kmat, n_kernel), device=device)
    total = xp.zeros((ta.n, tb.n), dtype=xp.float64, device=device)
    for length in (1, 2, 3):
        na_seq, nb_seq = len(ta.keys[length]), len(tb.keys[length])
        if na_seq == 0 or nb_seq == 0:
            continue
        for a0 in range(0, na_seq, seq_chunk):
            a1 = min(na_seq, a0 + seq_chunk)
            pa = xp.asarray(ta.weights(length, a0, a1), device=device)
            ka = xp.asarray(ta.local[length][a0:a1], device=device)
            rows = [xp.take(S, ka[:, i], axis=0) for i in range(length)]  # (ca, p_B) each
            for b0 in range(0, nb_seq, seq_chunk):
                b1 = min(nb_seq, b0 + seq_chunk)
                kb = xp.asarray(tb.local[length][b0:b1], device=device)
                sigma = xp.take(rows[0], kb[:, 0], axis=1)  # eq. 19, position by position
                for i in range(1, length):
                    sigma = xp.multiply(sigma, xp.take(rows[i], kb[:, i], axis=1))
                pb = xp.asarray(tb.weights(length, b0, b1), device=device)
                total = total + xp.matmul(xp.matmul(pa, sigma), xp.matrix_transpose(pb))
    return total


def soft_block_xp(
    a: SoftSequenceSet,
    b: SoftSequenceSet,
    kmat: np.ndarray,
    n_kernel: int,
    *,
    xp: Any = None,
    backend: str | None = None,
    symmetric: bool = False,
    tile: int = 64,
    seq_chunk: int = 2048,
    device: Any = None,
    progress: bool = False,
    desc: str = "soft trigram kernel (xp)",
) -> np.ndarray:
    """The unnormalised block ``K(a_i, b_j)`` (eq. 20/21) on the array API; a NumPy array.

    ``xp``: an array namespace, else ``get_xp(backend)`` (``"numpy"``, ``"cupy"``, ``"auto"``,
    ``"array_api_strict"``). ``symmetric``: ``a`` and ``b`` are the same set; only tile pairs
    on or below the diagonal are computed and mirrored. ``tile``: items per tile;
    ``seq_chunk``: distinct sequences per device step (memory ~ ``8 seq_chunk^2`` bytes).
    """
    if xp is None:
        xp = get_xp(backend)
    na, nb = len(a), len(b)
    out = _zero_block(a, b, symmetric)
    if out.size == 0:
        return out
    kmat = np.ascontiguousarray(kmat, dtype=np.float64)
    a_edges = list(range(0, na, tile)) + [na]
    b_edges = list(range(0, nb, tile)) + [nb]
    b_tiles = [_Tile(b, np.arange(b0, b1)) for b0, b1 in zip(b_edges[:-1], b_edges[1:])]
    n_pairs = len(a_edges) - 1
    with tqdm(total=n_pairs, desc=desc, disable=not progress, leave=False) as bar:
        for i, (a0, a1) in enumerate(zip(a_edges[:-1], a_edges[1:])):
            ta = b_tiles[i] if symmetric else _Tile(a, np.arange(a0, a1))
            for j, (b0, b1) in enumerate(zip(b_edges[:-1], b_edges[1:])):
                if symmetric and j > i:
                    break
                k = _tile_pair(ta, b_tiles[j], kmat, n_kernel, xp, seq_chunk, device)
                out[a0:a1, b0:b1] = to_numpy(k)
                if symmetric and j < i:
                    out[b0:b1, a0:a1] = out[a0:a1, b0:b1].T
            bar.update(1)
    return out


#: the engines of :func:`soft_block`
ENGINES = ("numba", "array-api")


def soft_block(
    a: SoftSequenceSet,
    b: SoftSequenceSet,
    kmat: np.ndarray,
    n_kernel: int,
    *,
    engine: str = "numba",
    backend: str | None = None,
    symmetric: bool = False,
    n_jobs: int | None = None,
    n_chunks: int | None = None,
    tile: int = 64,
    seq_chunk: int = 2048,
    progress: bool = True,
    desc: str = "soft trigram kernel",
) -> np.ndarray:
    """The unnormalised kernel block ``K(a_i, b_j)`` (eq. 20/21) by ``engine``: ``"numba"``
    (:func:`soft_block_numba`; ``n_jobs`` threads, ``n_chunks`` row chunks) or
    ``"array-api"`` (:func:`soft_block_xp` on ``backend``'s namespace; ``tile``,
    ``seq_chunk``)."""
    if engine == "numba":
        return soft_block_numba(
            a,
            b,
            kmat,
            n_kernel,
            symmetric=symmetric,
            n_jobs=n_jobs,
            n_chunks=n_chunks,
            progress=progress,
            desc=desc,
        )
    if engine == "array-api":
        return soft_block_xp(
            a,
            b,
            kmat,
            n_kernel,
            backend=backend,
            symmetric=symmetric,
            tile=tile,
            seq_chunk=seq_chunk,
            progress=progress,
            desc=desc,
        )
    raise SettingError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
