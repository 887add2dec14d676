"""Declarative description of one system of the paper (Table 11), loadable from TOML or JSON.

A system is a kernel pair plus a model (Section 4.1): an image kernel (``pyramid`` K^PY or
``histogram`` K^HISTO, Section 3.3), a text kernel (``bow``, ``tagrank``, ``trigram``; Sections
3.4-3.5) with an optional word kernel (Lin, distributional, alignment, eq. 17-27), the text
preprocessing preset (Section 4.1.1), and either KCCA with its grid (kappa x n, Section 4.1.3,
and the kernel-pair settings p and d) or the nearest-neighbour baseline (eq. 2).

Experiment file (TOML; JSON with the same keys also works)::

    name = "TRI5^sqrtidf_A,D(BNC+ic)"      # the paper's name, ASCII (paper_tables.SYSTEMS)
    short_name = "TRI5SEM"                  # Section 4's name, when it has one
    model = "kcca"                          # or "nn"
    preprocessing = "auto"                  # a features.text preset; auto = corpus default
    word_kernel = "dist-avg+align"          # features.text._word_kernels.WORD_KERNELS, or absent

    [image_kernel]
    name = "pyramid"                        # a registered kernel
    params = {}                             # p is NOT given here: it is the p grid below

    [text_kernel]
    name = "trigram"
    params = {weighting = "sqrt-idf"}

    [grid]                                  # KCCA only; every key optional (paper defaults)
    p = [2, 3]
    d = [1, 2, 3, 5, 8, 10, 15]
    kappas = [0.1, 0.5, 1.0, 5.0]
    n = "paper"                             # paper_n_grid(), capped at the rank; or a list;
                                            # or "geometric:5:30" (30 values from 5 to the
                                            # number of training images, rounded)
    search_rank = 1000                      # optional: (p, d) searched with rank-capped factors

A top-level ``plugins = ["my_kernels"]`` names modules imported before the kernels are built:
their ``@register_kernel("name")`` classes become usable as ``[image_kernel]`` /
``[text_kernel]`` names (a module name is looked up beside the experiment file first, then on
the Python path; docs/plugin-kernels.md). Mistakes (TOML syntax, unknown keys, wrong types,
unknown kernel names) raise :class:`ExperimentFileError` naming the file, line or key. Every
key, its type, default and bound is declared once in :mod:`kcca._systems.spec_keys`, which the
checks read and from which the key table of ``experiments/README.md`` is generated.

An NN system lists alternative text kernels as ``[[text_kernels]]`` tables when the paper
picks the best one on dev (NN5_TRI(best)).
"""

from __future__ import annotations

import math
import sys
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from kcca.data._errors import DataError
from kcca.data._paths import inside
from kcca.data._documents import parse_json, parse_toml
from kcca.data._text_files import read_utf8
from kcca.errors import PluginError, did_you_mean, type_name, unknown_name
from kcca._solver import PAPER_KAPPAS, paper_n_grid
from kcca._systems.spec_keys import (
    GRID_KEYS,
    KERNEL,
    KERNEL_KEYS,
    COMBINES,
    MODELS,
    PAPER_D,
    PAPER_P,
    TOP_KEYS,
    FileKey,
)

#: each grid's bound (what a value must be, the test): image kernel powers p and diagonal
#: scales d (Section 4.1.3: d in [1, 15]) and the regularisers kappa (eq. 3), from
#: :data:`kcca._systems.spec_keys.GRID_KEYS`
GRID_BOUNDS: dict[str, tuple[str, Callable[[float], bool]]] = {
    k.name: (k.bound, k.within) for k in GRID_KEYS if k.within is not None
}


def within_grid_bound(name: str, value: float) -> bool:
    """Whether ``value`` is finite and within the bound of grid ``name`` (:data:`GRID_BOUNDS`)."""
    return math.isfinite(value) and GRID_BOUNDS[name][1](value)


#: every top-level key of an experiment file
KNOWN_KEYS = tuple(k.name for k in TOP_KEYS)
FORMAT_HELP = (
    "the format is described in kcca/_systems/spec.py (module docstring); "
    "experiments/hodosh2013/*.toml are examples"
)


class ExperimentFileError(DataError):
    """A malformed experiment file: TOML/JSON syntax, unknown keys, wrong types or names."""

    fix = f"edit the experiment file: {FORMAT_HELP}"


def geometric_n(rule: str) -> tuple[int, int]:
    """``(start, count)`` of a ``"geometric:START:COUNT"`` n grid: ``COUNT`` values on a
    geometric scale from ``START`` to the number of training images, rounded, duplicates
    dropped (Section 4.1.3's n at a corpus size the paper's grid does not fit)."""
    parts = rule.split(":")
    try:
        start, count = int(parts[1]), int(parts[2])
        ok = len(parts) == 3 and parts[0] == "geometric" and start >= 1 and count >= 1
    except (IndexError, ValueError):
        ok = False
    if not ok:
        raise DataError(
            f"grid n must be 'paper', 'geometric:START:COUNT' or a list of integers, got {rule!r}",
            fix='write n = "paper", n = "geometric:5:30" (30 values from 5 to the training '
            "size) or n = [5, 10, 20]",
        )
    return start, count


@dataclass(frozen=True)
class KernelSpec:
    """A registered kernel by name and its constructor parameters.

    ``folder`` is the folder of the experiment file that names the kernel: a kernel whose
    parameters name files (its class's ``path_params``, the ``vectors`` kernel's ``path``)
    reads relative ones from there (its ``folder`` parameter; :func:`load_spec`). It is not
    one of the kernel's parameters in :meth:`as_dict`, nor in cache keys, which hold the
    files' content."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)
    folder: str | None = field(default=None, compare=False, repr=False)

    def build(self, **overrides: Any):
        """Instantiate the kernel through the registry (``features.kernels._base``)."""
        from kcca._systems.registry import make_any_kernel

        kernel = make_any_kernel(self.name, **{**dict(self.params), **overrides})
        path_params = getattr(kernel, "path_params", None)
        if self.folder is not None and path_params:
            kernel.set_params(folder=self.folder)
        return kernel

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "params": dict(self.params)}


@dataclass(frozen=True)
class GridSpec:
    """The KCCA settings searched on dev: p, d (per kernel pair), kappa and n (per model)."""

    p: tuple[float, ...] = PAPER_P
    d: tuple[float, ...] = PAPER_D
    kappas: tuple[float, ...] = PAPER_KAPPAS
    n: tuple[int, ...] | str = "paper"
    #: when set, the (p, d) search on dev uses factors truncated to this rank (the best
    #: approximation of that rank, sliced from one eigendecomposition per kernel) and only the
    #: chosen (p, d) is refitted at full precision; None: every (p, d) at full precision
    search_rank: int | None = None

    def n_values(self, n_train: int | None = None) -> np.ndarray:
        """The n grid before capping at the rank (the solver drops values above it);
        ``n_train``, the number of training images, ends a ``"geometric:START:COUNT"`` grid."""
        if self.n == "paper":
            return paper_n_grid()
        if isinstance(self.n, str):
            start, count = geometric_n(self.n)
            if n_train is None:
                raise DataError(
                    f"grid n {self.n!r} ends at the number of training images: not given",
                    fix="call n_values(n_train) or for_training_size(n_train) first",
                )
            if n_train < start:
                raise DataError(
                    f"grid n {self.n!r} starts at {start}, above the {n_train} training images",
                    fix=f"use {start} or more training images, or a smaller start in grid.n",
                )
            return np.unique(np.round(np.geomspace(start, n_train, count))).astype(int)
        return np.unique(np.asarray(self.n, dtype=int))

    def for_training_size(self, n_train: int) -> "GridSpec":
        """This grid with a ``"geometric:..."`` n written out for ``n_train`` training images."""
        if not isinstance(self.n, str) or self.n == "paper":
            return self
        n = tuple(int(v) for v in self.n_values(n_train))
        return replace(self, n=n)

    def check(self) -> None:
        """Refuse an ``n`` that is neither ``"paper"``, a ``"geometric:..."`` rule nor a list."""
        if isinstance(self.n, str) and self.n != "paper":
            geometric_n(self.n)
        else:
            self.n_values()

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "p": list(self.p),
            "d": list(self.d),
            "kappas": list(self.kappas),
            "n": self.n if isinstance(self.n, str) else list(self.n),
        }
        if self.search_rank is not None:
            out["search_rank"] = int(self.search_rank)
        return out


@dataclass(frozen=True)
class SystemSpec:
    """One system of Table 11 (see the module docstring for the file format)."""

    name: str
    image_kernel: KernelSpec
    text_kernel: KernelSpec
    model: str = "kcca"
    short_name: str | None = None
    preprocessing: str = "auto"
    word_kernel: str | None = None
    grid: GridSpec = field(default_factory=GridSpec)
    text_kernels: tuple[KernelSpec, ...] = ()
    per_criterion: int = 5
    combine: str = "auto"
    description: str = ""
    plugins: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise DataError(
                f"system {self.name!r}: model must be one of {MODELS}, got {self.model!r}"
            )
        if self.combine not in COMBINES:
            raise DataError(
                f"system {self.name!r}: combine must be one of {COMBINES}, got {self.combine!r}"
            )
        if self.combine == "dev" and self.per_criterion != 5:
            raise DataError(
                f"system {self.name!r}: per_criterion = {self.per_criterion} applies to "
                'combine = "paper" only, not to combine = "dev"',
                fix='remove per_criterion, or write combine = "paper"',
            )
        if "p" in self.image_kernel.params:
            raise DataError(
                f"system {self.name!r}: give the image kernel power in the grid "
                "(grid.p), not in image_kernel.params"
            )
        for name, values in (("p", self.grid.p), ("d", self.grid.d), ("kappas", self.grid.kappas)):
            what = "kappas" if name == "kappas" else f"grid {name} values"
            for v in values:
                if not within_grid_bound(name, v):
                    raise DataError(
                        f"system {self.name!r}: {what} must be {GRID_BOUNDS[name][0]} and "
                        f"finite, got {v!r}"
                    )
        if not self.grid.p or not self.grid.d or not self.grid.kappas:
            raise DataError(f"system {self.name!r}: grid p, d and kappas must be non-empty")
        self.grid.check()

    def with_grid(self, **values: Any) -> "SystemSpec":
        """This system with the :class:`GridSpec` fields given replaced (``None``: keep this
        system's; sequences become tuples), checked as any system is; itself when none is
        given (``kcca reproduce --p/--d``, ``kcca demo --kappas`` and the like)."""
        changes: dict[str, Any] = {
            k: tuple(v) if isinstance(v, (list, tuple)) else v
            for k, v in values.items()
            if v is not None
        }
        return replace(self, grid=replace(self.grid, **changes)) if changes else self

    def for_training_size(self, n_train: int) -> "SystemSpec":
        """This system with its grid's n written out for ``n_train`` training images."""
        grid = self.grid.for_training_size(n_train)
        return self if grid is self.grid else replace(self, grid=grid)

    @property
    def label(self) -> str:
        """The short name when there is one, else the paper's name."""
        return self.short_name or self.name

    @property
    def combination(self) -> str:
        """How the KCCA models chosen on dev rank the test pool: ``"paper"`` (the Borda count
        of ``per_criterion`` models by each of R@1, R@5, R@10, Section 4.1.3) or ``"dev"``
        (the number of best models chosen on dev, :func:`kcca._systems.grid.combination_on_dev`).
        ``combine = "auto"`` is ``"dev"`` for a system whose image and text kernels are both
        ``vectors`` kernels and whose ``per_criterion`` is the default 5, else ``"paper"``."""
        if self.combine != "auto":
            return self.combine
        on_vectors = self.image_kernel.name == self.text_kernel.name == "vectors"
        return "dev" if on_vectors and self.per_criterion == 5 else "paper"

    @property
    def candidate_text_kernels(self) -> tuple[KernelSpec, ...]:
        """The text kernels tried (one, or the NN system's alternatives chosen on dev)."""
        return self.text_kernels or (self.text_kernel,)

    def matches(self, key: str) -> bool:
        """Whether ``key`` names this system (paper name, short name or file stem)."""
        return key in (self.name, self.short_name)

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["image_kernel"] = self.image_kernel.as_dict()
        d["text_kernel"] = self.text_kernel.as_dict()
        d["text_kernels"] = [k.as_dict() for k in self.text_kernels]
        d["grid"] = self.grid.as_dict()
        return d

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], where: str = "system", *, base_dir: str | Path | None = None
    ) -> "SystemSpec":
        """Build from the parsed TOML / JSON document; unknown keys and wrong types are errors.

        The keys, types and defaults are those of :mod:`kcca._systems.spec_keys`, checked in
        its order. ``plugins`` modules are imported before the system is built (``base_dir``:
        the experiment file's folder, searched before the Python path).
        """
        checks = _FileChecks(where)
        values = checks.document(data)
        load_plugins(values["plugins"], base_dir, where)
        try:
            return cls(**values)
        except ExperimentFileError:
            raise
        except DataError as exc:  # a value check of __post_init__: name the file
            raise (checks.fail(exc.message, exc.fix) if where != "system" else exc) from None

    def kernel_specs(self) -> list[tuple[str, KernelSpec]]:
        """(key in the file, kernel) for every kernel the system names."""
        out = [("image_kernel", self.image_kernel), ("text_kernel", self.text_kernel)]
        out += [(f"text_kernels[{i}]", k) for i, k in enumerate(self.text_kernels)]
        return out


@dataclass(frozen=True)
class _FileChecks:
    """The checks of one parsed experiment file against :mod:`kcca._systems.spec_keys`;
    ``where`` (the file) begins every message."""

    where: str

    def fail(self, msg: str, fix: str | None = None) -> ExperimentFileError:
        return ExperimentFileError(f"{self.where}: {msg}", fix=fix)

    def known_keys_only(
        self, table: Mapping, keys: Sequence[FileKey], owner: str, fix: str
    ) -> None:
        """Refuse keys of ``table`` not in ``keys`` (``owner``: what the message says has
        them, ``""`` for the file's top level), with a did-you-mean hint for each."""
        known = [k.name for k in keys]
        bad = sorted(set(table) - set(known))
        if bad:
            hints = "".join(did_you_mean(k, known) for k in bad)
            raise self.fail(f"{owner}unknown key(s) {bad}{hints}", fix=fix)

    def value(self, table: Mapping, key: FileKey, label: str) -> Any:
        """The value of ``key`` in ``table`` as the system holds it (its default when absent;
        ``label``: the key as messages name it)."""
        if key.name not in table:
            return key.default if key.default is None else key.type.convert(key.default)
        value = table[key.name]
        if value is None and key.default is None:
            return None
        expected = key.type.problem(value)
        if expected is not None:
            raise self.fail(f"key {label!r} must be {expected}, got {value!r} ({type_name(value)})")
        return key.type.convert(value)

    def document(self, data: Any) -> dict[str, Any]:
        """The :class:`SystemSpec` fields of a parsed file (``plugins`` not yet imported)."""
        if not isinstance(data, Mapping):
            raise self.fail(f"expected a table of keys, got {type_name(data)}")
        self.known_keys_only(
            data,
            TOP_KEYS,
            "",
            fix=f"remove or rename the key; known keys: {', '.join(KNOWN_KEYS)}",
        )
        for key in TOP_KEYS:
            if key.required and key.name not in data:
                raise self.fail(
                    f"missing required key {key.name!r}",
                    fix=f"add {key.name} = ... to the file; {FORMAT_HELP}",
                )
        values: dict[str, Any] = {}
        for key in TOP_KEYS:
            if key.type is KERNEL:  # a kernel's messages name its key without quotes
                values[key.name] = self.kernel(data[key.name], key.name)
                continue
            value = self.value(data, key, key.name)
            if key.name == "text_kernels":
                value = tuple(self.kernel(b, f"text_kernels[{i}]") for i, b in enumerate(value))
            elif key.name == "grid":
                value = self.grid(value)
            values[key.name] = value
        return values

    def grid(self, table: Mapping) -> GridSpec:
        """The ``[grid]`` table (:data:`kcca._systems.spec_keys.GRID_KEYS`)."""
        self.known_keys_only(
            table,
            GRID_KEYS,
            "grid has ",
            fix=f"[grid] takes p, d, kappas, n and search_rank; {FORMAT_HELP}",
        )
        return GridSpec(**{k.name: self.value(table, k, f"grid.{k.name}") for k in GRID_KEYS})

    def kernel(self, block: Any, what: str) -> KernelSpec:
        """A kernel name or ``{name, params}`` table (``KERNEL_KEYS`` of spec_keys)."""
        if isinstance(block, str):
            return KernelSpec(block)
        if not KERNEL.accepts(block):
            raise self.fail(f"{what} must be {KERNEL.expected}, got {block!r} ({type_name(block)})")
        self.known_keys_only(
            block,
            KERNEL_KEYS,
            f"{what} has ",
            fix=f"a kernel table has only 'name' and 'params'; {FORMAT_HELP}",
        )
        name, params = (self.value(block, k, f"{what}.{k.name}") for k in KERNEL_KEYS)
        return KernelSpec(name, dict(params))


#: plug-in module -> the kernels its import registered (in this process)
_PLUGIN_KERNELS: dict[str, list[str]] = {}


def load_plugins(
    modules: Sequence[str], base_dir: str | Path | None = None, where: str = "experiment file"
) -> None:
    """Import plug-in modules (their ``@register_kernel`` classes register on import).

    A module is searched in ``base_dir`` (the experiment file's folder) first, then on the
    Python path; ``base_dir`` stays on the path (at the end) so worker processes find it.
    A module of the standard library is refused before it is imported, and a module that
    registers no kernel after (:class:`~kcca.errors.PluginError` naming it).
    """
    import importlib

    from features.kernels._base import registered_kernels

    for name in modules:
        folder = str(Path(base_dir).resolve()) if base_dir is not None else None
        if folder is not None:
            sys.path.insert(0, folder)
        try:
            if _in_standard_library(name):
                raise PluginError(
                    f"{where}: plugins: {name!r} is a module of Python's standard library, "
                    "not a kernel plug-in",
                    fix="name the module that defines your @register_kernel classes "
                    "(docs/plugin-kernels.md), or drop it from plugins = [...]",
                )
            if name not in sys.modules:
                before = set(registered_kernels())
                importlib.import_module(name)
                _PLUGIN_KERNELS[name] = sorted(set(registered_kernels()) - before)
        except PluginError:
            raise
        except ModuleNotFoundError as exc:
            if exc.name != name and not name.startswith(f"{exc.name}."):
                raise _plugin_failed(name, exc, where) from exc
            looked = f"{folder} or " if folder else ""
            raise PluginError(
                f"{where}: plugins: no module named {name!r} (looked in {looked}the Python path)",
                fix=f"put {name.replace('.', '/')}.py beside the experiment file, install the "
                "package that provides it, or correct the name in plugins = [...]",
            ) from exc
        except Exception as exc:
            raise _plugin_failed(name, exc, where) from exc
        finally:
            if folder is not None:
                sys.path.remove(folder)
                if folder not in sys.path:
                    sys.path.append(folder)
        defined = [
            kernel
            for kernel, module in registered_kernels().items()
            if module == name or module.startswith(f"{name}.")
        ]
        if not (_PLUGIN_KERNELS.get(name) or defined):
            raise PluginError(
                f"{where}: plugins: module {name!r} registers no kernel (it defines no "
                "@register_kernel class, and importing it registered none)",
                fix="name the module that defines your @register_kernel classes "
                "(docs/plugin-kernels.md), or drop it from plugins = [...]",
            )


def _in_standard_library(name: str) -> bool:
    """Whether the top-level module of ``name``, as the current path finds it, is one of
    Python's standard library (found without importing it)."""
    import importlib.util
    import sysconfig

    top = name.partition(".")[0]
    if top not in sys.stdlib_module_names:
        return False
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return False
    if spec is None:
        return False
    if spec.origin in (None, "built-in", "frozen"):
        return True
    where = Path(spec.origin).resolve()
    paths = sysconfig.get_paths()
    stdlib = {Path(paths[k]).resolve() for k in ("stdlib", "platstdlib")}
    site = {Path(paths[k]).resolve() for k in ("purelib", "platlib")}
    return any(root in where.parents for root in stdlib) and not any(
        root in where.parents for root in site
    )


def _plugin_failed(name: str, exc: BaseException, where: str) -> PluginError:
    return PluginError(
        f"{where}: plugins: module {name!r} failed to import: {type(exc).__name__}: {exc}",
        fix=f"fix the error in {name!r} (or install what it imports); run with "
        "--verbose for the traceback",
    )


def check_kernel_names(spec: SystemSpec, where: str) -> None:
    """Raise :class:`ExperimentFileError` for a kernel name nothing registers."""
    from features.kernels._base import ENTRY_POINT_GROUP, available_kernels

    known = None
    for key, k in spec.kernel_specs():
        known = known if known is not None else available_kernels()
        if k.name not in known:
            err = unknown_name(
                "kernel",
                k.name,
                known,
                where=f"{where}: {key}.name",
                fix=f"use a registered kernel ({', '.join(known)}), or register yours: name "
                'its module in the file (plugins = ["my_kernels"]) or install a package '
                f"with a {ENTRY_POINT_GROUP!r} entry point (docs/plugin-kernels.md)",
            )
            raise ExperimentFileError(err.message, fix=err.fix)


def load_spec(path: str | Path, root: str | Path | None = None) -> SystemSpec:
    """Read one experiment file (``.toml`` or ``.json``), importing its ``plugins``.

    Files its kernels name (``path`` of the ``vectors`` kernel) must lie inside ``root``, the
    experiments folder the user named (default: the file's folder); relative ones are read
    from the file's folder (:func:`files_inside`)."""
    p = Path(path)
    if not p.is_file():
        what = "is a folder, not a file" if p.is_dir() else "does not exist"
        raise ExperimentFileError(
            f"experiment file {p} {what}", fix="give the path of a .toml (or .json) experiment file"
        )
    text = read_utf8(p, error=ExperimentFileError)  # a BOM is named with its own fix
    if p.suffix == ".json":
        data = parse_json(text, p, error=ExperimentFileError)
    else:
        data = parse_toml(text, p, error=ExperimentFileError)
    spec = SystemSpec.from_dict(data, str(p), base_dir=p.parent)
    check_kernel_names(spec, str(p))
    return files_inside(spec, p, p.parent if root is None else Path(root))


def files_inside(spec: SystemSpec, path: Path, root: Path) -> SystemSpec:
    """``spec`` with each kernel reading the files it names from the folder of its experiment
    file ``path`` (:attr:`KernelSpec.folder`), after checking that each of them (the parts'
    of a ``mix`` too) lies inside ``root``, symbolic links followed
    (:class:`~kcca.data._paths.OutsideFolderError` naming the key, the value and the file)."""
    from features.kernels._base import kernel_class
    from features.kernels._mixture import check_parts
    from kcca.errors import PluginError, UnknownNameError

    folder = str(path.parent.resolve())
    for key, kernel in spec.kernel_specs():
        named = [(f"{key}.params", kernel.name, kernel.params)]
        if kernel.name == "mix":
            try:
                parts = check_parts(kernel.params.get("parts"))
            except ValueError:  # named where the mix is built, as before
                parts = []
            named += [
                (f"{key}.params.parts[{i}].params", q["name"], q["params"])
                for i, q in enumerate(parts)
            ]
        for where, name, params in named:
            try:
                cls = kernel_class(name)
            except (PluginError, UnknownNameError):  # named where the kernel is built, as before
                continue
            for param, value in cls.named_files(params).items():
                item = f"{where}.{param} {value!r}"
                inside(root, value, item=item, source=path, base=path.parent)
    return replace(
        spec,
        image_kernel=replace(spec.image_kernel, folder=folder),
        text_kernel=replace(spec.text_kernel, folder=folder),
        text_kernels=tuple(replace(k, folder=folder) for k in spec.text_kernels),
    )


def default_experiments_dir(name: str = "hodosh2013") -> Path:
    """``experiments/<name>`` of the source tree this package runs from (a clone, installed
    editable), else the copy inside an installed package (the wheel carries each folder as
    ``kcca/experiments/<name>``, see setup.py), else of the current folder."""
    package = Path(__file__).resolve().parents[1]
    for folder in (package.parent / "experiments" / name, package / "experiments" / name):
        if folder.is_dir():
            return folder
    return Path("experiments") / name


def load_specs(folder: str | Path, pattern: str = "*.toml") -> list[SystemSpec]:
    """Every experiment file of a folder, in file-name order (files are numbered); the
    folder's run configuration file (``run.toml``, :mod:`kcca._systems.config`) is not one.

    Two files whose systems would write the same rankings file (the same name, or names that
    differ only in the characters a file name leaves out) are an error naming both."""
    fix = (
        "point the command at a folder of experiment files (the project's own: experiments/ "
        "of a clone, kcca/experiments/ of an installed package)"
    )
    if not Path(folder).is_dir():
        raise DataError(f"no experiment files {pattern}: no folder {folder}", fix=fix)
    from kcca._systems.config import RUN_FILE

    files = sorted(f for f in Path(folder).glob(pattern) if f.name != RUN_FILE)
    if not files:
        raise DataError(f"no experiment files {pattern} in {folder}", fix=fix)
    specs = [load_spec(f, folder) for f in files]
    _refuse_shared_rankings(files, specs)
    return specs


def rankings_stem(name: str) -> str:
    """A system name as the name of its rankings file ``<stem>.json`` (``TRI5^sqrtidf_A,D(ic)``
    -> ``TRI5_sqrtidf_A_D_ic_``)."""
    return "".join(ch if ch.isalnum() else "_" for ch in name)


def _refuse_shared_rankings(files: Sequence[Path], specs: Sequence[SystemSpec]) -> None:
    first: dict[str, tuple[Path, SystemSpec]] = {}
    for path, spec in zip(files, specs):
        stem = rankings_stem(spec.name)
        if stem not in first:
            first[stem] = (path, spec)
            continue
        other, prior = first[stem]
        names = (
            f"system {spec.name!r}"
            if prior.name == spec.name
            else f"systems {prior.name!r} and {spec.name!r}"
        )
        raise ExperimentFileError(
            f"{other} and {path} both define {names}: each run would write its rankings to "
            f"{stem}.json over the other's",
            fix=f"give one of them another name (its `name = ...` line), or move {path} out of "
            f"{path.parent}",
        )


def select_specs(specs: Sequence[SystemSpec], keys: Sequence[str] | None) -> list[SystemSpec]:
    """The specs named by ``keys`` (paper or short names), in ``keys`` order; None = all."""
    if not keys:
        return list(specs)
    out: list[SystemSpec] = []
    for key in keys:
        found = [s for s in specs if s.matches(key)]
        if not found:
            names = [n for s in specs for n in dict.fromkeys((s.label, s.name))]
            raise unknown_name(
                "system", key, names, fix=f"use a paper or short name: {', '.join(names)}"
            )
        out.extend(f for f in found if f not in out)
    return out
