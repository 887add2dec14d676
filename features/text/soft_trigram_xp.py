"""The soft trigram kernel (eq. 20/21) as dense matrix products on the array API (CuPy / NumPy).

Same numbers as the numba engine of :mod:`.soft_trigram` (to float rounding), written once
against the array API so it runs on a GPU through CuPy and is tested with ``array_api_strict``.

Formulation. For a tile ``A`` of items (rows) and a tile ``B`` (columns), and each sequence
length ``l`` in 1..3:

* ``T_A``: the distinct length-``l`` sequences occurring in tile ``A`` (host ``np.unique``),
  ``P_A`` (|A| x T_A): the items' weights on them (``m_{s,w} lambda_m^l`` summed over the
  captions, times ``sqrt(lambda_w)`` for eq. 21); the same for ``B``;
* ``S`` (p_A x p_B): the word kernel on the tiles' local vocabularies (identity outside the
  word kernel's vocabulary; gathered on the host, one small matrix per tile pair);
* ``Sigma[t, t'] = prod_i S[w_t,i, w'_t',i]`` (eq. 19): ``l`` gathers (``xp.take``) of ``S``
  and elementwise products;
* ``K_l(A, B) = P_A Sigma P_B^T`` (two ``xp.matmul``).

``T_A`` and ``T_B`` are processed in chunks of ``seq_chunk`` so the device memory per step is
bounded by ``seq_chunk^2`` doubles (plus the small ``P`` slices). The device work per tile pair
is about ``T_A T_B (|A| + 2 l)`` operations: it grows with the square of the number of
distinct sequences, unlike the numba engine's prefix-grouped loops, and is meant for a GPU.

Measured cost (CPU, NumPy backend, 2 shared cores; real Flickr 8K lemmatised captions, five per
item, alphabetic tokens, *no stop list*, a synthetic dense PSD word kernel over the 446 words):
40 items, symmetric block: numba engine 0.13 s, this engine 23 s (tile=8) / 52 s (tile=40),
max relative difference 8e-16. Those items have ~850 trigrams each; a tile of 40 items has
31k distinct trigrams (64 items of 200: 49k), so ``Sigma`` is ~1e9 entries per tile pair,
chunked. Not measured on a GPU. At Flickr 8K scale (6,000 training items) the trigram
``Sigma`` entries total about ``(sum of per-tile distinct trigrams)^2`` ~ 2e13 (half computed,
by symmetry) without a
stop list (several times fewer with one): memory-bound gathers and products, an estimated
order of minutes to ten minutes on an H100 for the train x train kernel (an estimate, not a measurement);
on the CPU the numba engine is the one to use.

Only the gathers, ``multiply``, ``matmul``, ``matrix_transpose`` and ``asarray`` of the
standard are used in the device part; index preparation (``np.unique``) and the per-tile
weight matrices are built on the host.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from features.text.soft_trigram import SoftSequenceSet
from kcca.backend import get_xp, to_numpy


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


def _tile_pair(ta: _Tile, tb: _Tile, kmat: np.ndarray, n_kernel: int, xp: Any,
               seq_chunk: int, device: Any) -> Any:
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


def soft_block_xp(a: SoftSequenceSet, b: SoftSequenceSet, kmat: np.ndarray, n_kernel: int, *,
                  xp: Any = None, backend: str | None = None, symmetric: bool = False,
                  tile: int = 64, seq_chunk: int = 2048, device: Any = None,
                  progress: bool = False, desc: str = "soft trigram kernel (xp)") -> np.ndarray:
    """The unnormalised block ``K(a_i, b_j)`` (eq. 20/21) on the array API; a NumPy array.

    ``xp``: an array namespace, else ``get_xp(backend)`` (``"numpy"``, ``"cupy"``, ``"auto"``,
    ``"array_api_strict"``). ``symmetric``: ``a`` and ``b`` are the same set; only tile pairs
    on or below the diagonal are computed and mirrored. ``tile``: items per tile;
    ``seq_chunk``: distinct sequences per device step (memory ~ ``8 seq_chunk^2`` bytes).
    """
    if xp is None:
        xp = get_xp(backend)
    na, nb = len(a), len(b)
    out = np.zeros((na, nb))
    if na == 0 or nb == 0:
        return out
    if symmetric and na != nb:
        raise ValueError("symmetric block needs the same items on both sides")
    kmat = np.ascontiguousarray(kmat, dtype=np.float64)
    a_edges = list(range(0, na, tile)) + [na]
    b_edges = list(range(0, nb, tile)) + [nb]
    b_tiles = [_Tile(b, np.arange(b0, b1)) for b0, b1 in zip(b_edges[:-1], b_edges[1:])]
    from tqdm.auto import tqdm

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
