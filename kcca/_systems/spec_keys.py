"""The keys of an experiment file, declared once: their types, defaults and bounds.

:class:`kcca._systems.spec.SystemSpec.from_dict` checks a parsed file against these tables (in
their order), :class:`~kcca._systems.spec.SystemSpec` checks the grid bounds, and the key table of
``experiments/README.md`` is :func:`keys_markdown` (``tests/kcca/_systems/test_spec_keys.py``
keeps the two equal). The grid settings are those of Section 4.1.3 (p, d, kappa, n).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable

from kcca._solver import PAPER_KAPPAS

#: the models a system may name (``model = ...``)
MODELS = ("kcca", "nn")
#: how a KCCA system combines its dev-selected models (kcca._systems.spec.SystemSpec.combination)
COMBINES = ("auto", "paper", "dev")
#: the default of a key the file must give
REQUIRED = object()
#: the paper's p values (Section 4.1.3: image kernels "are either squared or cubed")
PAPER_P: tuple[float, ...] = (2, 3)
#: d values searched on dev (Section 4.1.3 gives the range 1..15, not the values)
PAPER_D: tuple[float, ...] = (1, 2, 3, 5, 8, 10, 15)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _finite_numbers(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value
    )


def _integers(value: Any) -> bool:
    return _finite_numbers(value) and all(float(v).is_integer() for v in value)


@dataclass(frozen=True)
class ValueType:
    """What a key's value must be: ``expected`` is the phrase of the error message ("key 'x'
    must be <expected>, got ..."), ``doc`` the type column of the documentation (defaults to
    ``expected``), ``accepts`` the test."""

    expected: str
    accepts: Callable[[Any], bool]
    doc: str = ""
    #: the value as the system holds it (arrays become tuples)
    convert: Callable[[Any], Any] = lambda v: v
    #: what an array value must also be (the n grid: a rule or an array of integers)
    arrays: "ValueType | None" = None

    def problem(self, value: Any) -> str | None:
        """The ``expected`` phrase ``value`` fails, or None when it is of this type."""
        if not self.accepts(value):
            return self.expected
        if self.arrays is not None and isinstance(value, (list, tuple)):
            return self.arrays.problem(value)
        return None

    @property
    def described(self) -> str:
        return self.doc or self.expected


STRING = ValueType("a string", lambda v: isinstance(v, str), "string")
NUMBERS = ValueType(
    "an array of numbers (no inf or nan)",
    _finite_numbers,
    "array of numbers",
    lambda v: tuple(float(x) for x in v),
)
INTEGERS = ValueType(
    "an array of integers", _integers, "array of integers", lambda v: tuple(int(x) for x in v)
)
N_GRID = ValueType(
    '"paper", "geometric:START:COUNT" or an array of integers',
    lambda v: isinstance(v, (str, list, tuple)),
    '"paper", "geometric:START:COUNT" or array of integers',
    lambda v: v if isinstance(v, str) else INTEGERS.convert(v),
    arrays=INTEGERS,
)
POSITIVE_INTEGER = ValueType("a positive integer", lambda v: _is_int(v) and v > 0, "integer")
INTEGER = ValueType("an integer", _is_int, "integer")
TABLE = ValueType("a table ([grid])", lambda v: isinstance(v, Mapping), "table")
KERNEL = ValueType(
    "a kernel name or a table with a 'name'",
    lambda v: isinstance(v, str) or (isinstance(v, Mapping) and "name" in v),
    "kernel name or table {name, params}",
)
KERNELS = ValueType(
    "an array of tables ([[text_kernels]])",
    lambda v: isinstance(v, (list, tuple)),
    "array of kernel tables",
)
MODULES = ValueType(
    'an array of module names (["my_kernels"])',
    lambda v: isinstance(v, (list, tuple)) and all(isinstance(m, str) and m for m in v),
    "array of module names",
    tuple,
)
PARAMS = ValueType("a table (params = {key = value})", lambda v: isinstance(v, Mapping), "table")


@dataclass(frozen=True)
class FileKey:
    """One key of an experiment file.

    ``default`` is what an absent key means (:data:`REQUIRED`: the file must give it; a key
    whose default is None also accepts a JSON ``null``); ``bound`` says what each value must
    be beyond its type (docs and messages) and ``within`` tests one value against it."""

    name: str
    type: ValueType
    default: Any
    doc: str
    bound: str = ""
    within: Callable[[float], bool] | None = None

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def default_text(self) -> str:
        if self.required:
            return "required"
        if self.default is None:
            return "none"
        if isinstance(self.default, str):
            return f'"{self.default}"'
        if isinstance(self.default, tuple):
            return "[" + ", ".join(f"{v:g}" for v in self.default) + "]"
        return str(self.default) if self.default not in ({}, ()) else "empty"


#: the top-level keys, in the order of the documentation and of "known keys" in messages
TOP_KEYS: tuple[FileKey, ...] = (
    FileKey("name", STRING, REQUIRED, "the paper's name of the system, ASCII (Table 11)"),
    FileKey("short_name", STRING, None, "Section 4's name, when it has one (TRI5SEM)"),
    FileKey(
        "model",
        STRING,
        "kcca",
        "KCCA (Section 4.1.3) or the nearest neighbour (eq. 2)",
        bound="kcca or nn",
    ),
    FileKey(
        "preprocessing",
        STRING,
        "auto",
        "a features.text preset (Section 4.1.1); auto = the corpus default",
    ),
    FileKey(
        "word_kernel",
        STRING,
        None,
        "a word kernel of features.text._word_kernels.WORD_KERNELS (eq. 17-27)",
    ),
    FileKey(
        "image_kernel",
        KERNEL,
        REQUIRED,
        "a registered image kernel (Section 3.3); its power p is grid.p, not a param",
    ),
    FileKey("text_kernel", KERNEL, REQUIRED, "a registered text kernel (Sections 3.4-3.5)"),
    FileKey(
        "text_kernels",
        KERNELS,
        (),
        "NN only: alternative text kernels, the best on dev is used (NN5_TRI(best))",
    ),
    FileKey("grid", TABLE, {}, "KCCA only: the settings searched on dev (keys grid.*)"),
    FileKey(
        "per_criterion",
        INTEGER,
        5,
        'models selected per dev criterion (Section 4.1.3) under combine = "paper"',
    ),
    FileKey(
        "combine",
        STRING,
        "auto",
        "KCCA only: paper = Borda count of per_criterion models by each of R@1, R@5, R@10 "
        "(Section 4.1.3); dev = one model or the Borda count of the best 3, 5 or 15, chosen "
        "on dev; auto = dev when both kernels are vectors kernels and per_criterion is 5, "
        "else paper",
        bound="auto, paper or dev",
    ),
    FileKey("description", STRING, "", "free text"),
    FileKey(
        "plugins",
        MODULES,
        (),
        "modules imported first, whose @register_kernel classes become kernel names "
        "(docs/plugin-kernels.md)",
    ),
)

#: the keys of ``[grid]``; the defaults are the paper's (kcca._systems.spec.GridSpec)
GRID_KEYS: tuple[FileKey, ...] = (
    FileKey(
        "search_rank",
        POSITIVE_INTEGER,
        None,
        "search (p, d) with factors truncated to this rank, refit the chosen pair",
        bound="> 0",
    ),
    FileKey(
        "n",
        N_GRID,
        "paper",
        "numbers of KCCA directions kept (46 values, capped at "
        "the rank), a list, or COUNT values from START to the training size",
    ),
    FileKey("p", NUMBERS, PAPER_P, "image kernel powers", bound="> 0", within=lambda v: v > 0),
    FileKey(
        "d",
        NUMBERS,
        PAPER_D,
        "text kernel diagonal scales (d in [1, 15])",
        bound=">= 1",
        within=lambda v: v >= 1,
    ),
    FileKey(
        "kappas",
        NUMBERS,
        PAPER_KAPPAS,
        "regularisers kappa (eq. 3)",
        bound="> 0",
        within=lambda v: v > 0,
    ),
)

#: the keys of a kernel table (``[image_kernel]``, ``[text_kernel]``, ``[[text_kernels]]``)
KERNEL_KEYS: tuple[FileKey, ...] = (
    FileKey("name", STRING, REQUIRED, "a registered kernel name"),
    FileKey("params", PARAMS, {}, "the kernel's constructor parameters"),
)


def keys_markdown() -> str:
    """The table of every key (the key table of ``experiments/README.md``)."""
    rows = ["| key | type | default | bound | meaning |", "| --- | --- | --- | --- | --- |"]
    for prefix, keys in (("", TOP_KEYS), ("grid.", GRID_KEYS), ("<kernel>.", KERNEL_KEYS)):
        for k in keys:
            rows.append(
                f"| `{prefix}{k.name}` | {k.type.described} | {k.default_text()} | "
                f"{k.bound or '-'} | {k.doc} |"
            )
    return "\n".join(rows) + "\n"
