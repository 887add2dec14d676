"""JSON and TOML input files parsed with errors that name the file: a syntax error (with its
line), a number too long to convert, and a document nested too deeply or too large to parse,
which the standard parsers raise as a bare ``RecursionError`` or ``MemoryError``.

Every reader of a JSON input (rankings, COCO caption files, split files, experiment files,
run details) parses through :func:`parse_json` (or :func:`read_json`, which also decodes the
file as :func:`kcca.data._text_files.read_utf8` does); TOML experiment and run files through
:func:`parse_toml`.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, Callable

from kcca.data._text_files import read_utf8, tomllib
from kcca.errors import DataError, KccaUserError

#: the remedy of a document nested too deeply or too large to read
_NOT_A_DOCUMENT = (
    "check that the file is the one meant (a result or data file, not a generated or damaged "
    "one) and write it again"
)


def parse_json(
    text: str,
    path: str | os.PathLike,
    *,
    error: type[DataError] = DataError,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> Any:
    """The JSON document ``text`` (the content of ``path``); a syntax error, an over-long
    number, a document nested too deeply or too large to hold raises ``error`` naming
    ``path``. An error the hook raises (a :class:`~kcca.errors.KccaUserError`) passes."""
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError as exc:
        raise error(
            f"{path}:{exc.lineno}: not valid JSON: {exc.msg} at line {exc.lineno} column "
            f"{exc.colno}",
            fix=f"correct the JSON at line {exc.lineno} of {path}",
        ) from None
    except KccaUserError:
        raise
    except RecursionError:
        raise error(
            f"{path}: JSON nested too deeply to read (more levels of [ ] or {{ }} than "
            "Python's parser follows)",
            fix=_NOT_A_DOCUMENT,
        ) from None
    except MemoryError:
        raise error(f"{path}: JSON too large to read in memory", fix=_NOT_A_DOCUMENT) from None
    except ValueError as exc:  # an integer of more than 4300 digits, say
        raise error(f"{path}: not valid JSON: {exc}", fix=_NOT_A_DOCUMENT) from None


def read_json(
    path: str | os.PathLike,
    *,
    error: type[DataError] = DataError,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> Any:
    """The JSON document of the UTF-8 file ``path`` (:func:`parse_json`); ``OSError`` is left
    to the caller."""
    text = read_utf8(path, error=error)
    return parse_json(text, path, error=error, object_pairs_hook=object_pairs_hook)


def parse_toml(
    text: str, path: str | os.PathLike, *, error: type[DataError] = DataError
) -> dict[str, Any]:
    """The TOML document ``text`` (the content of ``path``); a syntax error (with its line),
    a document nested too deeply or too large to hold raises ``error`` naming ``path``."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        line = f":{m.group(1)}" if m else ""
        if not m and "end of document" in msg:
            line = f":{len(text.splitlines())}"
        raise error(
            f"{path}{line}: TOML syntax error: {msg}",
            fix="correct the TOML at that line: strings in double quotes, arrays in [ ], "
            "one key = value per line (https://toml.io)",
        ) from None
    except RecursionError:
        raise error(
            f"{path}: TOML nested too deeply to read (more levels of [ ] or {{ }} than "
            "Python's parser follows)",
            fix=_NOT_A_DOCUMENT,
        ) from None
    except MemoryError:
        raise error(f"{path}: TOML too large to read in memory", fix=_NOT_A_DOCUMENT) from None
