"""The kernel contract (docs/design.md#kernel-contract) and the registry that names kernels.

A kernel is fitted on training items, then evaluates blocks:
``fit(train_items) -> self``; ``gram(items_a, items_b=None)`` (``None`` = the training
items); ``diag(items)``. It has a stable ``name`` and ``params`` (for cache keys and
reports). A multi-caption item (five captions of one training image) is one item.

New kernels plug in by ``@register_kernel("name")`` in a module an experiment file names
(``plugins = ["my_module"]``, :mod:`kcca._systems.spec`) or through the entry-point group
``kcca.kernels`` of an installed package (loaded lazily, when a kernel of that name is first
asked for); experiment files then refer to them by name. docs/plugin-kernels.md has a worked
example (examples/colour_moments/).

What a system passes a kernel (:class:`kcca._systems.blocks.Workspace`) depends on the class
attribute ``item_type``: ``"image-features"`` (image kernels: one
:class:`~features._image_features.ImageFeatures` record per image, the default for an image
kernel), ``"image-pixels"`` (image kernels: one RGB ``uint8`` array (H, W, 3) per image,
loaded lazily), ``"text"`` (token lists; a training item is the five token lists of one
image) or ``"ids"`` (either side: image ids, or caption ids with a training item the tuple of
one image's caption ids; :mod:`features.kernels._vectors`). Image kernels may take a power
``p``; systems fit them with ``p = 1`` and the solver applies the grid's p to the block.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any, Callable, Mapping, Sequence, TypeVar

import numpy as np
from sklearn.base import BaseEstimator

from kcca._lowrank import check_power_domain
from kcca.errors import KernelError, SettingError

ENTRY_POINT_GROUP = "kcca.kernels"

_REGISTRY: dict[str, type["Kernel"]] = {}

K = TypeVar("K", bound=type["Kernel"])


class Kernel(BaseEstimator):
    """Base class: subclasses set ``name`` and implement ``fit``, ``_gram`` and ``diag``.

    Parameters are constructor arguments stored unchanged (scikit-learn convention), so
    ``params`` (= ``get_params()``) identifies the kernel for caches and reports. The
    contract, and how a plug-in kernel is registered and used from an experiment file, is in
    docs/plugin-kernels.md.

    Attributes
    ----------
    name : str
        The registered name (set by :func:`register_kernel`).
    item_type : {"image-features", "image-pixels", "text", "ids"} or None
        What a system passes as items (module docstring); None: not declared (built-in
        kernels).
    positive_semidefinite : bool
        Whether every Gram matrix is positive semi-definite in theory (eq. 3 needs it); a
        kernel that says False is fitted by KCCA on the positive part of its training kernel
        (``KCCA(indefinite="psd-part")``).
    execution_params : tuple of str
        Parameters that change how, not what, is computed (left out of cache keys).
    run_inputs : tuple of str
        Parameters a system supplies as fitted objects of the run (the word kernel).
    path_params : tuple of str
        Parameters that name files (the ``vectors`` kernel's ``path``): given in an experiment
        file, each must lie inside the experiments folder, a relative one read from the
        file's folder, which a kernel declaring them takes as its ``folder`` parameter.
    train_items_ : sequence
        The training items, set by :meth:`fit`.

    Examples
    --------
    A linear kernel on vectors; ``gram`` with one argument is the block against the
    training items:

    >>> import numpy as np
    >>> from features.kernels import Kernel
    >>> class Linear(Kernel):
    ...     def __init__(self, scale=1.0):
    ...         self.scale = scale
    ...     def _gram(self, items_a, items_b):
    ...         return self.scale * np.asarray(items_a, float) @ np.asarray(items_b, float).T
    >>> kernel = Linear(scale=2.0).fit([[1, 0], [0, 1]])
    >>> kernel.gram([[1, 2]])
    array([[2., 4.]])
    >>> kernel.diag([[1, 2]]), kernel.params
    (array([10.]), {'scale': 2.0})
    """

    name: str = "kernel"
    #: the items a system passes (module docstring); None: not declared (built-in kernels)
    item_type: str | None = None
    #: whether every Gram matrix of the kernel is positive semi-definite in theory (eq. 3 needs
    #: it). A kernel that is not (a soft match through a thresholded or max-combined word
    #: similarity, footnote 4) says so, and KCCA uses the positive part of its training
    #: kernel instead of refusing it; a PSD kernel whose Gram matrix is not PSD is an error.
    positive_semidefinite: bool = True
    #: constructor parameters that change how, not what, is computed (array backend, threads,
    #: progress bars, one of several engines giving the same numbers): a system sets them from
    #: its execution settings (:func:`with_execution`) and cache keys leave them out
    #: (:func:`numeric_params`)
    execution_params: tuple[str, ...] = ()
    #: constructor parameters a system supplies as fitted objects of the run (the word kernel of
    #: Section 3.5); cache keys record them by the run's own description, not by value
    run_inputs: tuple[str, ...] = ()
    #: constructor parameters that name files: in an experiment file each must lie inside the
    #: experiments folder, and a relative one is read from the file's folder (given to the
    #: kernel as its ``folder`` parameter) (:class:`kcca._systems.spec.KernelSpec`)
    path_params: tuple[str, ...] = ()

    @classmethod
    def named_files(cls, params: Mapping[str, Any]) -> dict[str, str]:
        """The files that ``params`` (constructor parameters) name, by parameter: those of
        :attr:`path_params` that are given as strings."""
        return {p: params[p] for p in cls.path_params if isinstance(params.get(p), str)}

    def fit(self, train_items: Sequence[Any]) -> "Kernel":
        self.train_items_ = train_items
        return self

    def gram(self, items_a: Sequence[Any], items_b: Sequence[Any] | None = None) -> np.ndarray:
        """Kernel block ``K[i, j] = k(items_a[i], items_b[j])``; ``items_b=None``: training
        items. ``gram(train_items)`` hands ``_gram`` the same object on both sides, so a kernel
        can compute that block symmetric (``items_a is items_b``)."""
        if items_b is None:
            self._check_fitted()
            items_b = self.train_items_
        out = self._gram(items_a, items_b)
        check_kernel_block(out, (len(items_a), len(items_b)), self.name)
        return out

    def _gram(self, items_a: Sequence[Any], items_b: Sequence[Any]) -> np.ndarray:
        raise NotImplementedError

    def gram_train(self) -> np.ndarray:
        """The train x train kernel, from the fitted training representation."""
        self._check_fitted()
        return self.gram(self.train_items_)

    def diag(self, items: Sequence[Any]) -> np.ndarray:
        """``k(x, x)`` for each item (default: the diagonal of the square block)."""
        return np.diag(self._gram(items, items)).copy()

    @property
    def params(self) -> dict[str, Any]:
        """The parameters that fix the numbers (:func:`numeric_params`)."""
        return numeric_params(self)

    def input_files(self) -> dict[str, str]:
        """Files the kernel reads besides its items, by role: their content is part of every
        cache key of its blocks (default: none)."""
        return {}

    def _check_fitted(self) -> None:
        if not hasattr(self, "train_items_"):
            raise RuntimeError(f"kernel {self.name!r} is not fitted: call fit(train_items) first")


def numeric_params(kernel: Any) -> dict[str, Any]:
    """A kernel's parameters that fix its numbers: ``get_params()`` without the
    ``execution_params`` and ``run_inputs`` its class declares (what cache keys record)."""
    left_out = {*getattr(kernel, "execution_params", ()), *getattr(kernel, "run_inputs", ())}
    return {k: v for k, v in kernel.get_params(deep=False).items() if k not in left_out}


def with_execution(kernel: Any, **settings: Any) -> Any:
    """Set on ``kernel`` those of ``settings`` (``backend``, ``n_jobs``, ``progress``, ...) that
    its class declares in ``execution_params``; the others do not apply to it. Returns it."""
    taken = {k: v for k, v in settings.items() if k in getattr(kernel, "execution_params", ())}
    if taken:
        kernel.set_params(**taken)
    return kernel


def check_kernel_block(block: Any, shape: tuple[int, int], name: str) -> None:
    """Validate a computed kernel block: right shape, finite values."""
    if tuple(block.shape) != tuple(shape):
        raise KernelError(
            f"kernel {name!r} returned a block of shape {block.shape}, expected {shape}"
        )
    arr = np.asarray(block) if isinstance(block, np.ndarray) else None
    if arr is not None and not np.isfinite(arr).all():
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise KernelError(
            f"kernel {name!r} produced a non-finite value at ({bad[0]}, {bad[1]}): check the "
            "input features of those items (empty captions or images with no descriptors?)"
        )


def entrywise_power(block: np.ndarray, p: Any, name: str) -> np.ndarray:
    """``block ** p`` entry-wise, as the solver applies the image power p (eq. 6). An integer
    p keeps a positive semi-definite kernel so (Schur product theorem); a fractional p is
    refused on negative entries (signed kernels such as Fisher-vector dot products)."""
    p = float(p)
    if not np.isfinite(p) or p <= 0:
        raise SettingError(f"kernel {name!r}: exponent p must be a positive number, got {p!r}")
    if p == 1.0:
        return block
    check_power_domain(np.asarray(block), p, f"the block of kernel {name!r}")
    return block**p


def register_kernel(name: str) -> Callable[[K], K]:
    """Class decorator: make a kernel available to ``make_kernel(name)`` and experiment files.

    Registering another class under a taken name is an error, except the same class again
    (same module and qualified name, as when a plug-in module is re-imported).

    Parameters
    ----------
    name : str
        The name experiment files use (``[image_kernel] name = ...``); it becomes the
        class's ``name``.

    Returns
    -------
    callable
        The decorator; it registers the class and returns it unchanged.

    Raises
    ------
    ValueError
        If another class is registered under ``name``.

    Examples
    --------
    >>> import numpy as np
    >>> from features.kernels import Kernel, make_kernel, register_kernel
    >>> @register_kernel("doc-dot")
    ... class Dot(Kernel):
    ...     def _gram(self, items_a, items_b):
    ...         return np.asarray(items_a, float) @ np.asarray(items_b, float).T
    >>> Dot.name, type(make_kernel("doc-dot")).__name__
    ('doc-dot', 'Dot')
    >>> register_kernel("bow")(Dot)
    Traceback (most recent call last):
    ...
    ValueError: a kernel named 'bow' is already registered (...)
    """

    def deco(cls: K) -> K:
        old = _REGISTRY.get(name)
        if old is not None and old is not cls and _qualname(old) != _qualname(cls):
            raise ValueError(f"a kernel named {name!r} is already registered ({old})")
        _REGISTRY[name] = cls
        cls.name = name
        return cls

    return deco


def _qualname(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def registered_kernels() -> dict[str, str]:
    """Every kernel registered so far: name -> the module its class is defined in."""
    return {name: cls.__module__ for name, cls in _REGISTRY.items()}


# Modules whose import registers the built-in kernels (image and text).
BUILTIN_MODULES = (
    "features.kernels._image",
    "features.kernels._fisher",
    "features.kernels._mixture",
    "features.kernels._vectors",
    "features.text._bow_kernel",
    "features.text._tagrank_kernel",
    "features.text._trigram_kernel",
    "features.text._f1_similarity",
)


def _load_builtins() -> None:
    import importlib

    for module in BUILTIN_MODULES:
        importlib.import_module(module)


def _plugin_entry_points() -> dict[str, Any]:
    """Entry points of the group ``kcca.kernels`` by name (not loaded)."""
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def _load_entry_point(ep: Any) -> None:
    """Import one plug-in entry point and register its kernel under the entry point's name.

    The entry point may name a :class:`Kernel` subclass (registered here) or a module whose
    import registers the kernel itself with :func:`register_kernel`.
    """
    from kcca.errors import PluginError

    where = f"kernel plug-in {ep.name!r} (entry point {ep.value!r} of group {ENTRY_POINT_GROUP!r}"
    dist = getattr(getattr(ep, "dist", None), "name", None)
    where += f", package {dist!r})" if dist else ")"
    try:
        obj = ep.load()
    except Exception as exc:
        raise PluginError(
            f"{where} failed to import: {type(exc).__name__}: {exc}",
            fix=(
                f"install what the plug-in needs or reinstall it (pip install --force-reinstall "
                f"{dist or 'PACKAGE'}), or uninstall it if it is not wanted; run with "
                "--verbose for the import traceback"
            ),
        ) from exc
    if isinstance(obj, type) and issubclass(obj, Kernel):
        register_kernel(ep.name)(obj)
    elif ep.name not in _REGISTRY:
        raise PluginError(
            f"{where} loaded, but it is not a Kernel subclass and did not register a kernel "
            f"named {ep.name!r}",
            fix="point the entry point at the kernel class (module:Class), or decorate the "
            f"class with @register_kernel({ep.name!r}) in the module it names",
        )


def available_kernels() -> list[str]:
    """Names of every registered kernel: built-ins, registered plug-ins and entry points.

    Entry points are listed by name without importing them (a broken plug-in shows up only
    when its kernel is asked for).

    Returns
    -------
    list of str
        The names, sorted.

    Examples
    --------
    >>> from features.kernels import available_kernels
    >>> {"bow", "histogram", "mix", "pyramid", "tagrank", "trigram"} <= set(available_kernels())
    True
    """
    _load_builtins()
    return sorted(set(_REGISTRY) | set(_plugin_entry_points()))


def kernel_class(name: str) -> type[Kernel]:
    """The class registered as ``name``, importing a plug-in entry point of that name if needed.

    Raises :class:`kcca.errors.UnknownNameError` (a ``KeyError``) naming close matches, or
    :class:`kcca.errors.PluginError` when the plug-in providing ``name`` fails to import.
    """
    if name not in _REGISTRY:
        _load_builtins()
    if name not in _REGISTRY:
        ep = _plugin_entry_points().get(name)
        if ep is not None:
            _load_entry_point(ep)
    if name not in _REGISTRY:
        from kcca.errors import unknown_name

        raise unknown_name(
            "kernel",
            name,
            available_kernels(),
            fix="use a registered kernel name, or register yours: name its module in the "
            'experiment file (plugins = ["my_module"]) or install a package with a '
            f"{ENTRY_POINT_GROUP!r} entry point (docs/plugin-kernels.md)",
        )
    return _REGISTRY[name]


def make_kernel(name: str, **params: Any) -> Kernel:
    """Instantiate a registered kernel by name with its parameters.

    Parameters
    ----------
    name : str
        A registered name (:func:`available_kernels`); a plug-in entry point of that name is
        imported on first use.
    **params
        The kernel's constructor arguments.

    Returns
    -------
    Kernel
        The kernel, not fitted.

    Raises
    ------
    kcca.errors.UnknownNameError
        A ``KeyError`` naming close matches, for an unknown name.
    kcca.errors.PluginError
        When the plug-in providing ``name`` fails to import.

    Examples
    --------
    >>> from features.kernels import make_kernel
    >>> make_kernel("trigram", weighting="sqrt-idf").params["weighting"]
    'sqrt-idf'
    """
    return kernel_class(name)(**params)
