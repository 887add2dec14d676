"""Line-by-line reading of tab-separated corpus files with errors that name file and line."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Iterator

from kcca.data._errors import DataError
from kcca.data._text_files import utf8_lines


def require_file(path: Path, what: str) -> Path:
    """Check that ``path`` is a readable file; the error says what it is and where it belongs."""
    if not path.is_file():
        raise DataError(f"missing {what}: {path} does not exist (see data/README.md)")
    if not os.access(path, os.R_OK):
        raise DataError(f"{what} {path} is not readable (check its permissions)")
    return path


def numbered_lines(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of each non-blank line, 1-based, newline stripped.

    The file must be UTF-8 without a byte-order mark (:mod:`kcca.data._text_files` names the
    file, and the line and byte of a non-UTF-8 byte, otherwise).
    """
    for number, text in utf8_lines(path):
        if text.strip():
            yield number, text


def tab_fields(path: Path, number: int, text: str, n_fields: int, layout: str) -> list[str]:
    """Split a line on tabs into exactly ``n_fields`` fields, or raise naming file and line."""
    fields = text.split("\t")
    if len(fields) != n_fields:
        raise DataError(
            f"{path}:{number}: malformed line {text[:80]!r}: expected {n_fields} tab-separated "
            f"fields ({layout}), found {len(fields)}"
        )
    return fields


def parse_int(
    path: Path, number: int, value: str, name: str, low: int | None = None, high: int | None = None
) -> int:
    try:
        out = int(value)
    except ValueError:
        raise DataError(f"{path}:{number}: {name} {value!r} is not an integer") from None
    if (low is not None and out < low) or (high is not None and out > high):
        raise DataError(f"{path}:{number}: {name} {out} is outside {low}..{high}")
    return out


def parse_number(
    path: Path,
    number: int,
    value: str,
    name: str,
    low: float | None = None,
    high: float | None = None,
) -> float:
    """A finite decimal number (``nan`` and ``inf`` are errors) within ``low..high``."""
    try:
        out = float(value)
    except ValueError:
        raise DataError(f"{path}:{number}: {name} {value!r} is not a number") from None
    if not math.isfinite(out):
        raise DataError(f"{path}:{number}: {name} {value!r} is not a finite number")
    if (low is not None and out < low) or (high is not None and out > high):
        raise DataError(f"{path}:{number}: {name} {out} is outside {low}..{high}")
    return out
