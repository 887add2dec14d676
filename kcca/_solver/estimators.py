"""The estimators :class:`KCCA` and :class:`KCCAGrid` (Section 3.2.1, 4.1.3): parameters,
validation, fit, transform, pickling; the numbers come from :mod:`kcca._solver.factors` and
:mod:`kcca._solver.solve`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar, Iterator, Sequence

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import TransformerTags
from sklearn.utils.validation import check_is_fitted
from tqdm.auto import tqdm

from kcca._backend import get_xp, to_numpy
from kcca.errors import KernelError
from kcca._lowrank import (
    DEFAULT_PRECISION,
    ColumnSource,
    KernelRows,
    as_kernel_array,
    check_finite,
    check_power_domain,
)

from kcca._solver.factors import FACTORISATIONS, FactorCache, KernelSide, check_indefinite
from kcca._solver.solve import (
    KappaSolution,
    SolverCore,
    bases_needed,
    build_core,
    effective_kappas,
    solve_kappa,
)

#: the paper's regularisation values (Section 4.1.3)
PAPER_KAPPAS: tuple[float, ...] = (0.1, 0.5, 1.0, 5.0)


def paper_n_grid(low: int = 10, high: int = 6000, count: int = 46) -> np.ndarray:
    """The 46 values of n (Section 4.1.3): ``unique(round(geomspace(10, 6000, 46)))``.

    The paper does not list them; this rule gives exactly 46 distinct values
    (docs/paper-notes.md#dev-selection-and-borda-count).

    Parameters
    ----------
    low, high : int, default=10, 6000
        The smallest and largest value.
    count : int, default=46
        How many geometrically spaced values are rounded (duplicates are dropped).

    Returns
    -------
    ndarray of int
        The distinct values, ascending.

    Examples
    --------
    >>> from kcca._solver import paper_n_grid
    >>> grid = paper_n_grid()
    >>> len(grid), grid[:5].tolist(), int(grid[-1])
    (46, [10, 12, 13, 15, 18], 6000)
    """
    return np.unique(np.round(np.geomspace(low, high, count)).astype(int))


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


def _new_block(K_new: Any, n: int, power: float, xp: Any, argument: str) -> Any:
    """A new-by-train block as float64 of namespace ``xp`` (converted as training kernels
    are, :func:`kcca._lowrank.as_kernel_array`), checked and raised to ``power``."""
    arr = as_kernel_array(K_new, argument)
    if arr.ndim != 2 or arr.shape[1] != n:
        one_item = "; Reshape your data with .reshape(1, -1) if it is one new item's row"
        raise ValueError(
            f"{argument} must be a (n_new, n_train={n}) new-by-train block, "
            f"got shape {tuple(arr.shape)}{one_item if arr.ndim == 1 else ''}"
        )
    if isinstance(arr, np.ndarray):
        check_finite(arr, argument)
    elif not bool(xp.all(xp.isfinite(arr))):
        raise ValueError(f"{argument} has a NaN or infinite entry")
    arr = xp.asarray(arr, dtype=xp.float64)
    if power != 1:
        check_power_domain(arr, power, argument, xp)
        arr = arr**power
        if not bool(xp.all(xp.isfinite(arr))):
            raise KernelError(
                f"{argument} ** {power:g} has a non-finite entry (the power overflows float64)",
                fix="normalise the kernel: divide it, the training kernel and kappa by the "
                "training kernel's largest diagonal entry",
            )
    return arr


# --------------------------------------------------------------------------- estimators


def _is_array(x: Any) -> bool:
    """True for an array of any backend (not for a NumPy scalar or a Python number)."""
    return isinstance(x, np.ndarray) or (
        hasattr(x, "__array_namespace__") and not isinstance(x, (np.generic, int, float))
    )


def _map_arrays(obj: Any, fn: Any, xp: Any) -> Any:
    """``obj`` with every array inside it mapped by ``fn``: the solver's dataclasses (a
    :class:`SolverCore` gets namespace ``xp``; its cached rows are dropped), lists and tuples."""
    if _is_array(obj):
        return fn(obj)
    if isinstance(obj, SolverCore):
        return replace(
            obj, p=_map_arrays(obj.p, fn, xp), q=_map_arrays(obj.q, fn, xp), A=fn(obj.A), xp=xp
        )
    if isinstance(obj, (KernelSide, KappaSolution)):  # a solution's correlations stay NumPy
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


@dataclass(eq=False, repr=False, kw_only=True)
class _Estimator(BaseEstimator):
    """What :class:`KCCA` and :class:`KCCAGrid` share: the keyword-only parameters both take,
    declared once (the dataclass ``__init__`` stores each argument unchanged, scikit-learn's
    rule; they are checked in ``fit``), the factored kernel pair a fit starts from
    (:meth:`_core`), pickling with host arrays and the backend's name, the precomputed-kernel
    tags and :meth:`transform` of either view."""

    precision: float = DEFAULT_PRECISION
    rank: int | None = None
    power_x: float = 1
    power_y: float = 1
    diag_x: float = 1.0
    diag_y: float = 1.0
    rescale: str | None = None
    backend: str = "numpy"
    progress: bool = False
    factorisation: str = "auto"
    indefinite: str = "raise"

    def _core(self, Kx: Any, Ky: Any, cache: FactorCache | None = None) -> SolverCore:
        """Check the parameters both estimators take and factor the training kernels
        (:func:`kcca._solver.solve.build_core`), sharing factors through ``cache``."""
        _check_common(
            self.power_x, self.power_y, self.diag_x, self.diag_y, self.rescale, self.factorisation
        )
        return build_core(
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
            cache=cache,
            factorisation=self.factorisation,
            indefinite=check_indefinite(self.indefinite),
        )

    #: fitted attributes that hold backend arrays (host NumPy arrays in a pickle)
    _array_attributes: ClassVar[tuple[str, ...]] = ()
    #: attributes a pickle leaves out (memos)
    _transient_attributes: ClassVar[tuple[str, ...]] = ()

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
        tags.input_tags.sparse = True  # a scipy.sparse kernel is taken (made dense)
        tags.target_tags.required = True  # the second view (fit's Ky) is not optional
        tags.transformer_tags = TransformerTags()  # transform gives float64 projections
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


@dataclass(eq=False, repr=False)
class KCCA(_Estimator):
    """Regularised kernel CCA (eq. 3) on precomputed training kernels, scikit-learn style.

    ``fit(Kx, Ky)`` takes the two views' train x train kernels; ``transform(Kx_test,
    Ky_test)`` projects test-by-train blocks of either view (eq. 4 ranks by the cosine of
    those projections); ``score(Kx_test, Ky_test)`` is the mean canonical correlation of
    held-out pairs. Clones, pickles and raises ``NotFittedError`` as scikit-learn estimators
    do (module docstring). Kernels of other real types (float16 / float32, bool, integers,
    sparse, lists) are converted exactly to float64; what cannot be is a
    :class:`~kcca.errors.KernelError` (:func:`kcca._lowrank.as_kernel_array`).

    Parameters
    ----------
    kappa : float, default=0.1
        The regulariser of eq. 3 (``kappa * a' K a`` on the kernels as given), > 0.
    n_components : int, default=10
        Number of canonical directions kept (largest correlations first).
    precision : float, default=1e-5
        Truncation of each kernel's factor, relative to its trace: the dropped eigenvalues
        (``"eigen"``) or the residual trace of the incomplete Cholesky (``"cholesky"``,
        :func:`kcca._lowrank.pivoted_cholesky`) sum to at most ``precision * trace(K)``;
        ``0`` keeps the numerical rank.
    rank : int or None, default=None
        Optional cap on each factor's rank.
    power_x, power_y : float, default=1
        Entry-wise power of the kernel (the paper's image p in {2, 3}).
    diag_x, diag_y : float, default=1.0
        Factor on the training Gram's diagonal (the paper's text d in [1, 15]); new-by-train
        blocks are not changed by it.
    rescale : {None, "trace", "top_eigenvalue"}, default=None
        ``None`` is eq. 3 exactly; the opt-in ``"trace"`` / ``"top_eigenvalue"`` divide each
        training kernel by that number, i.e. multiply kappa by it per view.
    backend : {"numpy", "cupy", "auto", "array_api_strict"}, default="numpy"
        The array backend of the fit and the projections.
    progress : bool, default=False
        Show tqdm bars (on stderr) for the factorisations, and in :class:`KCCAGrid` for the
        solve of each kappa.
    factorisation : {"auto", "eigen", "cholesky"}, default="auto"
        ``"eigen"``: one dense ``eigh`` of the centred kernel (the best approximation of
        each rank, BLAS-3, the fastest route for dense kernels); ``"cholesky"``: pivoted
        incomplete Cholesky (only the pivot columns of ``K`` are computed, memory
        ``O(n r)``, for kernels given as columns on demand); ``"auto"``: ``"eigen"`` for
        dense arrays, ``"cholesky"`` for column sources
        (:class:`kcca._lowrank.ColumnSource`).
    indefinite : {"raise", "psd-part"}, default="raise"
        What a fit does with a training kernel that is not positive semi-definite (an
        eigenvalue of its centred form below ``-kcca._lowrank.PSD_RTOL * trace``): ``"raise"``
        refuses it with a :class:`~kcca.errors.KernelError` (eq. 3 needs PSD kernels);
        ``"psd-part"`` fits on the positive part of the centred kernel, for kernels that are
        not PSD in theory (``Kernel.positive_semidefinite = False``: the soft trigram kernel
        through a thresholded or max-combined word kernel, Section 4.1.2, footnote 4).

    Attributes
    ----------
    correlations_ : ndarray of shape (n_components,)
        Canonical correlations lambda (not lambda^2), descending (NumPy, on the host).
    x_weights_, y_weights_ : array of shape (n_train, n_components)
        Dual directions alpha, beta (arrays of ``backend_``).
    x_offset_, y_offset_ : array of shape (n_components,)
        Training means of the projections (the centring of new blocks).
    rank_x_, rank_y_ : int
        Ranks of the two kernels' factors.
    n_directions_ : int
        Directions available (at most the smaller rank).
    n_train_ : int
        Training items.
    backend_ : str
        The array backend's name (``"auto"`` resolved).

    See Also
    --------
    KCCAGrid : every (kappa, n_components) model of a grid from one factorisation.

    Examples
    --------
    Linear kernels of random features; the second view is a noisy map of three of the
    first view's eight features:

    >>> import numpy as np
    >>> from kcca import KCCA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 8))
    >>> Y = X[:, :3] @ rng.normal(size=(3, 6)) + 0.1 * rng.normal(size=(60, 6))
    >>> Kx, Ky = X[:40] @ X[:40].T, Y[:40] @ Y[:40].T   # train x train
    >>> Kx_test, Ky_test = X[40:] @ X[:40].T, Y[40:] @ Y[:40].T   # test x train
    >>> model = KCCA(kappa=1.0, n_components=3).fit(Kx, Ky)
    >>> print(model.correlations_.round(2))
    [0.98 0.98 0.97]
    >>> zx, zy = model.transform(Kx_test, Ky_test)
    >>> zx.shape, zy.shape
    ((20, 3), (20, 3))
    >>> print(round(model.score(Kx_test, Ky_test), 2))
    1.0
    """

    kappa: float = 0.1
    n_components: int = 10

    _array_attributes = ("x_weights_", "y_weights_", "x_offset_", "y_offset_")

    def fit(self, Kx: Any, Ky: Any) -> "KCCA":
        """Fit on train x train kernels (dense arrays or :class:`kcca._lowrank.ColumnSource`)."""
        kappa = _check_kappa(self.kappa)
        k = _check_positive_int(self.n_components, "n_components")
        core = self._core(Kx, Ky)
        if k > core.n_directions:
            raise ValueError(
                f"n_components={k} exceeds the rank of the problem "
                f"({core.n_directions} directions; "
                f"factor ranks Kx {core.p.rank if not core.swapped else core.q.rank}, "
                f"Ky {core.q.rank if not core.swapped else core.p.rank}): lower n_components or "
                "the precision"
            )
        kx, ky = effective_kappas(core, kappa, self.rescale)
        sol = solve_kappa(core, kx, ky, k)
        self._set_solution(core, sol)
        return self

    def _set_solution(self, core: SolverCore, sol: KappaSolution) -> None:
        self.backend_ = core.backend
        self.n_train_ = core.n
        self.correlations_ = sol.correlations
        for view in ("x", "y"):
            role = core.role(view)
            identity = {v: core.side(v).U for v in bases_needed(core, role)}
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


@dataclass(eq=False, repr=False)
class KCCAGrid(_Estimator):
    """Every (kappa, n_components) model of a grid from one factorisation (Section 4.1.3).

    One factorisation per kernel (by default, ``factorisation="auto"``, one eigendecomposition
    of each dense training kernel; an incomplete Cholesky for kernels given as columns on
    demand) and one ``r x r`` eigenproblem per kappa; the model with ``n`` components is the
    first ``n`` directions of its kappa's solve. Values of ``n_components`` above the number
    of directions are dropped (capped at the rank), so the default paper grid gives up to
    4 x 46 = 184 models.

    ``transform(Kx_test, Ky_test)`` is ``(transform_x(Kx_test), transform_y(Ky_test))``: per
    view, one (n_test, max n) block per kappa (``None`` for a view not given);
    ``fit_transform`` as :class:`KCCA`. Clones, pickles and raises ``NotFittedError`` as
    scikit-learn estimators do (module docstring).

    Parameters
    ----------
    kappas : float or sequence of float, default=PAPER_KAPPAS
        The regularisers of eq. 3 (the paper's 0.1, 0.5, 1, 5); a single number is a
        one-value grid.
    n_components : int, sequence of int or None, default=None
        The numbers of directions of the grid's models; ``None`` is the paper's 46 values
        (:func:`paper_n_grid`); a single number is a one-value grid.
    factor_cache : FactorCache or None, default=None
        A :class:`~kcca._solver.factors.FactorCache` shared by several fits on the same
        kernels (the (p, d) search), so each factor is computed once; the numbers are the
        same without it (``clone`` keeps sharing it; a pickled cache is empty).
    precision, rank, power_x, power_y, diag_x, diag_y, rescale, backend, progress, \
factorisation, indefinite
        As :class:`KCCA` (keyword-only; ``factorisation="auto"`` and
        ``indefinite="raise"`` by default).

    Attributes
    ----------
    kappas_ : tuple of float
        The grid's kappas.
    n_components_ : ndarray of int
        The kept values of ``n_components``, ascending.
    correlations_ : ndarray of shape (n_kappas, max n)
        Canonical correlations of each kappa's solve, descending.
    models_ : list of (float, int)
        The grid's models ``(kappa, n)``.
    n_directions_ : int
        Directions available (at most the smaller factor rank).
    backend_ : str
        The array backend's name (``"auto"`` resolved).

    See Also
    --------
    KCCA : one model; :meth:`model` gives the grid's model at one point as a ``KCCA``.

    Examples
    --------
    >>> import numpy as np
    >>> from kcca import KCCAGrid
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 8))
    >>> Y = X[:, :3] @ rng.normal(size=(3, 6)) + 0.1 * rng.normal(size=(60, 6))
    >>> Kx, Ky = X[:40] @ X[:40].T, Y[:40] @ Y[:40].T
    >>> grid = KCCAGrid(kappas=[0.1, 1.0], n_components=[1, 3]).fit(Kx, Ky)
    >>> grid.models_
    [(0.1, 1), (0.1, 3), (1.0, 1), (1.0, 3)]
    >>> [block.shape for block in grid.transform_x(X[40:] @ X[:40].T)]  # one per kappa
    [(20, 3), (20, 3)]
    >>> print(grid.model(1.0, 3).correlations_.round(2))
    [0.98 0.98 0.97]
    """

    kappas: Sequence[float] = PAPER_KAPPAS
    n_components: Sequence[int] | None = None
    factor_cache: FactorCache | None = field(default=None, kw_only=True)

    _array_attributes = ("core_", "solutions_")
    _transient_attributes = ("_last_projection",)

    def fit(self, Kx: Any, Ky: Any) -> "KCCAGrid":
        """Fit every grid model on train x train kernels (dense or column sources)."""
        kappas = tuple(_check_kappa(k, "kappas") for k in _grid_values(self.kappas, "kappas"))
        grid = (
            paper_n_grid()
            if self.n_components is None
            else _grid_values(self.n_components, "n_components")
        )
        grid = np.unique([_check_positive_int(v, "n_components") for v in grid])
        core = self._core(Kx, Ky, cache=self.factor_cache)
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
            solve_kappa(core, *effective_kappas(core, k, self.rescale), kmax)
            for k in tqdm(
                kappas,
                desc=f"KCCA solve ({core.n} training items, kappa)",
                unit="kappa",
                leave=False,
                disable=not self.progress,
            )
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
        if isinstance(K_new, KernelRows):  # rows on demand: projected block by block
            xp = self.core_.xp
            parts = [
                self._project_all(_new_block(b, self.core_.n, power, xp, f"K{view}_new"), view)
                for _, b in K_new.blocks()
            ]
            out = [xp.concat([part[i] for part in parts]) for i in range(len(self.solutions_))]
            memo[view] = (K_new, out)
            return list(out)
        K = _new_block(K_new, self.core_.n, power, self.core_.xp, f"K{view}_new")
        out = self._project_all(K, view)
        memo[view] = (K_new, out)
        return list(out)

    def _project_all(self, K: Any, view: str) -> list[Any]:
        core = self.core_
        role = core.role(view)
        # K U_v once per view, shared by every kappa
        KG = {v: core.basis(K, v) for v in bases_needed(core, role)}
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
