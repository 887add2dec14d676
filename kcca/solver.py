"""Kernel CCA on precomputed kernels (Section 3.2.1, eq. 3), solved through low-rank factors.

Objective (eq. 3), with both training kernels centred on the training set::

    max  a' Kx Ky b / sqrt((a' Kx^2 a + kappa a' Kx a) (b' Ky^2 b + kappa b' Ky b))

Derivation of the symmetric form used here. Let the centred kernel be ``Kx = Ux diag(sx) Ux'``
(``sx > 0``; for a dense kernel from one ``eigh`` of the centred matrix, truncated by
``precision`` — the ``"eigen"`` factorisation, the best approximation of each rank; for
kernels given as columns on demand from the centred incomplete-Cholesky factor ``Gx``,
``Ux = Gx Wx sx^-1/2`` where ``Gx' Gx = Wx diag(sx) Wx'``). Writing
``a = Ux diag(1/sqrt(sx (sx + kappa))) p`` turns the denominator into ``|p|`` and the numerator
into ``p' M q`` with::

    M = diag(sqrt(sx/(sx+kappa))) Ux' Uy diag(sqrt(sy/(sy+kappa)))

so the canonical correlations (lambda of Section 3.2.1, not lambda^2) are the singular values of
``M``, the same as those of ``Ux Dx Ux' Uy Dy Uy'`` (the test suite checks both against dense
solutions). ``M`` is at most ``r x r``; one factorisation per kernel serves every kappa, and the
directions for ``n`` components are the first ``n`` of one solve, so the paper's whole grid is one
call (:class:`KCCAGrid`). The unstable non-symmetric eigenproblem of Section 3.2.1 is never formed.

The text kernel's diagonal factor ``d`` (Section 4.1.3) turns ``Ky`` into ``Ky + delta I`` with
``delta = (d - 1) * Ky[i, i]`` (constant diagonal): that matrix is full rank, but its centred
form is ``Uy diag(sy + delta) Uy' + delta (H - Uy Uy')``, so the complement of ``Uy`` is handled
in closed form instead of factorising ``n`` columns. When the diagonal is not constant the
scaled kernel is factorised directly (exact, but of higher rank).

Scaling (Hardoon et al.'s implementation, which the paper used): each canonical direction is
scaled so that the training projection ``Kx a`` has unit norm; directions are not weighted by
their correlation. New-by-train blocks are centred with the training statistics; because every
direction is orthogonal to the constant vector this amounts to subtracting the training mean
of the projection.

Both estimators follow scikit-learn's conventions: parameters are set by ``__init__`` only
(``get_params`` / ``set_params`` / ``clone``), fitted attributes end in ``_``, a method that
needs a fit raises :class:`sklearn.exceptions.NotFittedError` before one, and a fitted
estimator pickles (``pickle`` / ``joblib.dump``) with its arrays as host NumPy arrays and its
array backend by name; loading moves them back to that backend, or keeps NumPy where the
backend is missing (a model fitted on the GPU loads on a machine without cupy).
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from dataclasses import dataclass, field, fields, replace
from typing import Any, Iterator, Sequence

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from kcca.backend import get_xp, resolve_backend, to_numpy
from kcca.lowrank import (
    DEFAULT_PRECISION,
    PSD_RTOL,
    ColumnSource,
    DenseColumns,
    TransformedColumns,
    as_column_source,
    check_finite,
    check_power_domain,
    not_psd_error,
    pivoted_cholesky,
)

#: the paper's regularisation values (Section 4.1.3)
PAPER_KAPPAS: tuple[float, ...] = (0.1, 0.5, 1.0, 5.0)

#: eigenvalues of a centred factor below this fraction of the largest are numerical zeros
EIG_RTOL = 1e-12

#: cache stage of factors kept on disk (:meth:`FactorCache.persist`); bump the version when
#: the numbers of a factor change
FACTOR_STAGE = "kernel-factor"
FACTOR_VERSION = 2  # 2: eigenbasis signs fixed (_deterministic_signs)


def paper_n_grid(low: int = 10, high: int = 6000, count: int = 46) -> np.ndarray:
    """The 46 values of n (Section 4.1.3): ``unique(round(geomspace(10, 6000, 46)))``.

    The paper does not list them; this rule gives exactly 46 distinct values
    (docs/paper-notes.md#dev-selection-and-borda-count).
    """
    return np.unique(np.round(np.geomspace(low, high, count)).astype(int))


# --------------------------------------------------------------------------- factor stage

#: how a training kernel is factorised (see :class:`KCCA`)
FACTORISATIONS = ("auto", "eigen", "cholesky")


@dataclass
class _Side:
    """One view's training kernel as the eigenbasis of its centred form (``Kc ~ U diag(s) U'``)."""

    name: str
    U: Any  # (n, k) orthonormal eigenbasis of the centred kernel
    # (columns orthogonal to 1)
    s: Any  # (k,) eigenvalues of the centred kernel (descending, > 0)
    col_mean: Any  # (n,) training column means of the kernel (centring of new blocks)
    delta: float  # isotropic diagonal term handled in closed form (0 when none)
    trace: float  # trace of the kernel as used in eq. 3 (after p and d)
    power: float
    rank: int  # factor rank (pivots, or eigenvalues kept)
    residual_trace: float
    method: str  # "eigen" or "cholesky"
    #: ``(what, value, scale)`` when the kernel is not PSD beyond round-off (the factor keeps
    #: its positive part); a fit with ``indefinite="raise"`` refuses it (:func:`_check_side`)
    psd_violation: tuple[str, float, float] | None = None

    @property
    def dim(self) -> int:
        return int(self.s.shape[0])


def _side_base(K: Any, name: str, power: float, diag_scale: float) -> tuple[Any, float, float]:
    """The column source to factorise, the closed-form diagonal term ``delta`` and the
    diagonal scale folded into the source (1 when ``delta`` handles it)."""
    source = as_column_source(K, name)
    base = TransformedColumns(source, power=power) if power != 1 else source
    delta, folded = 0.0, 1.0
    if diag_scale != 1.0:
        d = np.asarray(to_numpy(base.diag()), dtype=float)
        if np.allclose(d, d[0], rtol=1e-10, atol=0.0):
            delta = (diag_scale - 1.0) * float(d[0])
        else:  # not isotropic: factorise the scaled kernel itself
            base = TransformedColumns(base, diag_scale=diag_scale)
            folded = float(diag_scale)
    return base, delta, folded


def _is_dense(base: Any) -> bool:
    """True when ``base`` is a dense matrix (possibly raised to p / diagonal-scaled)."""
    while isinstance(base, TransformedColumns):
        base = base.base
    return isinstance(base, DenseColumns)


def _method(base: Any, factorisation: str) -> str:
    if factorisation == "auto":
        return "eigen" if _is_dense(base) else "cholesky"
    if factorisation == "eigen" and not _is_dense(base):
        raise ValueError(
            "factorisation='eigen' needs dense training kernels; kernels given as "
            "columns on demand use factorisation='cholesky' (or 'auto')"
        )
    return factorisation


def _keep_count(w_desc: np.ndarray, precision: float, trace: float, rank: int | None) -> int:
    """Eigenvalues kept: the positive ones above rounding level, then the fewest leading ones
    whose dropped tail sums to at most ``precision * trace``, at most ``rank``."""
    top = float(w_desc[0]) if w_desc.size else 0.0
    k = int(np.count_nonzero(w_desc > EIG_RTOL * max(top, 0.0)))
    if precision > 0 and k:
        tail = np.cumsum(w_desc[:k][::-1])[::-1]  # tail[i] = sum of w[i:k]
        k = int(np.count_nonzero(tail > precision * trace))  # tail is decreasing in i
    return k if rank is None else min(k, int(rank))


#: what a fit does with a training kernel that is not positive semi-definite
INDEFINITE = ("raise", "psd-part")


def _check_indefinite(value: str) -> str:
    """``"raise"`` (refuse such a kernel: a :class:`~kcca.errors.KernelError`) or
    ``"psd-part"`` (use its positive part: the kernel is declared indefinite in theory, as the
    soft trigram kernel with a thresholded or max-combined word kernel is, Section 4.1.2)."""
    if value not in INDEFINITE:
        raise ValueError(f"indefinite must be one of {INDEFINITE}, got {value!r}")
    return value


def _deterministic_signs(U: Any, xp: Any) -> Any:
    """``U`` with each column's largest-magnitude entry made positive. Eigenvectors are defined
    up to sign and LAPACK and cuSOLVER choose differently; fixing the basis here makes the
    canonical directions (whose signs :func:`_solve` fixes in this basis) the same on every
    backend."""
    n, r = U.shape
    rows = xp.argmax(xp.abs(U), axis=0)
    picked = xp.take(xp.reshape(U, (n * r,)), rows * r + xp.arange(r, dtype=rows.dtype), axis=0)
    return U * (1.0 - 2.0 * xp.astype(picked < 0, U.dtype))[None, :]


def _psd_violation(w_desc: np.ndarray, abs_trace: float) -> tuple[str, float, float] | None:
    """``(what, value, scale)`` when the centred form's lowest eigenvalue is below
    ``-PSD_RTOL`` times the kernel's trace (``sum |K[i, i]|``; :data:`kcca.lowrank.PSD_RTOL`),
    else None. The centred form ``H K H`` is what eq. 3 uses, so a kernel that is PSD only
    after centring (a conditionally positive definite one) passes."""
    if not w_desc.size:
        return None
    low = float(w_desc[-1])
    scale = abs_trace if abs_trace > 0 else float(np.abs(w_desc).sum())
    if low < -PSD_RTOL * scale:
        return ("the most negative eigenvalue of its centred form", low, scale)
    return None


def _check_side(side: "_Side", indefinite: str) -> None:
    """Refuse a factor of a kernel that is not PSD unless ``indefinite="psd-part"`` (the
    kernel is declared indefinite in theory; its positive part is used): eq. 3 needs PSD
    kernels. The check is made at each use, so a shared factor serves both kinds of fit."""
    violation = getattr(side, "psd_violation", None)  # absent in factors stored before it
    if violation is not None and indefinite == "raise":
        raise not_psd_error(side.name, *violation)


def _eigen_side(
    base: Any, name: str, power: float, precision: float, rank: int | None, xp: Any
) -> _Side:
    """Exact eigendecomposition of the centred dense kernel, truncated by ``precision``
    (the best approximation of that rank; one dense ``eigh``, no pivoted Cholesky). Negative
    eigenvalues are never kept; one beyond round-off is recorded (:func:`_psd_violation`)."""
    n = int(base.n)
    K = base.K if isinstance(base, DenseColumns) else base.columns(np.arange(n))
    K = xp.asarray(np.asarray(to_numpy(K), dtype=float))
    diag = xp.linalg.diagonal(K)
    trace = float(xp.sum(diag))
    abs_trace = float(xp.sum(xp.abs(diag)))
    col_mean = xp.mean(K, axis=0)
    Kc = K - col_mean[None, :] - col_mean[:, None] + xp.mean(col_mean)
    del K
    w, V = xp.linalg.eigh(Kc)
    del Kc
    w_desc = to_numpy(w)[::-1]
    violation = _psd_violation(w_desc, abs_trace)
    k = _keep_count(w_desc, precision, trace, rank)
    if k == 0:
        raise ValueError(f"{name} is constant after centring (rank 0): nothing to correlate")
    idx = xp.asarray(np.arange(n - 1, n - 1 - k, -1))
    s, U = xp.take(w, idx, axis=0), _deterministic_signs(xp.take(V, idx, axis=1), xp)
    residual = float(np.clip(w_desc[k:], 0.0, None).sum())
    return _Side(
        name=name,
        U=U,
        s=s,
        col_mean=col_mean,
        delta=0.0,
        trace=trace,
        power=power,
        rank=k,
        residual_trace=residual,
        method="eigen",
        psd_violation=violation,
    )


def _truncated(side: _Side, rank: int, xp: Any) -> _Side:
    """The eigen factor ``side`` cut to its ``rank`` leading eigenpairs."""
    if rank >= side.dim:
        return side
    idx = xp.asarray(np.arange(rank))
    dropped = float(xp.sum(side.s[rank:]))
    return replace(
        side,
        U=xp.take(side.U, idx, axis=1),
        s=xp.take(side.s, idx, axis=0),
        rank=rank,
        residual_trace=side.residual_trace + dropped,
    )


def _cholesky_side(
    base: Any,
    name: str,
    power: float,
    precision: float,
    rank: int | None,
    xp: Any,
    backend: str,
    progress: bool,
) -> _Side:
    """Pivoted incomplete Cholesky ``K ~ G G'`` (only the pivot columns of ``K`` are computed),
    then the eigenbasis of the centred factor: ``Gc' Gc = W diag(s) W'``, ``U = Gc W s^-1/2``."""
    f = pivoted_cholesky(
        base,
        precision=precision,
        max_rank=rank,
        backend=backend,
        progress=progress,
        argument=name,
        check_psd=False,
    )
    G = f.factor
    gbar = xp.mean(G, axis=0)
    Gc = G - gbar
    w, W = xp.linalg.eigh(xp.linalg.matmul(xp.matrix_transpose(Gc), Gc))
    w_desc = to_numpy(w)[::-1]
    k = _keep_count(w_desc, 0.0, f.trace, None)
    if k == 0:
        raise ValueError(f"{name} is constant after centring (rank 0): nothing to correlate")
    r = int(w.shape[0])
    idx = xp.asarray(np.arange(r - 1, r - 1 - k, -1))
    s = xp.take(w, idx, axis=0)
    U = _deterministic_signs(xp.linalg.matmul(Gc, xp.take(W, idx, axis=1) / xp.sqrt(s)), xp)
    col_mean = xp.linalg.matmul(G, gbar)  # column means of G G'
    return _Side(
        name=name,
        U=U,
        s=s,
        col_mean=col_mean,
        delta=0.0,
        trace=f.trace,
        power=power,
        rank=f.rank,
        residual_trace=f.residual_trace,
        method="cholesky",
        psd_violation=f.psd_violation,
    )


class FactorCache:
    """Shares factorisations between fits on the same training kernels (Section 4.1.3).

    Trying the paper's (p, d) grid refits :class:`KCCAGrid` for every pair, but the image
    factor depends only on p, and a text kernel with a constant diagonal has one factor for
    every d (``d`` enters in closed form, module docstring). Passing one ``FactorCache`` to
    every fit (``KCCAGrid(factor_cache=...)``) makes that one factorisation per p plus one per
    text kernel; the numbers are identical to fitting without it.

    Entries are keyed by the identity of the kernel given (the object is held, so the key
    cannot be reused while cached; do not modify a kernel in place while it is cached) and
    by everything that fixes the factor (view, p, folded diagonal scale, precision, rank,
    backend). ``max_sides`` / ``max_pairs`` bound memory (least recently used entries go
    first; ``None``: unbounded). ``hits`` and ``misses`` count side look-ups.

    :meth:`persist` names a kernel by a stable config (e.g. its cache key): its factors are
    then also kept in an on-disk :class:`kcca.cache.Cache` (stage :data:`FACTOR_STAGE`), so
    other processes (the workers of ``kcca reproduce -j``) and later runs load them instead
    of factorising the same kernel again.
    """

    def __init__(self, max_sides: int | None = None, max_pairs: int | None = None):
        for arg, v in (("max_sides", max_sides), ("max_pairs", max_pairs)):
            if v is not None and (isinstance(v, bool) or int(v) != v or v < 1):
                raise ValueError(f"{arg} must be a positive integer or None, got {v!r}")
        self.max_sides, self.max_pairs = max_sides, max_pairs
        self._sides: OrderedDict = OrderedDict()
        self._pairs: OrderedDict = OrderedDict()
        self._persisted: dict[int, tuple] = {}  # id(K) -> (K, store, name, inputs)
        self.hits = 0
        self.misses = 0

    def __getstate__(self) -> dict:
        """A pickled cache is empty (same bounds): its entries are keyed by the identity of
        kernels in this process and hold backend arrays."""
        return {"max_sides": self.max_sides, "max_pairs": self.max_pairs}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["max_sides"], state["max_pairs"])  # type: ignore[misc]

    def __deepcopy__(self, memo: dict) -> "FactorCache":
        """The cache itself: it is shared, so ``sklearn.base.clone`` of an estimator that holds
        it (a deep copy of its parameters) keeps sharing it instead of copying its factors."""
        return self

    def persist(self, K: Any, name: Any, store: Any, inputs: Sequence[str] = ()) -> None:
        """Keep the factors of kernel ``K`` also in ``store`` (a :class:`kcca.cache.Cache`)
        under ``name``, a JSON-like config that identifies ``K``'s values (e.g. its cache key).
        The factor's own settings (view, p, folded diagonal scale, precision, rank, backend,
        method) complete the key. ``inputs``: the files behind ``K`` (recorded beside the
        entry). A disabled store is ignored."""
        if getattr(store, "enabled", False):
            self._persisted[id(K)] = (K, store, name, tuple(inputs))

    def _stored(self, key: tuple, K: Any, compute: Any) -> Any:
        entry = self._persisted.get(id(K))
        if entry is None or entry[0] is not K:
            return compute
        _, store, name, inputs = entry
        config = {
            "version": FACTOR_VERSION,
            "kernel": name,
            "view": key[0],
            "factor": [v for i, v in enumerate(key) if i != 1],
        }  # all but id(K)
        return lambda: store.get_or_compute(FACTOR_STAGE, config, compute, inputs)

    def __len__(self) -> int:
        return len(self._sides)

    def clear(self) -> None:
        """Forget every factor held in memory (persisted ones stay on disk)."""
        self._sides.clear()
        self._pairs.clear()

    @staticmethod
    def _bound(store: OrderedDict, cap: int | None) -> None:
        while cap is not None and len(store) > cap:
            store.popitem(last=False)

    def clear_view(self, name: str) -> None:
        """Drop the factors of view ``name`` (``"Kx"`` / ``"Ky"``) and every pair."""
        for key in [k for k in self._sides if k[0] == name]:
            del self._sides[key]
        self._pairs.clear()

    def side(self, key: tuple, K: Any, compute: Any) -> _Side:
        if key in self._sides:
            self._sides.move_to_end(key)
            self.hits += 1
            return self._sides[key][1]
        self.misses += 1
        side = self._stored(key, K, compute)()
        self._sides[key] = (K, side)
        self._bound(self._sides, self.max_sides)
        return side

    def prefactor(
        self,
        K: Any,
        *,
        view: str = "Kx",
        power: float = 1.0,
        precision: float | None = None,
        backend: str = "numpy",
    ) -> None:
        """Factorise training kernel ``K`` of ``view`` ("Kx" or "Ky") raised to ``power`` now,
        as a :class:`KCCAGrid` fit with this cache and these settings would (no diagonal
        scale): a run can compute a factor its systems share before handing them out."""
        if view not in ("Kx", "Ky"):
            raise ValueError(f"view must be 'Kx' or 'Ky', got {view!r}")
        _prepare_side(
            as_column_source(K, view),
            view,
            float(power),
            1.0,
            DEFAULT_PRECISION if precision is None else precision,
            None,
            get_xp(backend),
            backend,
            False,
            cache=self,
            owner=K,
        )

    def pair(self, key: tuple, compute: Any) -> Any:
        if key in self._pairs:
            self._pairs.move_to_end(key)
            return self._pairs[key]
        value = compute()
        self._pairs[key] = value
        self._bound(self._pairs, self.max_pairs)
        return value


def _prepare_side(
    K: Any,
    name: str,
    power: float,
    diag_scale: float,
    precision: float,
    rank: int | None,
    xp: Any,
    backend: str,
    progress: bool,
    cache: FactorCache | None = None,
    owner: Any = None,
    factorisation: str = "auto",
    indefinite: str = "raise",
) -> tuple[_Side, tuple]:
    """Factorise ``K ** power`` (and its diagonal scale) into the eigenbasis of its centred form.

    Returns the side and its cache key; with ``cache`` a factor of the same kernel, p and
    folded diagonal scale is reused (the isotropic ``delta`` is applied afterwards). The key
    uses the identity of ``owner`` (the object the caller was given; default ``K``).
    """
    owner = K if owner is None else owner
    base, delta, folded = _side_base(K, name, power, diag_scale)
    method = _method(base, factorisation)
    key = (name, id(owner), float(power), folded, float(precision), rank, str(backend), method)

    def compute() -> _Side:
        if method == "eigen":
            return _eigen_side(base, name, power, precision, rank, xp)
        return _cholesky_side(base, name, power, precision, rank, xp, backend, progress)

    if cache is None:
        side = compute()
    elif method == "eigen" and rank is not None:
        # a rank cap of the eigen factor is a slice of the uncapped one: share that
        full_key = key[:5] + (None,) + key[6:]
        full = cache.side(
            full_key, owner, lambda: _eigen_side(base, name, power, precision, None, xp)
        )
        side = _truncated(full, int(rank), xp)
    else:
        side = cache.side(key, owner, compute)
    _check_side(side, indefinite)
    if delta != 0.0:
        side = replace(side, delta=delta, trace=side.trace + int(base.n) * delta)
    return side, key


@dataclass
class _Core:
    """Both sides; ``p`` (primary) has no closed-form diagonal term, ``q`` may have one."""

    p: _Side
    q: _Side
    A: Any  # Up' Uq  (kp x kq)
    swapped: bool  # True when p is the y view
    n: int
    xp: Any = field(repr=False)  # the array namespace (None in a pickled copy)
    backend: str = "numpy"  # its name (resolved: "numpy", "cupy" or "array_api_strict")

    def side(self, name: str) -> _Side:
        return self.p if self.p.name == name else self.q

    def role(self, view: str) -> str:
        """``"p"`` or ``"q"``: the role of view ``"x"`` / ``"y"``."""
        return "p" if (view == "x") != self.swapped else "q"

    def mean_row(self, side: str, v: str) -> Any:
        """Training column means of ``K_side`` on the basis ``U_v`` (centring of new blocks)."""
        cache = self.__dict__.setdefault("_mean_rows", {})
        if (side, v) not in cache:
            xp = self.xp
            cache[(side, v)] = xp.linalg.matmul(self.side(side).col_mean[None, :], self.side(v).U)
        return cache[(side, v)]

    def basis(self, K_new: Any, v: str) -> Any:
        """``K_new U_v``: a new-by-train block on the eigenbasis of view ``v``."""
        return self.xp.linalg.matmul(K_new, self.side(v).U)

    @property
    def n_directions(self) -> int:
        """Number of canonical directions (nonzero-dimension subspace of the primary view)."""
        if self.q.delta > 0:
            return self.p.dim
        return min(self.p.dim, self.q.dim)


def _build_core(
    Kx: Any,
    Ky: Any,
    *,
    power_x: float,
    power_y: float,
    diag_x: float,
    diag_y: float,
    precision: float,
    rank: int | None,
    backend: str,
    progress: bool,
    cache: FactorCache | None = None,
    factorisation: str = "auto",
    indefinite: str = "raise",
) -> _Core:
    name = resolve_backend(backend)
    xp = get_xp(name)
    sx = as_column_source(Kx, "Kx")
    sy = as_column_source(Ky, "Ky")
    if int(sx.n) != int(sy.n):
        raise ValueError(
            f"Kx and Ky must describe the same training items: Kx has n={sx.n}, Ky has n={sy.n}"
        )
    # cache keys use the objects given (Kx, Ky), not the validating wrappers made here
    common = dict(
        precision=precision,
        rank=rank,
        xp=xp,
        backend=backend,
        progress=progress,
        cache=cache,
        factorisation=factorisation,
        indefinite=indefinite,
    )
    x, kx = _prepare_side(sx, "Kx", power_x, diag_x, owner=Kx, **common)
    y, ky = _prepare_side(sy, "Ky", power_y, diag_y, owner=Ky, **common)
    if x.delta > 0 and y.delta > 0:
        raise ValueError(
            f"diag_x={diag_x!r} and diag_y={diag_y!r}: only one view's diagonal can be scaled "
            "(the paper scales the text kernel only)"
        )
    swap = x.delta > 0 or (y.delta == 0 and x.dim > y.dim)
    p, q = (y, x) if swap else (x, y)

    def product() -> Any:
        return xp.linalg.matmul(xp.matrix_transpose(p.U), q.U)

    A = product() if cache is None else cache.pair((kx, ky, swap), product)
    return _Core(p=p, q=q, A=A, swapped=swap, n=int(sx.n), xp=xp, backend=name)


# --------------------------------------------------------------------------- per-kappa solve

#: columns of ``A' z`` formed at a time in :func:`_solve` (bounds its temporary memory)
_CHUNK = 512


@dataclass
class _Solution:
    """Directions for one kappa, stored once as the eigenvectors ``P`` of the primary view.

    With ``z = Dp P`` (the primary view's training projections on ``Up``), the dual weights are
    (module docstring): primary ``a = Up diag(a_rows) P diag(scale_p)``; secondary
    ``b = [Uq diag(g) A' diag(Dp) + Up diag(bp_rows)] P diag(scale_q)`` (``bp_rows`` only
    with a closed-form diagonal term). Every projection is therefore
    ``left @ P * scale - offset`` with a ``left`` built from ``K_new U``: no ``n x k`` weight
    matrix is stored, so memory is one ``kp x k`` matrix per kappa.
    """

    correlations: np.ndarray
    P: Any
    Dp: Any
    a_rows: Any
    scale_p: Any
    g: Any
    bp_rows: Any | None
    scale_q: Any
    p_offset: Any
    q_offset: Any

    def cut(self, k: int) -> "_Solution":
        """The first ``k`` directions (the model with ``k`` components)."""
        return replace(
            self,
            correlations=self.correlations[:k],
            P=self.P[:, :k],
            scale_p=self.scale_p[:k],
            scale_q=self.scale_q[:k],
            p_offset=self.p_offset[:k],
            q_offset=self.q_offset[:k],
        )

    def left(self, core: _Core, role: str, KG: dict[str, Any]) -> Any:
        """The matrix multiplying ``P`` for view ``role`` given ``KG[v] = K_new U_v``."""
        xp = core.xp
        if role == "p":
            return KG[core.p.name] * self.a_rows
        out = xp.linalg.matmul(KG[core.q.name] * self.g, xp.matrix_transpose(core.A)) * self.Dp
        if self.bp_rows is not None:
            out = out + KG[core.p.name] * self.bp_rows
        return out

    def project(self, core: _Core, role: str, KG: dict[str, Any]) -> Any:
        """``K_new`` times the directions of view ``role`` (before centring)."""
        scale = self.scale_p if role == "p" else self.scale_q
        return core.xp.linalg.matmul(self.left(core, role, KG), self.P) * scale


def _needs(core: _Core, role: str) -> tuple[str, ...]:
    """Bases ``U_v`` a projection of view ``role`` uses."""
    if role == "p":
        return (core.p.name,)
    return (core.q.name, core.p.name) if core.q.delta > 0 else (core.q.name,)


def _solve(core: _Core, kappa_x: float, kappa_y: float, k: int) -> _Solution:
    """Top ``k`` canonical directions of eq. 3 for one kappa (see the module docstring)."""
    xp, p, q = core.xp, core.p, core.q
    kp, kq = (kappa_y, kappa_x) if core.swapped else (kappa_x, kappa_y)
    Dp = xp.sqrt(p.s / (p.s + kp))
    t = q.s + q.delta
    Dq2 = t / (t + kq)
    c2 = q.delta / (q.delta + kq)
    inner = xp.linalg.matmul(core.A * (Dq2 - c2), xp.matrix_transpose(core.A))
    if c2 > 0:
        inner = inner + c2 * xp.eye(p.dim, dtype=xp.float64)
    S = Dp[:, None] * inner * Dp[None, :]
    del inner
    S = (S + xp.matrix_transpose(S)) / 2
    ev, P = xp.linalg.eigh(S)
    del S
    order = xp.asarray(np.arange(p.dim - 1, p.dim - 1 - k, -1))
    ev = xp.take(ev, order, axis=0)
    P = xp.take(P, order, axis=1)
    corr = np.sqrt(np.clip(to_numpy(ev), 0.0, 1.0))
    # deterministic sign: largest-magnitude entry of each p positive
    P_host = to_numpy(P)
    signs = np.sign(P_host[np.argmax(np.abs(P_host), axis=0), np.arange(k)])
    signs[signs == 0] = 1.0
    P = P * xp.asarray(signs)

    tiny = float(np.finfo(float).tiny ** 0.5)
    # primary view: a = Up diag(1/sqrt(s(s+kappa))) P, unit training projection |Dp P| = 1
    z_norm = xp.linalg.vector_norm(Dp[:, None] * P, axis=0)
    scale_p = 1.0 / xp.maximum(z_norm, tiny)
    a_rows = 1.0 / xp.sqrt(p.s * (p.s + kp))
    # secondary view: b = Uq diag(1/(t+k) - 1/(delta+k)) A'z + Up z/(delta+k), z = Dp P;
    # its training projection norm from A'z, formed a block of columns at a time
    proj2, comp = [], []
    for lo in range(0, k, _CHUNK):
        z = Dp[:, None] * P[:, lo : min(lo + _CHUNK, k)]
        Az = xp.linalg.matmul(xp.matrix_transpose(core.A), z)  # (kq, chunk)
        proj2.append(xp.sum((Dq2[:, None] * Az) ** 2, axis=0))
        if q.delta > 0:
            comp.append(xp.sum(z * z, axis=0) - xp.sum(Az * Az, axis=0))
    proj2 = xp.concat(proj2)
    if q.delta > 0:
        g = 1.0 / (t + kq) - 1.0 / (q.delta + kq)
        bp_rows = Dp / (q.delta + kq)
        proj2 = proj2 + c2**2 * xp.maximum(xp.concat(comp), 0.0)
    else:
        g, bp_rows = 1.0 / (t + kq), None
    norm = xp.sqrt(proj2)
    ok = norm > tiny
    scale_q = xp.where(ok, 1.0 / xp.where(ok, norm, 1.0), 0.0)  # zero-correlation: zero direction

    sol = _Solution(corr, P, Dp, a_rows, scale_p, g, bp_rows, scale_q, None, None)
    # offsets: training means of K_side @ weights (subtracted from new blocks)
    sol.p_offset = sol.project(core, "p", {p.name: core.mean_row(p.name, p.name)})[0, :]
    sol.q_offset = sol.project(core, "q", {v: core.mean_row(q.name, v) for v in _needs(core, "q")})[
        0, :
    ]
    return sol


# --------------------------------------------------------------------------- validation


def _check_kappa(kappa: Any, argument: str = "kappa") -> float:
    if (
        isinstance(kappa, bool)
        or not isinstance(kappa, (int, float, np.integer, np.floating))
        or not np.isfinite(kappa)
        or kappa <= 0
    ):
        raise ValueError(f"{argument} must be a finite number > 0, got {kappa!r}")
    return float(kappa)


def _check_positive_int(value: Any, argument: str) -> int:
    if isinstance(value, bool) or int(value) != value or value < 1:
        raise ValueError(f"{argument} must be a positive integer, got {value!r}")
    return int(value)


def _grid_values(values: Any, argument: str) -> list:
    """The values of a grid argument as a list: a scalar is a one-value grid (as scikit-learn
    users pass it); a string or an empty sequence is refused naming ``argument``."""
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{argument} must be a number or a sequence of numbers, got {values!r}")
    try:
        seq = list(values)
    except TypeError:  # a number (or a 0-d array)
        seq = [values.item() if isinstance(values, np.ndarray) else values]
    out = list(np.ravel(np.array(seq, dtype=object))) if seq else []
    if not out:
        raise ValueError(f"{argument} must name at least one value, got {values!r}")
    return out


def _check_common(
    power_x: Any, power_y: Any, diag_x: Any, diag_y: Any, rescale: Any, factorisation: Any = "auto"
) -> None:
    if factorisation not in FACTORISATIONS:
        raise ValueError(f"factorisation must be one of {FACTORISATIONS}, got {factorisation!r}")
    for arg, v in (("power_x", power_x), ("power_y", power_y)):
        if not isinstance(v, (int, float, np.integer, np.floating)) or not np.isfinite(v) or v <= 0:
            raise ValueError(
                f"{arg} must be a positive number (the paper uses 1, 2 or 3), got {v!r}"
            )
    for arg, v in (("diag_x", diag_x), ("diag_y", diag_y)):
        if not isinstance(v, (int, float, np.integer, np.floating)) or not np.isfinite(v) or v < 1:
            raise ValueError(f"{arg} must be a number >= 1 (the paper's d in [1, 15]), got {v!r}")
    if rescale not in (None, "trace", "top_eigenvalue"):
        raise ValueError(f"rescale must be None, 'trace' or 'top_eigenvalue', got {rescale!r}")


def _effective_kappas(core: _Core, kappa: float, rescale: str | None) -> tuple[float, float]:
    """Eq. 3's kappa per view. Opt-in rescaling K -> K / c is eq. 3 with kappa * c."""
    if rescale is None:
        return kappa, kappa
    x, y = (core.q, core.p) if core.swapped else (core.p, core.q)
    if rescale == "trace":
        return kappa * x.trace, kappa * y.trace
    return kappa * float(to_numpy(x.s)[0] + x.delta), kappa * float(to_numpy(y.s)[0] + y.delta)


def _new_block(K_new: Any, n: int, power: float, xp: Any, argument: str) -> Any:
    arr = K_new
    if isinstance(arr, np.ndarray) or not hasattr(arr, "__array_namespace__"):
        arr = np.asarray(arr, dtype=float)
        if arr.ndim != 2 or arr.shape[1] != n:
            raise ValueError(
                f"{argument} must be a (n_new, n_train={n}) new-by-train block, "
                f"got shape {arr.shape}"
            )
        check_finite(arr, argument)
    else:
        if arr.ndim != 2 or arr.shape[1] != n:
            raise ValueError(
                f"{argument} must be a (n_new, n_train={n}) new-by-train block, "
                f"got shape {tuple(arr.shape)}"
            )
        if not bool(xp.all(xp.isfinite(arr))):
            raise ValueError(f"{argument} has a NaN or infinite entry")
    arr = xp.asarray(arr, dtype=xp.float64)
    if power != 1:
        check_power_domain(arr, power, argument, xp)
        arr = arr**power
    return arr


# --------------------------------------------------------------------------- estimators


def _is_array(x: Any) -> bool:
    """True for an array of any backend (not for a NumPy scalar or a Python number)."""
    return isinstance(x, np.ndarray) or (
        hasattr(x, "__array_namespace__") and not isinstance(x, (np.generic, int, float))
    )


def _map_arrays(obj: Any, fn: Any, xp: Any) -> Any:
    """``obj`` with every array inside it mapped by ``fn``: the solver's dataclasses (a
    :class:`_Core` gets namespace ``xp``; its cached rows are dropped), lists and tuples."""
    if _is_array(obj):
        return fn(obj)
    if isinstance(obj, _Core):
        return replace(
            obj, p=_map_arrays(obj.p, fn, xp), q=_map_arrays(obj.q, fn, xp), A=fn(obj.A), xp=xp
        )
    if isinstance(obj, (_Side, _Solution)):  # a solution's correlations stay NumPy
        return replace(
            obj,
            **{
                f.name: _map_arrays(getattr(obj, f.name), fn, xp)
                for f in fields(obj)
                if f.name != "correlations"
            },
        )
    if isinstance(obj, (list, tuple)):
        return type(obj)(_map_arrays(v, fn, xp) for v in obj)
    return obj


def _loaded_namespace(backend: str, owner: str) -> tuple[Any, str]:
    """The namespace of ``backend`` for a model being unpickled, or NumPy (with a warning)
    where that backend is not available here."""
    from kcca.errors import BackendUnavailableError

    try:
        return get_xp(backend), backend
    except (BackendUnavailableError, ImportError):
        warnings.warn(
            f"this {owner} was fitted with backend {backend!r}, which is not available "
            "here: its arrays are loaded as NumPy arrays (backend_='numpy'; the same "
            "numbers)",
            RuntimeWarning,
            stacklevel=3,
        )
        return get_xp("numpy"), "numpy"


def _train_block(K: Any) -> Any:
    """A training kernel as the dense (n, n) block :meth:`KCCA.transform` takes (a column
    source gives all its columns: the kernel is symmetric)."""
    if isinstance(K, ColumnSource) and not hasattr(K, "shape"):
        return K.columns(np.arange(int(K.n)))
    return K


def _column_correlations(zx: np.ndarray, zy: np.ndarray) -> np.ndarray:
    """Pearson correlation of each column of ``zx`` with the same column of ``zy`` (0 where
    either column is constant)."""
    a = zx - zx.mean(axis=0)
    b = zy - zy.mean(axis=0)
    den = np.sqrt((a * a).sum(axis=0) * (b * b).sum(axis=0))
    num = (a * b).sum(axis=0)
    ok = den > 0
    return np.where(ok, num / np.where(ok, den, 1.0), 0.0)


def _store_parameters(estimator: BaseEstimator, values: dict[str, Any]) -> None:
    """Store every constructor argument unchanged under its own name (scikit-learn's rule for
    ``__init__``; validation happens in ``fit``); ``values`` is the constructor's ``locals()``."""
    for name in type(estimator)._get_param_names():
        setattr(estimator, name, values[name])


class _Estimator(BaseEstimator):
    """What :class:`KCCA` and :class:`KCCAGrid` share: pickling with host arrays and the
    backend's name, the precomputed-kernel tags and :meth:`transform` of either view."""

    #: fitted attributes that hold backend arrays (host NumPy arrays in a pickle)
    _array_attributes: tuple[str, ...] = ()
    #: attributes a pickle leaves out (memos)
    _transient_attributes: tuple[str, ...] = ()

    def __getstate__(self) -> dict:
        state = dict(super().__getstate__())
        for key in self._transient_attributes:
            state.pop(key, None)
        for key in self._array_attributes:
            if key in state:
                state[key] = _map_arrays(state[key], to_numpy, None)
        return state

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        if "backend_" in state:
            xp, state["backend_"] = _loaded_namespace(state["backend_"], type(self).__name__)
            for key in self._array_attributes:
                if key in state:
                    state[key] = _map_arrays(state[key], xp.asarray, xp)
        super().__setstate__(state)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True  # the inputs are precomputed kernels
        tags.target_tags.required = True  # the second view (fit's Ky) is not optional
        return tags

    def transform_x(self, Kx_new: Any) -> Any:  # pragma: no cover - defined by subclasses
        raise NotImplementedError

    def transform_y(self, Ky_new: Any) -> Any:  # pragma: no cover - defined by subclasses
        raise NotImplementedError

    def _check_fitted(self) -> None:  # pragma: no cover - defined by subclasses
        raise NotImplementedError

    def transform(self, Kx_test: Any, Ky_test: Any = None) -> tuple[Any, Any]:
        """Both views' projections ``(transform_x(Kx_test), transform_y(Ky_test))`` of
        test-by-train blocks (raw, before the powers; the diagonal factors are not applied).

        The views are projected independently (they may hold different items: a pool of
        images and a pool of captions, eq. 4), so a view given as ``None`` is not projected
        and its entry is ``None``: ``transform(Kx, None)`` is ``(transform_x(Kx), None)``.
        At least one view must be given.
        """
        self._check_fitted()
        if Kx_test is None and Ky_test is None:
            raise ValueError(
                "transform needs a test-by-train kernel of at least one view (Kx_test or Ky_test)"
            )
        return (
            None if Kx_test is None else self.transform_x(Kx_test),
            None if Ky_test is None else self.transform_y(Ky_test),
        )

    def fit(self, Kx: Any, Ky: Any) -> Any:  # pragma: no cover - defined by subclasses
        raise NotImplementedError

    def fit_transform(self, Kx: Any, Ky: Any) -> tuple[Any, Any]:
        """``fit(Kx, Ky)``, then the projections of the training pairs: ``transform(Kx, Ky)``,
        the training kernels taken as train-by-train blocks (as new items: powers applied,
        diagonal factors not)."""
        self.fit(Kx, Ky)
        return self.transform(_train_block(Kx), _train_block(Ky))


class KCCA(_Estimator):
    """Regularised kernel CCA (eq. 3) on precomputed training kernels, scikit-learn style.

    ``fit(Kx, Ky)`` takes the two views' train x train kernels; ``transform(Kx_test,
    Ky_test)`` projects test-by-train blocks of either view (eq. 4 ranks by the cosine of
    those projections); ``score(Kx_test, Ky_test)`` is the mean canonical correlation of
    held-out pairs. Clones, pickles and raises ``NotFittedError`` as scikit-learn estimators
    do (module docstring).

    Parameters
    ----------
    kappa : the regulariser of eq. 3 (``kappa * a' K a`` on the kernels as given), > 0.
    n_components : number of canonical directions kept (largest correlations first).
    precision : truncation of each kernel's factor, relative to its trace: the dropped
        eigenvalues (``"eigen"``) or the residual trace of the incomplete Cholesky
        (``"cholesky"``, :func:`kcca.lowrank.pivoted_cholesky`) sum to at most
        ``precision * trace(K)``; ``0`` keeps the numerical rank.
    rank : optional cap on each factor's rank.
    factorisation : ``"eigen"`` (one dense ``eigh`` of the centred kernel: the best
        approximation of each rank, BLAS-3, the fastest route for dense kernels),
        ``"cholesky"`` (pivoted incomplete Cholesky: only the pivot columns of ``K`` are
        computed, memory ``O(n r)``, for kernels given as columns on demand) or ``"auto"``
        (default: ``"eigen"`` for dense arrays, ``"cholesky"`` for column sources).
    power_x, power_y : entry-wise power of the kernel (the paper's image p in {2, 3}).
    diag_x, diag_y : factor on the training Gram's diagonal (the paper's text d in [1, 15]);
        new-by-train blocks are not changed by it.
    rescale : ``None`` (default, eq. 3 exactly), or opt-in ``"trace"`` / ``"top_eigenvalue"``:
        divide each training kernel by that number, i.e. multiply kappa by it per view.
    backend : ``"numpy"``, ``"cupy"``, ``"auto"`` or ``"array_api_strict"``.
    progress : show tqdm bars for the factorisations.

    Attributes
    ----------
    correlations_ : (n_components,) canonical correlations lambda (not lambda^2), descending
        (NumPy, on the host).
    x_weights_, y_weights_ : (n_train, n_components) dual directions alpha, beta.
    x_offset_, y_offset_ : training means of the projections (centring of new blocks).
    rank_x_, rank_y_ : factor ranks; n_directions_ : directions available.
    n_train_ : training items; backend_ : the array backend's name (``"auto"`` resolved).
    """

    _array_attributes = ("x_weights_", "y_weights_", "x_offset_", "y_offset_")

    def __init__(
        self,
        kappa: float = 0.1,
        n_components: int = 10,
        *,
        precision: float = DEFAULT_PRECISION,
        rank: int | None = None,
        power_x: float = 1,
        power_y: float = 1,
        diag_x: float = 1.0,
        diag_y: float = 1.0,
        rescale: str | None = None,
        backend: str = "numpy",
        progress: bool = False,
        factorisation: str = "auto",
        indefinite: str = "raise",
    ):
        _store_parameters(self, locals())

    def fit(self, Kx: Any, Ky: Any) -> "KCCA":
        """Fit on train x train kernels (dense arrays or :class:`kcca.lowrank.ColumnSource`)."""
        kappa = _check_kappa(self.kappa)
        k = _check_positive_int(self.n_components, "n_components")
        _check_common(
            self.power_x, self.power_y, self.diag_x, self.diag_y, self.rescale, self.factorisation
        )
        core = _build_core(
            Kx,
            Ky,
            power_x=self.power_x,
            power_y=self.power_y,
            diag_x=self.diag_x,
            diag_y=self.diag_y,
            precision=self.precision,
            rank=self.rank,
            backend=self.backend,
            progress=self.progress,
            factorisation=self.factorisation,
            indefinite=_check_indefinite(self.indefinite),
        )
        if k > core.n_directions:
            raise ValueError(
                f"n_components={k} exceeds the rank of the problem "
                f"({core.n_directions} directions; "
                f"factor ranks Kx {core.p.rank if not core.swapped else core.q.rank}, "
                f"Ky {core.q.rank if not core.swapped else core.p.rank}): lower n_components or "
                "the precision"
            )
        kx, ky = _effective_kappas(core, kappa, self.rescale)
        sol = _solve(core, kx, ky, k)
        self._set_solution(core, sol)
        return self

    def _set_solution(self, core: _Core, sol: _Solution) -> None:
        self.backend_ = core.backend
        self.n_train_ = core.n
        self.correlations_ = sol.correlations
        for view in ("x", "y"):
            role = core.role(view)
            identity = {v: core.side(v).U for v in _needs(core, role)}
            setattr(self, f"{view}_weights_", sol.project(core, role, identity))
            setattr(self, f"{view}_offset_", sol.p_offset if role == "p" else sol.q_offset)
        x, y = (core.q, core.p) if core.swapped else (core.p, core.q)
        self.rank_x_, self.rank_y_ = x.rank, y.rank
        self.n_directions_ = core.n_directions

    def _check_fitted(self) -> None:
        check_is_fitted(
            self,
            "correlations_",
            msg="This %(name)s instance is not fitted yet: call fit(Kx, Ky) first.",
        )

    def transform_x(self, Kx_new: Any) -> Any:
        """Project new items of view x: ``Kx_new`` is (n_new, n_train), raw (before power_x)."""
        self._check_fitted()
        xp = get_xp(self.backend_)
        K = _new_block(Kx_new, self.n_train_, self.power_x, xp, "Kx_new")
        return xp.linalg.matmul(K, self.x_weights_) - self.x_offset_

    def transform_y(self, Ky_new: Any) -> Any:
        """Project new items of view y: ``Ky_new`` is (n_new, n_train), raw (before power_y)."""
        self._check_fitted()
        xp = get_xp(self.backend_)
        K = _new_block(Ky_new, self.n_train_, self.power_y, xp, "Ky_new")
        return xp.linalg.matmul(K, self.y_weights_) - self.y_offset_

    def score(self, Kx_test: Any, Ky_test: Any) -> float:
        """Mean canonical correlation of held-out pairs: row ``i`` of ``Kx_test`` and of
        ``Ky_test`` (test-by-train blocks) are the two views of test item ``i``.

        For each of the ``n_components`` directions, the Pearson correlation over the test
        pairs between the two views' projections (:meth:`transform`; a direction whose
        projection is constant on the test pairs counts 0), averaged over the directions:
        the held-out counterpart of ``correlations_.mean()`` (eq. 3's lambda), in [-1, 1].
        """
        self._check_fitted()
        if Kx_test is None or Ky_test is None:
            raise ValueError("score needs both views' test-by-train kernels (Kx_test, Ky_test)")
        zx, zy = (to_numpy(z) for z in self.transform(Kx_test, Ky_test))
        if zx.shape[0] != zy.shape[0]:
            raise ValueError(
                f"score needs paired test items: Kx_test has {zx.shape[0]} rows, "
                f"Ky_test has {zy.shape[0]}"
            )
        if zx.shape[0] < 2:
            raise ValueError(f"score needs at least 2 test pairs, got {zx.shape[0]}")
        return float(np.mean(_column_correlations(zx, zy)))


class KCCAGrid(_Estimator):
    """Every (kappa, n_components) model of a grid from one factorisation (Section 4.1.3).

    One incomplete Cholesky per kernel and one ``r x r`` eigenproblem per kappa; the model
    with ``n`` components is the first ``n`` directions of its kappa's solve. Values of
    ``n_components`` above the number of directions are dropped (capped at the rank), so the
    default paper grid gives up to 4 x 46 = 184 models. Parameters as :class:`KCCA`, plus
    ``factor_cache``: a :class:`FactorCache` shared by several fits on the same kernels (the
    (p, d) search), so each factor is computed once; the numbers are the same without it
    (``clone`` keeps sharing it; a pickled cache is empty).

    ``kappas`` and ``n_components`` take a sequence or a single number (a one-value grid);
    ``n_components=None`` is the paper's 46 values (:func:`paper_n_grid`).

    ``transform(Kx_test, Ky_test)`` is ``(transform_x(Kx_test), transform_y(Ky_test))``: per
    view, one (n_test, max n) block per kappa (``None`` for a view not given);
    ``fit_transform`` as :class:`KCCA`. Clones, pickles and raises ``NotFittedError`` as
    scikit-learn estimators do (module docstring).

    Attributes: ``kappas_`` (tuple), ``n_components_`` (kept values, ascending),
    ``correlations_`` ((n_kappas, max n) array), ``models_`` (list of (kappa, n)),
    ``n_directions_``, ``backend_`` (the array backend's name).
    """

    _array_attributes = ("core_", "solutions_")
    _transient_attributes = ("_last_projection",)

    def __init__(
        self,
        kappas: Sequence[float] = PAPER_KAPPAS,
        n_components: Sequence[int] | None = None,
        *,
        precision: float = DEFAULT_PRECISION,
        rank: int | None = None,
        power_x: float = 1,
        power_y: float = 1,
        diag_x: float = 1.0,
        diag_y: float = 1.0,
        rescale: str | None = None,
        backend: str = "numpy",
        progress: bool = False,
        factor_cache: FactorCache | None = None,
        factorisation: str = "auto",
        indefinite: str = "raise",
    ):
        _store_parameters(self, locals())

    def fit(self, Kx: Any, Ky: Any) -> "KCCAGrid":
        """Fit every grid model on train x train kernels (dense or column sources)."""
        kappas = tuple(_check_kappa(k, "kappas") for k in _grid_values(self.kappas, "kappas"))
        grid = (
            paper_n_grid()
            if self.n_components is None
            else _grid_values(self.n_components, "n_components")
        )
        grid = np.unique([_check_positive_int(v, "n_components") for v in grid])
        _check_common(
            self.power_x, self.power_y, self.diag_x, self.diag_y, self.rescale, self.factorisation
        )
        core = _build_core(
            Kx,
            Ky,
            power_x=self.power_x,
            power_y=self.power_y,
            diag_x=self.diag_x,
            diag_y=self.diag_y,
            precision=self.precision,
            rank=self.rank,
            backend=self.backend,
            progress=self.progress,
            cache=self.factor_cache,
            factorisation=self.factorisation,
            indefinite=_check_indefinite(self.indefinite),
        )
        kept = grid[grid <= core.n_directions]
        if kept.size == 0:
            raise ValueError(
                f"n_components: every value ({grid.min()}..{grid.max()}) exceeds the rank "
                f"{core.n_directions}"
            )
        kmax = int(kept.max())
        self.__dict__.pop("_last_projection", None)  # projections of a previous fit
        self.core_ = core
        self.backend_ = core.backend
        self.solutions_ = [
            _solve(core, *_effective_kappas(core, k, self.rescale), kmax) for k in kappas
        ]
        self.kappas_ = kappas
        self.n_components_ = kept
        self.correlations_ = np.stack([s.correlations for s in self.solutions_])
        self.models_ = [(k, int(n)) for k in kappas for n in kept]
        self.n_directions_ = core.n_directions
        return self

    def _check_fitted(self) -> None:
        check_is_fitted(
            self, "core_", msg="This %(name)s instance is not fitted yet: call fit(Kx, Ky) first."
        )

    def transform_x(self, Kx_new: Any) -> list[Any]:
        """Per kappa, the (n_new, max n) projections; model (kappa, n) uses the first n columns.

        The last block projected per view is remembered (by identity: do not modify a block
        in place between calls), so dev selection and Borda on the same block project once.
        """
        return self._transform(Kx_new, "x", self.power_x)

    def transform_y(self, Ky_new: Any) -> list[Any]:
        """Per kappa, the (n_new, max n) projections of view y (see :meth:`transform_x`)."""
        return self._transform(Ky_new, "y", self.power_y)

    def _transform(self, K_new: Any, view: str, power: float) -> list[Any]:
        self._check_fitted()
        memo = self.__dict__.setdefault("_last_projection", {})
        if view in memo and memo[view][0] is K_new:
            return list(memo[view][1])
        K = _new_block(K_new, self.core_.n, power, self.core_.xp, f"K{view}_new")
        out = self._project_all(K, view)
        memo[view] = (K_new, out)
        return list(out)

    def _project_all(self, K: Any, view: str) -> list[Any]:
        core = self.core_
        role = core.role(view)
        # K U_v once per view, shared by every kappa
        KG = {v: core.basis(K, v) for v in _needs(core, role)}
        return [
            sol.project(core, role, KG) - (sol.p_offset if role == "p" else sol.q_offset)
            for sol in self.solutions_
        ]

    def projections(self, Kx_new: Any, Ky_new: Any) -> dict[tuple[float, int], tuple[Any, Any]]:
        """All models' projections: ``{(kappa, n): (Zx, Zy)}`` (views into shared arrays)."""
        zx, zy = self.transform_x(Kx_new), self.transform_y(Ky_new)
        return {
            (k, n): (zx[i][:, :n], zy[i][:, :n])
            for i, k in enumerate(self.kappas_)
            for n in self.n_components_.tolist()
        }

    def iter_models(self) -> Iterator[tuple[float, int]]:
        """The fitted grid's models ``(kappa, n)``."""
        self._check_fitted()
        return iter(self.models_)

    def model(self, kappa: float, n_components: int) -> KCCA:
        """A fitted :class:`KCCA` for one grid point (dense weights, same numbers)."""
        self._check_fitted()
        if kappa not in self.kappas_:
            raise ValueError(f"kappa={kappa!r} is not in the fitted grid {self.kappas_}")
        if n_components not in self.n_components_.tolist():
            raise ValueError(f"n_components={n_components!r} is not in the fitted grid")
        sol = self.solutions_[self.kappas_.index(kappa)]
        shared = set(KCCA._get_param_names()) - {"kappa", "n_components", "progress"}
        est = KCCA(
            kappa=kappa, n_components=n_components, **{name: getattr(self, name) for name in shared}
        )
        est._set_solution(self.core_, sol.cut(n_components))
        return est
