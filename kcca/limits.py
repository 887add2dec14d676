"""Every limit on the work, memory or size an input may ask for, in one table.

A file, a name or a setting never decides how much work or memory reading it takes: each bound
is declared here, once, as a :class:`Limit` (its name, the environment variable that raises
it, if any, its default, unit and meaning), and the modules that apply it import it from here:
a fixed limit as its constant (``MAX_INFLATION``), a limit the environment may raise as its
variable's name (``MAX_MODEL_BYTES_ENV``), whose value :func:`current_limit` reads each time.
Where a limit is too low for a trusted input, the user says so in the environment; a value
that is not a positive whole number is a named :class:`~kcca.errors.DataError`.

``python -m kcca.limits`` prints the table as Markdown (``docs/limits.md``, which a test keeps
equal to it).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from kcca.errors import DataError

__all__ = ["LIMITS", "Limit"]


@dataclass(frozen=True)
class Limit:
    """One limit: ``name`` (the constant of this module), ``env`` (the environment variable
    that sets another value, or ``None`` for a fixed limit), ``default``, ``unit`` (what is
    counted, as the error messages say it) and ``meaning`` (what is bounded, and why)."""

    name: str
    env: str | None
    default: int | float
    unit: str
    meaning: str

    def current(self) -> int | float:
        """The positive whole number in ``$env``, or :attr:`default` when the variable is
        unset or empty (always for a fixed limit)."""
        value = os.environ.get(self.env, "").strip() if self.env else ""
        if not value:
            return self.default
        try:
            limit = int(value)
        except ValueError:
            limit = 0
        if limit <= 0:
            raise DataError(
                f"${self.env}={value!r} is not a positive whole number of {self.unit}",
                fix=f"export {self.env}={self.default} (the default), or unset {self.env}",
            )
        return limit


#: every limit, in the order of the docs' table
LIMITS: tuple[Limit, ...] = (
    Limit(
        "MAX_METEOR_CHARACTERS",
        "KCCA_MAX_METEOR_CHARACTERS",
        10_000,
        "characters",
        "the longest caption (a candidate or a reference, its tokens joined by single spaces) "
        "that METEOR scores (`kcca.captions._meteor`): its alignment search takes memory and "
        "time quadratic in a caption's words (0.34 GB and 23 s for 100,000 characters of "
        "Flickr 8K captions run together); a caption is typically under 200 characters",
    ),
    Limit(
        "MAX_IMAGE_PIXELS",
        "KCCA_MAX_IMAGE_PIXELS",
        100_000_000,
        "pixels",
        "the most pixels (width x height, from the file's header) of an image that is decoded "
        "(`kcca.data._images`): a file of a few hundred KB can declare 20,000 x 20,000 pixels "
        "(1.2 GB decoded)",
    ),
    Limit(
        "MAX_MODEL_BYTES",
        "KCCA_MAX_MODEL_BYTES",
        16 << 30,
        "bytes",
        "the most bytes the members of a model file may inflate to together "
        "(`kcca._model.file_format`)",
    ),
    Limit(
        "MAX_IDS_BYTES",
        "KCCA_MAX_IDS_BYTES",
        256 << 20,
        "bytes",
        "the largest ids file or `ids` array of a vectors file read into memory "
        "(`features._vectors_file`)",
    ),
    Limit(
        "MAX_VECTOR_BYTES",
        "KCCA_MAX_VECTOR_BYTES",
        8 << 30,
        "bytes",
        "the most bytes of vectors read into memory (compressed `.npz` members, Parquet "
        "tables; `features._vectors_file`); memory-mapped arrays are not limited, as only the "
        "rows used are read",
    ),
    Limit(
        "MAX_MODEL_HEADER_BYTES",
        None,
        1 << 24,
        "bytes",
        "the largest `header.json` of a model file read (`kcca._model.file_format`): a bigger "
        "one is not a model file",
    ),
    Limit(
        "MAX_INFLATION",
        None,
        200.0,
        "times the stored size",
        "how many times its stored size a compressed member (over 1 MiB) of a model file may "
        "inflate (`kcca._model.file_format`): arrays of fitted values and padded id strings stay "
        "far below, zip bombs far above",
    ),
    Limit(
        "MAX_CACHE_HEADER_BYTES",
        None,
        1 << 26,
        "bytes",
        "the largest `header.json` of a cache entry read, and of a cache folder's manifest "
        "or an entry's sidecar (`kcca._cache_entry`, `kcca._cache_audit`): a bigger one is not "
        "an entry",
    ),
    Limit(
        "MAX_SCHEDULER_GREETING",
        None,
        1 << 24,
        "bytes",
        "the largest first message of a Dask scheduler (`kcca._workers`; its handshake is some "
        "100 bytes)",
    ),
    Limit(
        "MAX_DEMO_IMAGE_SIZE",
        None,
        1_024,
        "pixels",
        "the largest side of a demo corpus's images (`kcca demo --image-size`, and a demo "
        "corpus rebuilt from its name by `kcca report` and `kcca evaluate`): a 50,000-pixel "
        "side would take 7.5 GB an image",
    ),
    Limit(
        "MAX_NAMED_DEMO_IMAGES",
        None,
        20_000,
        "images",
        "the most images (training + development + test) of a demo corpus rebuilt from the "
        "name a results file records (`kcca.data._demo`; about 0.35 ms each): a file names the "
        "corpus, not the work",
    ),
    Limit(
        "MAX_NAMED_DEMO_TEST",
        None,
        2_000,
        "images",
        "the most test images of a demo corpus rebuilt from its name (`kcca.data._demo`): its "
        "synthetic judgments pair every test image with every pool caption (2,000 take about "
        "25 s)",
    ),
    Limit(
        "MAX_TAGGER_ITER",
        None,
        50,
        "passes",
        "the most passes of the perceptron part-of-speech tagger (`features.text._postag`; the "
        "default is 5): a setting, from an experiment or a model file, never asks for days of "
        "training",
    ),
    Limit(
        "DENSE_TRAIN_LIMIT",
        None,
        15_000,
        "training items",
        "over this many training items, a kernel of ids (the `vectors` kernel) gives the "
        "solver its training kernel as columns on demand instead of the n x n block "
        "(`kcca._systems.blocks`; 8 n^2 bytes: 1.8 GB at this size, 6.7 GB at Flickr30K's 29,000, "
        "103 GB at COCO's 113,287)",
    ),
)

_BY_NAME = {limit.name: limit for limit in LIMITS}
_BY_ENV = {limit.env: limit for limit in LIMITS if limit.env}


def _default(name: str) -> int:
    """The default of the whole-number limit ``name``."""
    return int(_BY_NAME[name].default)


def _env(name: str) -> str:
    """The environment variable of the limit ``name``."""
    return str(_BY_NAME[name].env)


# a limit the environment may raise: its variable, read with current_limit(...) when applied
MAX_METEOR_CHARACTERS_ENV = _env("MAX_METEOR_CHARACTERS")
MAX_IMAGE_PIXELS_ENV = _env("MAX_IMAGE_PIXELS")
MAX_MODEL_BYTES_ENV = _env("MAX_MODEL_BYTES")
MAX_IDS_BYTES_ENV = _env("MAX_IDS_BYTES")
MAX_VECTOR_BYTES_ENV = _env("MAX_VECTOR_BYTES")
# a fixed limit: its value
MAX_MODEL_HEADER_BYTES = _default("MAX_MODEL_HEADER_BYTES")
MAX_INFLATION = float(_BY_NAME["MAX_INFLATION"].default)
MAX_CACHE_HEADER_BYTES = _default("MAX_CACHE_HEADER_BYTES")
MAX_SCHEDULER_GREETING = _default("MAX_SCHEDULER_GREETING")
MAX_DEMO_IMAGE_SIZE = _default("MAX_DEMO_IMAGE_SIZE")
MAX_NAMED_DEMO_IMAGES = _default("MAX_NAMED_DEMO_IMAGES")
MAX_NAMED_DEMO_TEST = _default("MAX_NAMED_DEMO_TEST")
MAX_TAGGER_ITER = _default("MAX_TAGGER_ITER")
DENSE_TRAIN_LIMIT = _default("DENSE_TRAIN_LIMIT")


def current_limit(env: str) -> int:
    """The current value of the limit that ``$env`` sets: the positive whole number in the
    variable, or the limit's default when it is unset or empty; a malformed value is a
    :class:`~kcca.errors.DataError` naming the variable."""
    return int(_BY_ENV[env].current())


def _cell(limit: Limit) -> list[str]:
    """The Markdown cells of one row of :func:`markdown_table`."""
    default = f"{limit.default:g}" if isinstance(limit.default, float) else f"{limit.default:,}"
    env = f"`{limit.env}`" if limit.env else "(fixed)"
    return [f"`{limit.name}`", env, default, limit.unit, limit.meaning]


def markdown_table() -> str:
    """Every limit as a Markdown document: a title, a sentence and one row a limit."""
    lines = [
        "# Limits",
        "",
        "Generated by `python -m kcca.limits` from `kcca/limits.py`, where every limit is",
        "declared; a test keeps this file equal to it. A limit with an environment variable",
        "is raised for a trusted input by `export VARIABLE=N` (a positive whole number).",
        "",
        "| name | environment variable | default | unit | meaning |",
        "| --- | --- | --- | --- | --- |",
    ]
    lines += ["| " + " | ".join(_cell(limit)) + " |" for limit in LIMITS]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
