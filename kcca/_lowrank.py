"""Pivoted incomplete Cholesky (partial Gram-Schmidt) of a kernel matrix: ``K ~ G G'``.

The KCCA solver (Section 3.2.1, eq. 3; Hardoon et al. 2004 solve it "by partial Gram-Schmidt
orthogonalization") never forms an ``n x n`` or ``2n x 2n`` matrix: it works with a factor
``G`` of shape ``(n, r)``. The greedy algorithm picks, at each step, the item with the largest
residual diagonal ``K[i, i] - sum_k G[i, k]^2``, fetches that one kernel column and
orthogonalises it against the columns already taken. It stops when the residual trace falls
to ``precision * trace(K)`` (the default), when ``max_rank`` columns have been taken, or when
the largest residual diagonal entry is at rounding level, which is how a numerically
rank-deficient kernel (for example a linear kernel of ``p < n`` features) is handled: the
factor simply has rank ``p``. No jitter is ever added to ``K``.

Only the diagonal and the ``r`` pivot columns of ``K`` are needed, so kernels can be given as
a :class:`ColumnSource` that computes columns on demand (:class:`CallableColumns`,
:class:`KernelColumns` for any kernel of the contract in :mod:`features.kernels._base`);
memory is ``O(n r)``.

The paper's fixed extras (Section 4.1.3) are applied here as well, so on-demand
kernels get them without an ``n x n`` matrix: :class:`TransformedColumns` raises a kernel to
the power ``p`` entry-wise and multiplies the diagonal by ``d``.
"""

from __future__ import annotations

import reprlib
import sys
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol, Sequence, runtime_checkable

import numpy as np
from tqdm.auto import tqdm

from kcca._backend import array_namespace, get_xp, to_numpy
from kcca.errors import KernelError

#: default relative precision: stop when the residual trace is below this fraction of trace(K)
DEFAULT_PRECISION = 1e-5

PSD_RTOL = 1e-8
"""Round-off allowance of the positive semi-definiteness checks, relative to the kernel's trace.

Eq. 3 needs positive semi-definite kernels: on an indefinite one the regularised denominator
can vanish or turn negative, and the solver would return near-zero correlations with enormous
weights. A training kernel is refused when an eigenvalue of its centred form (``"eigen"``
factorisation), or a residual (Schur complement) diagonal entry of its pivoted Cholesky
(``"cholesky"``), is below ``-PSD_RTOL * trace``, where ``trace`` is ``sum |K[i, i]|`` of the
kernel as used (after p and d; the trace itself for a kernel with a non-negative diagonal).

Evidence (float64, centred, most negative eigenvalue / trace): the project's valid kernels
are at rounding level, at most about 1e-15 and typically 1e-17..1e-16 x trace: Flickr 8K
training BoW5 and TRI5 Grams (n = 6,000) -1.7e-16 and +1e-19; the demo's pyramid, trigram and
BoW kernels at p = 1, 2, 3; random rank-deficient linear, cosine bag-of-words, histogram
intersection, pyramid-like and RBF kernels of n = 100 .. 3,000 at p = 1, 2, 3 at most
-1e-15. Round-off of a dense symmetric eigensolver is about ``n * eps * |K|_2 <= n * eps *
trace``, i.e. 1.3e-12 at n = 6,000, so 1e-8 leaves four orders of magnitude of margin while
refusing any kernel whose negative part matters for the solve (a negated kernel is at -0.1 to
-1 x trace).

Kernels that are not PSD in theory declare it (``Kernel.positive_semidefinite = False``: the
soft trigram kernel through a thresholded or max-combined word kernel, Section 4.1.2, whose
Flickr 8K training Gram matrix reaches about -7e-5 x trace for TRI5SEM); the pipeline fits
them with ``KCCA(indefinite="psd-part")``, which uses the positive part of the centred kernel
(negative eigenvalues are never kept by the factorisation) instead of refusing it.
"""


#: the remedy printed for a kernel that is not positive semi-definite
NOT_PSD_FIX = (
    "the kernel must be positive semi-definite (eq. 3): check the kernel's gram() "
    "(a plug-in kernel's: docs/plugin-kernels.md), or add a multiple of the "
    "identity at least as large as the negative value above"
)


def not_psd_error(
    argument: str, what: str, value: float, scale: float, given: tuple[str, float] | None = None
) -> KernelError:
    """The :class:`~kcca.errors.KernelError` for a kernel whose ``what`` (an eigenvalue or a
    residual diagonal entry) is ``value < -PSD_RTOL * scale``.

    ``given``: ``(dtype, eps)`` of a kernel given in a coarser float type than float64
    (:func:`coarse_float`). Rounding a PSD kernel to it moves its eigenvalues by at most
    ``eps / 2 x trace``; a violation within ``eps x trace`` is said to be that rounding's.
    """
    ratio = value / scale if scale > 0 else -np.inf
    message = (
        f"{argument} is not positive semi-definite: {what} is {value:.3g} = {ratio:.1e} x trace "
        f"(tolerance {PSD_RTOL:.0e} x trace for round-off)"
    )
    if given is not None and -value <= given[1] * scale:
        dtype = given[0]
        return KernelError(
            f"{message}; it was given as {dtype}, whose rounding alone moves a Gram matrix's "
            f"eigenvalues by up to {given[1] / 2:.1e} x trace",
            fix=f"compute the kernel in float64 (its {dtype} rounding made it indefinite), or "
            "fit with indefinite='psd-part' to use its positive part",
        )
    return KernelError(message, fix=NOT_PSD_FIX)


KERNEL_SCALE_RANGE: tuple[float, float] = (1e-100, 1e100)
"""The range of a training kernel's scale (its largest ``|K[i, i]|`` as used, after p and d)
that the solve represents in float64. It multiplies eigenvalues with each other and with kappa
(``s (s + kappa)``, squared projection norms), so beyond about 1e+-150 they overflow or
underflow and the "fitted" model projects everything to 0; the range leaves 50 orders of
magnitude for n, kappa and d. Eq. 3 is unchanged when the kernel and kappa are divided by the
same number, so any kernel can be brought into it."""


def check_kernel_scale(diag: Any, argument: str) -> None:
    """Refuse a kernel whose largest finite ``|diag|`` lies outside :data:`KERNEL_SCALE_RANGE`
    (a zero or non-finite diagonal is left to the other checks)."""
    d = np.abs(np.asarray(to_numpy(diag) if not isinstance(diag, np.ndarray) else diag))
    top = float(d.max()) if d.size else 0.0
    low, high = KERNEL_SCALE_RANGE
    if top == 0.0 or not np.isfinite(top) or low <= top <= high:
        return
    raise KernelError(
        f"{argument} is out of scale: its largest diagonal entry is {top:.3g}, outside "
        f"[{low:.0e}, {high:.0e}], where the solve's products of eigenvalues fit in float64",
        fix="normalise the kernel: divide it by its largest diagonal entry c, and kappa by c "
        "for the same model (eq. 3 is unchanged when both are divided; with power p, divide "
        "the kernel given by c ** (1/p))",
    )


@runtime_checkable
class ColumnSource(Protocol):
    """A symmetric PSD kernel of ``n`` training items that yields columns on demand."""

    n: int

    def diag(self) -> Any:
        """The diagonal ``K[i, i]``, shape ``(n,)``."""

    def columns(self, index: Sequence[int] | np.ndarray) -> Any:
        """The columns ``K[:, index]``, shape ``(n, len(index))``."""


#: the remedy printed for a kernel that is not an array of real numbers
KERNEL_INPUT_FIX = (
    "pass the kernel as a 2-D array of real numbers: a NumPy (or backend) array, a "
    "scipy.sparse matrix, or a list of equal-length rows of numbers"
)

#: element types of an object array or nested list taken as numbers (when float64 holds them)
_REAL_SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)

#: integers of larger magnitude than this are not all exact in float64
_EXACT_INTEGER = 2**53

#: what a NumPy dtype kind that is not a number holds, for the message
_NOT_NUMBERS = {"U": "strings", "S": "bytes", "M": "dates", "m": "time spans", "V": "records"}


def as_kernel_array(K: Any, argument: str) -> Any:
    """``K`` as a float64 array, converted only where that is exact; else a
    :class:`~kcca.errors.KernelError` naming ``argument``.

    A float64 array (NumPy or of another backend) is returned as given. Converted exactly to
    float64: float16 / float32, bool (0 / 1), integers of magnitude up to 2**53, complex with
    an all-zero imaginary part (its real part), a scipy.sparse matrix (made dense: 8 bytes an
    entry, as the solver holds a dense kernel anyway), nested lists and object arrays of Python
    or NumPy numbers. Refused: a nonzero imaginary part, larger integers, strings, None,
    ragged lists, any other element. An array of another backend (cupy, array_api_strict)
    stays in its namespace.
    """
    if isinstance(K, np.ndarray) and K.dtype == np.float64:
        return K
    if not isinstance(K, np.ndarray) and hasattr(K, "__array_namespace__"):
        return _real_float64(K, argument, array_namespace(K))
    if K is None:
        raise KernelError(f"{argument} is None, not a kernel matrix", fix=KERNEL_INPUT_FIX)
    sparse = sys.modules.get("scipy.sparse")  # imported wherever a sparse matrix exists
    if sparse is not None and sparse.issparse(K):
        K = K.toarray(order="C")
    try:
        arr = np.asarray(K)
    except (ValueError, TypeError) as exc:  # rows of different lengths
        raise KernelError(
            f"{argument} is not a rectangular array of numbers: {exc}", fix=KERNEL_INPUT_FIX
        ) from None
    if arr.dtype == object:
        return _object_to_float64(arr, argument)
    if arr.dtype.kind in _NOT_NUMBERS:
        raise KernelError(
            f"{argument} holds {_NOT_NUMBERS[arr.dtype.kind]} (dtype {arr.dtype}), not numbers",
            fix=KERNEL_INPUT_FIX,
        )
    return _real_float64(arr, argument, array_namespace(arr))


def _real_float64(arr: Any, argument: str, xp: Any) -> Any:
    """``arr`` (a real, integer, bool or complex array of namespace ``xp``) as float64."""
    dtype = arr.dtype
    if dtype == xp.float64:
        return arr
    if xp.isdtype(dtype, "complex floating"):
        imag = xp.imag(arr)
        if bool(xp.any(imag != 0)):
            host = np.abs(np.asarray(to_numpy(imag)))
            where = tuple(int(i) for i in np.unravel_index(int(np.argmax(host)), host.shape))
            raise KernelError(
                f"{argument} is complex with a nonzero imaginary part (largest "
                f"{float(host[where]):.3g} at index {where}): Complex data not supported, a "
                "kernel's Gram matrix is real",
                fix="pass K.real if the imaginary part is round-off, else correct the kernel "
                "that produced it",
            )
        arr = xp.real(arr)
    elif xp.isdtype(dtype, "integral"):
        info = xp.iinfo(dtype)
        if arr.size and (
            (info.max > _EXACT_INTEGER and bool(xp.any(arr > _EXACT_INTEGER)))
            or (info.min < -_EXACT_INTEGER and bool(xp.any(arr < -_EXACT_INTEGER)))
        ):
            raise KernelError(
                f"{argument} has integer entries beyond 2**53 in magnitude, which float64 "
                "cannot hold exactly",
                fix="scale the kernel down, or convert it yourself (K.astype(float)) if its "
                "rounding is acceptable",
            )
    elif not xp.isdtype(dtype, ("bool", "real floating")):
        raise KernelError(f"{argument} has dtype {dtype}, not numbers", fix=KERNEL_INPUT_FIX)
    return xp.astype(arr, xp.float64)


def _object_to_float64(arr: np.ndarray, argument: str) -> np.ndarray:
    """An object array of Python or NumPy numbers as float64, each converted exactly."""
    out = np.empty(arr.shape, dtype=np.float64)
    flat = out.reshape(-1)
    for i, v in enumerate(arr.flat):
        f: float | None = None
        if isinstance(v, _REAL_SCALARS):
            try:
                f = float(v)
            except OverflowError:  # a Python integer beyond float64
                pass
        if f is None or (f != v and f == f):  # not a number, or not exact (NaN passes)
            where = tuple(int(j) for j in np.unravel_index(i, arr.shape))
            what = "not a number" if not isinstance(v, _REAL_SCALARS) else "not exact in float64"
            raise KernelError(
                f"{argument} holds {reprlib.repr(v)} ({type(v).__name__}, {what}) at index {where}",
                fix=KERNEL_INPUT_FIX,
            )
        flat[i] = f
    return out


def coarse_float(K: Any) -> tuple[str, float] | None:
    """``(dtype name, eps)`` when ``K`` is an array of a float type coarser than float64
    (float16, float32, complex64), else None."""
    dtype = getattr(K, "dtype", None)
    if dtype is None:
        return None
    if isinstance(dtype, np.dtype):
        if dtype.kind not in "fc":
            return None
        name, eps = dtype.name, float(np.finfo(dtype).eps)
    else:
        try:
            xp = array_namespace(K)
        except TypeError:
            return None
        if not xp.isdtype(dtype, ("real floating", "complex floating")):
            return None
        name, eps = str(dtype).rsplit(".", 1)[-1], float(xp.finfo(dtype).eps)
    return (name, eps) if eps > float(np.finfo(np.float64).eps) else None


def check_finite(arr: np.ndarray, argument: str) -> None:
    """Raise a :class:`~kcca.errors.KernelError` (a ValueError) naming ``argument`` when
    ``arr`` has a NaN or infinite entry."""
    if not np.isfinite(arr).all():
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise KernelError(
            f"{argument} has a non-finite entry {float(arr[tuple(bad)])!r} "
            f"at index {tuple(int(b) for b in bad)}"
        )


def _columns_label(index: np.ndarray) -> str:
    """``"columns [3, 7]"`` for a few columns, ``"columns [0, 1, 2, ..., 5999]"`` for many."""
    cols = [int(i) for i in index]
    if len(cols) <= 8:
        return f"columns {cols}"
    return f"columns [{', '.join(map(str, cols[:3]))}, ..., {cols[-1]}] ({len(cols)} columns)"


def check_square_symmetric(K: Any, argument: str, *, atol: float = 1e-8) -> np.ndarray:
    """Validate a dense training Gram matrix: real numbers (:func:`as_kernel_array`), 2-D,
    square, finite, symmetric. Returns NumPy float64."""
    arr = as_kernel_array(K, argument)
    arr = to_numpy(arr) if not isinstance(arr, np.ndarray) else arr
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{argument} must be a square (n, n) kernel matrix, got shape {arr.shape}")
    if arr.shape[0] < 2:
        raise ValueError(
            f"{argument} needs at least 2 training items, got {arr.shape[0]} sample(s) "
            f"(shape {arr.shape})"
        )
    check_finite(arr, argument)
    scale = max(float(np.abs(np.diagonal(arr)).max()), 1.0)
    asym = float(np.abs(arr - arr.T).max())
    if asym > atol * scale:
        i, j = np.unravel_index(int(np.argmax(np.abs(arr - arr.T))), arr.shape)
        raise KernelError(
            f"{argument} is not symmetric: |K[{i},{j}] - K[{j},{i}]| = {asym:.3g} "
            f"(tolerance {atol * scale:.3g})"
        )
    return arr


def check_power_domain(arr: Any, power: float, argument: str, xp: Any = np) -> None:
    """Refuse a fractional entry-wise ``power`` of a block with negative entries (a signed
    kernel such as Fisher-vector dot products): ``x ** 1.5`` of ``x < 0`` is NaN."""
    if float(power) == int(power) or not bool(xp.any(arr < 0)):
        return
    host = np.asarray(to_numpy(arr) if not isinstance(arr, np.ndarray) else arr)
    bad = tuple(int(b) for b in np.argwhere(host < 0)[0])
    raise ValueError(
        f"{argument} has a negative entry {float(host[bad]):.3g} at index {bad}, so its power "
        f"{power:g} is undefined there: use an integer power (the paper's p is 2 or 3) or a "
        "kernel without negative values"
    )


class DenseColumns:
    """Columns of a precomputed (validated) dense kernel matrix; ``given_dtype`` is
    :func:`coarse_float` of the matrix given (it is held as float64)."""

    def __init__(self, K: Any, argument: str = "K"):
        self.given_dtype = coarse_float(K)
        self.K = check_square_symmetric(K, argument)
        self.n, self.argument = self.K.shape[0], argument

    def diag(self) -> np.ndarray:
        return np.diagonal(self.K).copy()

    def columns(self, index: Sequence[int] | np.ndarray) -> np.ndarray:
        return self.K[:, np.asarray(index, dtype=np.intp)]


class CallableColumns:
    """Columns from ``fn(index) -> K[:, index]`` and a given diagonal (kernel columns on demand)."""

    def __init__(self, fn: Callable[[np.ndarray], Any], diag: Any, argument: str = "K"):
        d = as_kernel_array(diag, f"diagonal of {argument}")
        d = np.asarray(to_numpy(d) if not isinstance(d, np.ndarray) else d, dtype=float)
        if d.ndim != 1 or d.shape[0] < 2:
            raise ValueError(
                f"diagonal of {argument} must be a 1-D array of n >= 2 values, got shape {d.shape}"
            )
        check_finite(d, f"diagonal of {argument}")
        self.fn, self._diag, self.n, self.argument = fn, d, d.shape[0], argument

    def diag(self) -> np.ndarray:
        return self._diag

    def columns(self, index: Sequence[int] | np.ndarray) -> np.ndarray:
        index = np.asarray(index, dtype=np.intp)
        cols = as_kernel_array(self.fn(index), f"{_columns_label(index)} of {self.argument}")
        cols = to_numpy(cols) if not isinstance(cols, np.ndarray) else cols
        cols = np.asarray(cols, dtype=float).reshape(self.n, len(index))
        check_finite(cols, f"{_columns_label(index)} of {self.argument}")
        return cols


class KernelColumns(CallableColumns):
    """Columns of a fitted kernel of the contract (``gram``/``diag``) on its training items."""

    def __init__(self, kernel: Any, items: Sequence[Any] | None = None, argument: str = "K"):
        items = kernel.train_items_ if items is None else items
        self.kernel, self.items = kernel, items

        def fn(index: np.ndarray) -> np.ndarray:
            return kernel.gram(items, [items[int(i)] for i in index])

        super().__init__(fn, kernel.diag(items), argument)


class KernelRows:
    """A new-by-train kernel block given as rows on demand: ``rows(slice)`` computes those
    rows, ``shape`` is the whole block's. For pools too large to hold against a large
    training set (COCO's 5,000 images x 113,287 training images: 4.5 GB a block), projected
    block by block (:meth:`kcca._solver.KCCAGrid.transform_x`); ``numpy.asarray`` makes it
    whole, for what needs every row at once."""

    #: rows computed at once (about 256 MB of float64 against 113,287 training items)
    STEP_CELLS = 1 << 25

    def __init__(self, rows: Callable[[slice], Any], shape: tuple[int, int]):
        self.rows, self.shape = rows, (int(shape[0]), int(shape[1]))
        self.ndim = 2

    def __len__(self) -> int:
        return self.shape[0]

    def blocks(self) -> Iterator[tuple[slice, np.ndarray]]:
        """``(rows, block)`` in order, each at most :data:`STEP_CELLS` cells."""
        step = max(1, self.STEP_CELLS // max(1, self.shape[1]))
        for start in range(0, self.shape[0], step):
            index = slice(start, min(start + step, self.shape[0]))
            yield index, np.asarray(self.rows(index))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        whole = (
            np.concatenate([block for _, block in self.blocks()])
            if self.shape[0]
            else (np.zeros(self.shape))
        )
        return whole if dtype is None else whole.astype(dtype)


class TransformedColumns:
    """``K ** power`` (entry-wise) with the diagonal multiplied by ``diag_scale`` (Sec. 4.1.3).

    ``power`` is the paper's image-kernel exponent p in {2, 3}; ``diag_scale`` is the text
    kernel's diagonal factor d in [1, 15] (applied to the train x train Gram only).
    """

    def __init__(self, base: ColumnSource, power: float = 1, diag_scale: float = 1.0):
        self.base, self.power, self.diag_scale, self.n = base, power, float(diag_scale), base.n
        self.argument = getattr(base, "argument", "K")

    def diag(self) -> np.ndarray:
        d = np.asarray(self.base.diag(), dtype=float)
        return (d**self.power if self.power != 1 else d) * self.diag_scale

    def columns(self, index: Sequence[int] | np.ndarray) -> np.ndarray:
        index = np.asarray(index, dtype=np.intp)
        cols = np.array(self.base.columns(index), dtype=float, copy=True)
        if self.power != 1:
            check_power_domain(cols, self.power, self.argument)
            cols **= self.power
            check_finite(cols, f"{_columns_label(index)} of {self.argument} ** {self.power:g}")
        if self.diag_scale != 1.0:
            cols[index, np.arange(len(index))] *= self.diag_scale
        return cols


def as_column_source(K: Any, argument: str = "K") -> ColumnSource:
    """A dense matrix becomes :class:`DenseColumns`; a :class:`ColumnSource` passes through."""
    if isinstance(K, ColumnSource) and not hasattr(K, "shape"):
        return K
    return DenseColumns(K, argument)


@dataclass
class LowRankFactor:
    """``K ~ factor @ factor.T``: ``factor`` is ``(n, rank)`` in the backend's namespace."""

    factor: Any
    pivots: np.ndarray
    trace: float
    residual_trace: float
    #: ``(what, value, scale)`` of the most negative residual diagonal entry seen, when it was
    #: below ``-PSD_RTOL * scale`` (only with ``check_psd=False``; else that raises)
    psd_violation: tuple[str, float, float] | None = None

    @property
    def rank(self) -> int:
        return int(self.pivots.shape[0])


def _check_settings(block_size: int, stale_ratio: float, precision: float) -> None:
    """Refuse block, staleness and precision settings :func:`pivoted_cholesky` cannot use."""
    if int(block_size) != block_size or block_size < 1:
        raise ValueError(f"block_size must be a positive integer, got {block_size!r}")
    if not 0 <= stale_ratio <= 1:
        raise ValueError(f"stale_ratio must be in [0, 1], got {stale_ratio!r}")
    if not (isinstance(precision, (int, float)) and 0 <= precision < 1):
        raise ValueError(f"precision must be a number in [0, 1), got {precision!r}")


def _checked_diagonal(source: ColumnSource, n: int, argument: str) -> np.ndarray:
    """The kernel's diagonal on the host: ``n`` finite entries, none visibly negative
    (:class:`~kcca.errors.KernelError`: a kernel's k(x, x) is >= 0)."""
    diag0 = np.asarray(to_numpy(source.diag()), dtype=float)
    if diag0.shape != (n,):
        raise ValueError(f"diagonal of {argument} has shape {diag0.shape}, expected ({n},)")
    check_finite(diag0, f"diagonal of {argument}")
    if (diag0 < -1e-12 * max(1.0, float(np.abs(diag0).max()))).any():
        i = int(np.argmin(diag0))
        raise KernelError(
            f"{argument} is not positive semi-definite: diagonal entry {i} is "
            f"{float(diag0[i]):.3g} (a kernel's k(x, x) is >= 0)",
            fix=NOT_PSD_FIX,
        )
    return diag0


def pivoted_cholesky(
    K: Any,
    *,
    precision: float = DEFAULT_PRECISION,
    max_rank: int | None = None,
    backend: str | None = "numpy",
    progress: bool = False,
    argument: str = "K",
    block_size: int = 64,
    stale_ratio: float = 0.1,
    check_psd: bool = True,
) -> LowRankFactor:
    """Greedy pivoted incomplete Cholesky ``K ~ G G'`` (partial Gram-Schmidt, Hardoon et al. 2004).

    ``K``: a dense symmetric PSD ``(n, n)`` matrix or a :class:`ColumnSource`. Stops when the
    residual trace ``trace(K - G G') <= precision * trace(K)``, at ``max_rank`` columns, or when
    the largest residual diagonal entry is at rounding level (``<= n * eps * max diag(K)``),
    i.e. at the numerical rank of ``K``. ``precision=0`` and ``max_rank=None`` give the full
    numerical rank. The factor is an array of ``backend`` (see :func:`kcca._backend.get_xp`).

    Pivots are chosen in blocks of ``block_size`` candidates (the largest residual diagonal
    entries, fetched as one block of columns and updated with one matrix product), greedily
    within a block; a block ends early when its best remaining candidate has fallen below
    ``stale_ratio`` times the largest residual diagonal. ``block_size=1`` is the classic
    one-column-at-a-time greedy algorithm. Any pivot order gives an exact partial Cholesky;
    blocking only changes which columns are taken, and saves memory traffic.

    A kernel that is visibly not positive semi-definite raises
    :class:`~kcca.errors.KernelError`: a negative diagonal entry, or a residual (Schur
    complement) diagonal entry below ``-PSD_RTOL * trace`` after some pivots (exactly ``>= 0``
    for a PSD kernel). This costs nothing beyond the factorisation, but it only sees the
    pivots taken: an indefinite part below the stopping precision goes unnoticed (the factor
    ``G G'`` itself is PSD by construction). Dense kernels get the complete check through
    the eigen factorisation of :mod:`kcca._solver`. ``check_psd=False`` records the worst
    violation in ``psd_violation`` instead of raising (the factor approximates the kernel's
    positive part; :mod:`kcca._solver` decides).

    Long by design: the blocked pivot loop updates one residual diagonal, factor buffer,
    candidate block and PSD check together per pivot, and split into steps it would hand all
    of that state back and forth on every column.
    """
    _check_settings(block_size, stale_ratio, precision)
    source = as_column_source(K, argument)
    n = int(source.n)
    if max_rank is not None and (int(max_rank) != max_rank or max_rank < 1):
        raise ValueError(f"max_rank must be a positive integer or None, got {max_rank!r}")
    limit = n if max_rank is None else min(int(max_rank), n)
    xp = get_xp(backend)

    diag0 = _checked_diagonal(source, n, argument)
    trace = float(diag0.sum())
    psd_scale = float(np.abs(diag0).sum())  # the residual diagonal of a PSD K stays >= 0
    floor = n * np.finfo(float).eps * max(float(diag0.max()), 0.0)
    stop_trace = precision * trace
    resid = diag0.copy()  # host copy of the residual diagonal drives the pivot choice
    violation: tuple[str, float, float] | None = None

    cap = min(limit, 256)
    Gt = xp.zeros((cap, n), dtype=xp.float64)  # row j = factor column j (contiguous)
    pivots: list[int] = []
    bar = tqdm(
        total=limit,
        desc=f"incomplete Cholesky of {argument}",
        disable=not progress,
        leave=False,
        unit="col",
    )
    j = 0
    while j < limit and float(resid.sum()) > stop_trace and float(resid.max()) > floor:
        # candidates: the largest residual diagonal entries; their residual columns come
        # from one block of kernel columns and one matrix product (BLAS-3)
        b = min(block_size, limit - j)
        cand = np.argsort(-resid, kind="stable")[:b]
        cand = cand[resid[cand] > floor]
        C = xp.asarray(
            np.asarray(to_numpy(source.columns(cand)), dtype=float).reshape(n, len(cand))
        )
        if j > 0:
            C = C - xp.linalg.matmul(
                xp.matrix_transpose(Gt[:j, :]), xp.take(Gt[:j, :], xp.asarray(cand), axis=1)
            )
        left = np.ones(len(cand), dtype=bool)
        while j < limit and left.any():
            if float(resid.sum()) <= stop_trace:
                break
            i = int(np.argmax(np.where(left, resid[cand], -np.inf)))
            piv = int(cand[i])
            d = float(resid[piv])
            # greedy within the block; a candidate made small by the others ends the block
            if d <= floor or d < stale_ratio * float(resid.max()):
                break
            g = C[:, i] / float(np.sqrt(d))
            if j == cap:
                grow = min(cap, limit - cap)
                Gt = xp.concat([Gt, xp.zeros((grow, n), dtype=xp.float64)], axis=0)
                cap += grow
            Gt[j, :] = g
            g_host = to_numpy(g)
            resid -= g_host * g_host
            resid[piv] = 0.0
            low = int(np.argmin(resid))
            if resid[low] < -PSD_RTOL * psd_scale:  # a Schur complement < 0: K is not PSD
                what = f"after {j + 1} pivots the residual diagonal entry {low}"
                if check_psd:
                    raise not_psd_error(argument, what, float(resid[low]), psd_scale)
                if violation is None or resid[low] < violation[1]:  # the worst one
                    violation = (what, float(resid[low]), psd_scale)
            np.maximum(resid, 0.0, out=resid)
            left[i] = False
            C = C - g[:, None] * xp.asarray(g_host[cand])[None, :]
            pivots.append(piv)
            j += 1
            bar.update(1)
    bar.close()
    factor = xp.matrix_transpose(Gt[:j, :])
    return LowRankFactor(
        factor=factor,
        pivots=np.asarray(pivots, dtype=np.intp),
        trace=trace,
        residual_trace=float(resid.sum()),
        psd_violation=violation,
    )
