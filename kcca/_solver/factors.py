"""Factorisation of the training kernels (Section 3.2.1): each centred kernel as ``U diag(s) U'``.

A dense kernel is factorised by one ``eigh`` of its centred matrix, truncated by ``precision``
(the best approximation of each rank); a kernel given as columns on demand by the pivoted
incomplete Cholesky of :mod:`kcca._lowrank`. The text kernel's diagonal factor ``d`` is kept as
a closed-form term. :class:`FactorCache` shares factors between fits (every kappa, d and n of
one kernel pair; every system of a run with the same image kernel); where a factor is also kept
on disk is the caller's choice (:meth:`FactorCache.persist` takes the pipeline's store).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np
from tqdm.auto import tqdm

from kcca._backend import get_xp, to_numpy
from kcca._lowrank import (
    DEFAULT_PRECISION,
    PSD_RTOL,
    DenseColumns,
    TransformedColumns,
    as_column_source,
    check_kernel_scale,
    not_psd_error,
    pivoted_cholesky,
)
from kcca.errors import SettingError

#: eigenvalues of a centred factor below this fraction of the largest are numerical zeros
EIG_RTOL = 1e-12

#: where the pipeline keeps a factor (:meth:`FactorCache.persist`): ``store(config, compute)``
FactorStore = Callable[[dict, Callable[[], Any]], Any]

#: version of the factors' numbers, part of every stored factor's key: bump it when they change
FACTOR_VERSION = 2  # 2: eigenbasis signs fixed (_deterministic_signs)


# --------------------------------------------------------------------------- factor stage

#: how a training kernel is factorised (see :class:`KCCA`)
FACTORISATIONS = ("auto", "eigen", "cholesky")


@dataclass
class KernelSide:
    """One view's training kernel as the eigenbasis of its centred form (``Kc ~ U diag(s) U'``)."""

    name: str
    U: Any  # (n, k) orthonormal eigenbasis of the centred kernel
    # (columns orthogonal to 1)
    s: Any  # (k,) eigenvalues of the centred kernel (descending, > 0)
    col_mean: Any  # (n,) training column means of the kernel (centring of new blocks)
    trace: float  # trace of the kernel as used in eq. 3 (after p and d)
    power: float
    rank: int  # factor rank (pivots, or eigenvalues kept)
    residual_trace: float
    method: str  # "eigen" or "cholesky"
    delta: float = 0.0  # isotropic diagonal term handled in closed form (0 when none)
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


def _root(base: Any) -> Any:
    """The source ``base`` is built on (below any power / diagonal scale)."""
    while isinstance(base, TransformedColumns):
        base = base.base
    return base


def _is_dense(base: Any) -> bool:
    """True when ``base`` is a dense matrix (possibly raised to p / diagonal-scaled)."""
    return isinstance(_root(base), DenseColumns)


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


def check_indefinite(value: str) -> str:
    """``"raise"`` (refuse such a kernel: a :class:`~kcca.errors.KernelError`) or
    ``"psd-part"`` (use its positive part: the kernel is declared indefinite in theory, as the
    soft trigram kernel with a thresholded or max-combined word kernel is, Section 4.1.2)."""
    if value not in INDEFINITE:
        raise SettingError(f"indefinite must be one of {INDEFINITE}, got {value!r}")
    return value


def _deterministic_signs(U: Any, xp: Any) -> Any:
    """``U`` with each column's largest-magnitude entry made positive. Eigenvectors are defined
    up to sign and LAPACK and cuSOLVER choose differently; fixing the basis here makes the
    canonical directions (whose signs :func:`solve_kappa` fixes in this basis) the same on every
    backend."""
    n, r = U.shape
    rows = xp.argmax(xp.abs(U), axis=0)
    picked = xp.take(xp.reshape(U, (n * r,)), rows * r + xp.arange(r, dtype=rows.dtype), axis=0)
    return U * (1.0 - 2.0 * xp.astype(picked < 0, U.dtype))[None, :]


def _psd_violation(w_desc: np.ndarray, abs_trace: float) -> tuple[str, float, float] | None:
    """``(what, value, scale)`` when the centred form's lowest eigenvalue is below
    ``-PSD_RTOL`` times the kernel's trace (``sum |K[i, i]|``; :data:`kcca._lowrank.PSD_RTOL`),
    else None. The centred form ``H K H`` is what eq. 3 uses, so a kernel that is PSD only
    after centring (a conditionally positive definite one) passes."""
    if not w_desc.size:
        return None
    low = float(w_desc[-1])
    scale = abs_trace if abs_trace > 0 else float(np.abs(w_desc).sum())
    if low < -PSD_RTOL * scale:
        return ("the most negative eigenvalue of its centred form", low, scale)
    return None


def _check_side(
    side: "KernelSide", indefinite: str, given: tuple[str, float] | None = None
) -> None:
    """Refuse a factor of a kernel that is not PSD unless ``indefinite="psd-part"`` (the
    kernel is declared indefinite in theory; its positive part is used): eq. 3 needs PSD
    kernels. The check is made at each use, so a shared factor serves both kinds of fit.
    ``given``: the coarse float type the kernel came in (:func:`kcca._lowrank.coarse_float`)."""
    violation = getattr(side, "psd_violation", None)  # absent in factors stored before it
    if violation is not None and indefinite == "raise":
        what, value, scale = violation
        raise not_psd_error(side.name, what, value, scale, given)


def _leading(
    w: Any, w_desc: np.ndarray, name: str, precision: float, trace: float, rank: int | None, xp: Any
) -> tuple[int, Any]:
    """How many eigenvalues of the centred kernel ``name`` are kept (:func:`_keep_count`) and
    their indices in ``w`` (ascending, as ``eigh`` gives them; ``w_desc`` is ``w`` descending,
    on the host), largest first; a kernel with none kept is refused."""
    k = _keep_count(w_desc, precision, trace, rank)
    if k == 0:
        raise ValueError(f"{name} is constant after centring (rank 0): nothing to correlate")
    r = int(w.shape[0])
    return k, xp.asarray(np.arange(r - 1, r - 1 - k, -1))


def _eigen_side_shown(
    base: Any,
    name: str,
    power: float,
    precision: float,
    rank: int | None,
    xp: Any,
    progress: bool,
) -> KernelSide:
    """:func:`_eigen_side` under a one-step bar naming the kernel and its size (one dense
    ``eigh`` reports no progress of its own; on stderr, cleared when done)."""
    n = int(base.n)
    with tqdm(
        total=1,
        desc=f"{name}: eigendecomposition ({n} x {n})",
        unit="step",
        leave=False,
        disable=not progress,
    ) as bar:
        side = _eigen_side(base, name, power, precision, rank, xp)
        bar.update()
    return side


def _eigen_side(
    base: Any, name: str, power: float, precision: float, rank: int | None, xp: Any
) -> KernelSide:
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
    k, idx = _leading(w, w_desc, name, precision, trace, rank, xp)
    s, U = xp.take(w, idx, axis=0), _deterministic_signs(xp.take(V, idx, axis=1), xp)
    residual = float(np.clip(w_desc[k:], 0.0, None).sum())
    return KernelSide(
        name=name,
        U=U,
        s=s,
        col_mean=col_mean,
        trace=trace,
        power=power,
        rank=k,
        residual_trace=residual,
        method="eigen",
        psd_violation=violation,
    )


def _truncated(side: KernelSide, rank: int, xp: Any) -> KernelSide:
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
) -> KernelSide:
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
    _, idx = _leading(w, w_desc, name, 0.0, f.trace, None, xp)
    s = xp.take(w, idx, axis=0)
    U = _deterministic_signs(xp.linalg.matmul(Gc, xp.take(W, idx, axis=1) / xp.sqrt(s)), xp)
    col_mean = xp.linalg.matmul(G, gbar)  # column means of G G'
    return KernelSide(
        name=name,
        U=U,
        s=s,
        col_mean=col_mean,
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

    :meth:`persist` gives a kernel a store the pipeline passes in (the run's disk cache,
    :func:`kcca._systems.blocks.factor_store`): its factors are then also kept there, so
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
        self._persisted: dict[int, tuple] = {}  # id(K) -> (K, store)
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

    def persist(self, K: Any, store: FactorStore | None) -> None:
        """Keep the factors of kernel ``K`` also in ``store``, a function the pipeline passes
        in (:func:`kcca._systems.blocks.factor_store`): ``store(config, compute)`` returns the
        factor that ``config`` describes, stored or computed by ``compute``. ``config`` holds the
        factor's own settings (view, p, folded diagonal scale, precision, rank, backend,
        method, :data:`FACTOR_VERSION`); the store adds what identifies ``K``. None: kept in
        memory only."""
        if store is not None:
            self._persisted[id(K)] = (K, store)

    def _stored(self, key: tuple, K: Any, compute: Any) -> Any:
        entry = self._persisted.get(id(K))
        if entry is None or entry[0] is not K:
            return compute
        store = entry[1]
        config = {
            "version": FACTOR_VERSION,
            "view": key[0],
            "factor": [v for i, v in enumerate(key) if i != 1],
        }  # all but id(K)
        return lambda: store(config, compute)

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

    def side(self, key: tuple, K: Any, compute: Any) -> KernelSide:
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
        prepare_side(
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


def prepare_side(
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
) -> tuple[KernelSide, tuple]:
    """Factorise ``K ** power`` (and its diagonal scale) into the eigenbasis of its centred form.

    Returns the side and its cache key; with ``cache`` a factor of the same kernel, p and
    folded diagonal scale is reused (the isotropic ``delta`` is applied afterwards). The key
    uses the identity of ``owner`` (the object the caller was given; default ``K``).
    """
    owner = K if owner is None else owner
    base, delta, folded = _side_base(K, name, power, diag_scale)
    label = f"{name} ** {power:g}" if power != 1 else name
    check_kernel_scale(np.abs(np.asarray(to_numpy(base.diag()), dtype=float)) + abs(delta), label)
    method = _method(base, factorisation)
    key = (name, id(owner), float(power), folded, float(precision), rank, str(backend), method)

    def compute() -> KernelSide:
        if method == "eigen":
            return _eigen_side_shown(base, name, power, precision, rank, xp, progress)
        return _cholesky_side(base, name, power, precision, rank, xp, backend, progress)

    if cache is None:
        side = compute()
    elif method == "eigen" and rank is not None:
        # a rank cap of the eigen factor is a slice of the uncapped one: share that
        full_key = key[:5] + (None,) + key[6:]
        full = cache.side(
            full_key,
            owner,
            lambda: _eigen_side_shown(base, name, power, precision, None, xp, progress),
        )
        side = _truncated(full, int(rank), xp)
    else:
        side = cache.side(key, owner, compute)
    _check_side(side, indefinite, getattr(_root(base), "given_dtype", None))
    if delta != 0.0:
        side = replace(side, delta=delta, trace=side.trace + int(base.n) * delta)
    return side, key
