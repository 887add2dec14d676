"""Declarative description of one system of the paper (Table 11), loadable from TOML or JSON.

A system is a kernel pair plus a model (Section 4.1): an image kernel (``pyramid`` K^PY or
``histogram`` K^HISTO, Section 3.3), a text kernel (``bow``, ``tagrank``, ``trigram``; Sections
3.4-3.5) with an optional word kernel (Lin, distributional, alignment, eq. 17-27), the text
preprocessing preset (Section 4.1.1), and either KCCA with its grid (kappa x n, Section 4.1.3,
and the kernel-pair settings p and d, L358) or the nearest-neighbour baseline (eq. 2).

Experiment file (TOML; JSON with the same keys also works)::

    name = "TRI5^sqrtidf_A,D(BNC+ic)"      # the paper's name, ASCII (paper_tables.SYSTEMS)
    short_name = "TRI5SEM"                  # Section 4's name, when it has one
    model = "kcca"                          # or "nn"
    preprocessing = "auto"                  # a features.text preset; auto = corpus default
    word_kernel = "dist-avg+align"          # features.text.word_kernels.WORD_KERNELS, or absent

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
    n = "paper"                             # paper_n_grid(), capped at the rank; or a list

An NN system lists alternative text kernels as ``[[text_kernels]]`` tables when the paper
picks the best one on dev (NN5_TRI(best)).
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from kcca.data.errors import DataError
from kcca.solver import PAPER_KAPPAS, paper_n_grid

MODELS = ("kcca", "nn")
#: the paper's p values (L358: "p in {2, 3}")
PAPER_P: tuple[float, ...] = (2, 3)
#: d values searched on dev (L358 gives the range 1..15, not the values)
PAPER_D: tuple[float, ...] = (1, 2, 3, 5, 8, 10, 15)


@dataclass(frozen=True)
class KernelSpec:
    """A registered kernel by name and its constructor parameters."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def build(self, **overrides: Any):
        """Instantiate the kernel through the registry (``features.kernels.base``)."""
        from kcca.systems.registry import make_any_kernel

        return make_any_kernel(self.name, **{**dict(self.params), **overrides})

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "params": dict(self.params)}


@dataclass(frozen=True)
class GridSpec:
    """The KCCA settings searched on dev: p, d (per kernel pair), kappa and n (per model)."""

    p: tuple[float, ...] = PAPER_P
    d: tuple[float, ...] = PAPER_D
    kappas: tuple[float, ...] = PAPER_KAPPAS
    n: tuple[int, ...] | str = "paper"

    def n_values(self) -> np.ndarray:
        """The n grid before capping at the rank (the solver drops values above it)."""
        if isinstance(self.n, str):
            if self.n != "paper":
                raise DataError(f"grid n must be 'paper' or a list of integers, got {self.n!r}")
            return paper_n_grid()
        return np.unique(np.asarray(self.n, dtype=int))

    def as_dict(self) -> dict[str, Any]:
        return {"p": list(self.p), "d": list(self.d), "kappas": list(self.kappas),
                "n": self.n if isinstance(self.n, str) else list(self.n)}


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
    description: str = ""

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise DataError(f"system {self.name!r}: model must be one of {MODELS}, got "
                            f"{self.model!r}")
        if "p" in self.image_kernel.params:
            raise DataError(f"system {self.name!r}: give the image kernel power in the grid "
                            "(grid.p), not in image_kernel.params")
        for v in self.grid.p:
            if not v > 0:
                raise DataError(f"system {self.name!r}: grid p values must be > 0, got {v!r}")
        for v in self.grid.d:
            if not v >= 1:
                raise DataError(f"system {self.name!r}: grid d values must be >= 1, got {v!r}")
        for v in self.grid.kappas:
            if not v > 0:
                raise DataError(f"system {self.name!r}: kappas must be > 0, got {v!r}")
        if not self.grid.p or not self.grid.d or not self.grid.kappas:
            raise DataError(f"system {self.name!r}: grid p, d and kappas must be non-empty")
        self.grid.n_values()

    @property
    def label(self) -> str:
        """The short name when there is one, else the paper's name."""
        return self.short_name or self.name

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
    def from_dict(cls, data: Mapping[str, Any], where: str = "system") -> "SystemSpec":
        """Build from the parsed TOML / JSON document; unknown keys are an error."""
        known = {"name", "short_name", "model", "preprocessing", "word_kernel", "image_kernel",
                 "text_kernel", "text_kernels", "grid", "per_criterion", "description"}
        extra = set(data) - known
        if extra:
            raise DataError(f"{where}: unknown key(s) {sorted(extra)}; known: {sorted(known)}")
        for key in ("name", "image_kernel", "text_kernel"):
            if key not in data:
                raise DataError(f"{where}: missing required key {key!r}")

        def kernel(block: Any, what: str) -> KernelSpec:
            if isinstance(block, str):
                return KernelSpec(block)
            if not isinstance(block, Mapping) or "name" not in block:
                raise DataError(f"{where}: {what} must be a table with a 'name'")
            bad = set(block) - {"name", "params"}
            if bad:
                raise DataError(f"{where}: {what} has unknown key(s) {sorted(bad)}")
            return KernelSpec(str(block["name"]), dict(block.get("params", {})))

        g = dict(data.get("grid", {}))
        bad = set(g) - {"p", "d", "kappas", "n"}
        if bad:
            raise DataError(f"{where}: grid has unknown key(s) {sorted(bad)}")
        grid = GridSpec(
            p=tuple(float(v) for v in g.get("p", PAPER_P)),
            d=tuple(float(v) for v in g.get("d", PAPER_D)),
            kappas=tuple(float(v) for v in g.get("kappas", PAPER_KAPPAS)),
            n=_n_grid(g.get("n", "paper")))
        return cls(
            name=str(data["name"]), short_name=data.get("short_name"),
            model=str(data.get("model", "kcca")),
            preprocessing=str(data.get("preprocessing", "auto")),
            word_kernel=data.get("word_kernel"),
            image_kernel=kernel(data["image_kernel"], "image_kernel"),
            text_kernel=kernel(data["text_kernel"], "text_kernel"),
            text_kernels=tuple(kernel(b, f"text_kernels[{i}]")
                               for i, b in enumerate(data.get("text_kernels", ()))),
            grid=grid, per_criterion=int(data.get("per_criterion", 5)),
            description=str(data.get("description", "")))


def _n_grid(value: Any) -> tuple[int, ...] | str:
    if isinstance(value, str):
        return value
    return tuple(int(v) for v in value)


def load_spec(path: str | Path) -> SystemSpec:
    """Read one experiment file (``.toml`` or ``.json``)."""
    p = Path(path)
    if not p.is_file():
        raise DataError(f"experiment file {p} does not exist")
    try:
        if p.suffix == ".json":
            data = json.loads(p.read_text(encoding="utf-8"))
        else:
            data = tomllib.loads(p.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise DataError(f"{p}: cannot parse ({exc})") from None
    return SystemSpec.from_dict(data, str(p))


def load_specs(folder: str | Path, pattern: str = "*.toml") -> list[SystemSpec]:
    """Every experiment file of a folder, in file-name order (files are numbered)."""
    files = sorted(Path(folder).glob(pattern))
    if not files:
        raise DataError(f"no experiment files {pattern} in {folder}")
    return [load_spec(f) for f in files]


def select_specs(specs: Sequence[SystemSpec], keys: Sequence[str] | None) -> list[SystemSpec]:
    """The specs named by ``keys`` (paper or short names), in ``keys`` order; None = all."""
    if not keys:
        return list(specs)
    out = []
    for key in keys:
        found = [s for s in specs if s.matches(key)]
        if not found:
            names = ", ".join(s.label for s in specs)
            raise DataError(f"unknown system {key!r}; known: {names}")
        out.extend(f for f in found if f not in out)
    return out
