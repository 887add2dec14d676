"""Text files read as UTF-8, with errors that name the file: a byte-order mark, UTF-16 text,
or bytes that are not UTF-8 (with the line and the byte offset).

Every reader of a text input (corpus files, rankings, caption JSON, caption lists) decodes
through :func:`decode_utf8`, so that a file saved as "UTF-8 with BOM" or in a legacy encoding
is named as such instead of failing later with a confusing message (a BOM glued onto the
first id, say). Each error's ``fix`` is a command that repairs the file, runnable as printed.
"""

from __future__ import annotations

import io
import os
import shlex
import sys
from pathlib import Path
from typing import Iterator

from kcca.errors import DataError

#: the TOML parser of experiment files: the standard library's, or the same as a package on
#: Python 3.10
if sys.version_info >= (3, 11):
    import tomllib as tomllib
else:
    import tomli as tomllib  # noqa: F401 (re-exported, as on 3.11)

UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
BOM_CHAR = "\ufeff"

_STRIP_BOM = (
    "import sys, pathlib; p = pathlib.Path(sys.argv[1]); "
    'p.write_bytes(p.read_bytes().replace(b"\\xef\\xbb\\xbf", b""))'
)
_RECODE = (
    "import sys, pathlib; p = pathlib.Path(sys.argv[1]); "
    'p.write_text(p.read_bytes().decode("{encoding}"), encoding="utf-8")'
)


def _command(code: str, path: str | os.PathLike) -> str:
    return f"python3 -c {shlex.quote(code)} {shlex.quote(os.path.abspath(path))}"


def bom_fix(path: str | os.PathLike) -> str:
    """The fix for a UTF-8 byte-order mark: a command that removes it from ``path``."""
    return (
        'remove the byte-order mark (save as "UTF-8", not "UTF-8 with BOM"), e.g. '
        f"with `{_command(_STRIP_BOM, path)}`"
    )


def recode_fix(path: str | os.PathLike, encoding: str = "cp1252") -> str:
    """The fix for text in another encoding: a command converting ``path`` to UTF-8."""
    command = _command(_RECODE.format(encoding=encoding), path)
    if encoding == "utf-16":
        return f"convert the file to UTF-8, e.g. with `{command}`"
    return (
        "re-save the file as UTF-8 from its encoding; a Windows-1252 (Latin-1) file is "
        f"converted by `{command}`"
    )


def _line_of(raw: bytes, offset: int) -> int:
    return raw.count(b"\n", 0, offset) + 1


def decode_utf8(raw: bytes, path: str | os.PathLike, *, error: type[DataError] = DataError) -> str:
    """``raw`` (the bytes of ``path``) as text; a BOM or a non-UTF-8 byte raises ``error``."""
    if raw.startswith(UTF8_BOM):
        raise error(
            f"{path} starts with a UTF-8 byte-order mark (BOM); kcca reads UTF-8 without one",
            fix=bom_fix(path),
        )
    if raw.startswith(UTF16_BOMS):
        raise error(
            f"{path} is UTF-16 text (it starts with a UTF-16 byte-order mark); kcca reads UTF-8",
            fix=recode_fix(path, "utf-16"),
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start : exc.start + 1].hex()
        raise error(
            f"{path}:{_line_of(raw, exc.start)}: not UTF-8 text (byte 0x{bad} at byte "
            f"offset {exc.start}: {exc.reason}); re-save the file as UTF-8",
            fix=recode_fix(path),
        ) from None


def read_utf8(path: str | os.PathLike, *, error: type[DataError] = DataError) -> str:
    """The text of a UTF-8 file (see :func:`decode_utf8`); ``OSError`` is left to the caller."""
    return decode_utf8(Path(path).read_bytes(), path, error=error)


def utf8_lines(
    path: str | os.PathLike, *, error: type[DataError] = DataError
) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of every line, 1-based, newline stripped (``\\n``, ``\\r\\n``
    or ``\\r``, as ``open`` splits). A line starting with U+FEFF (files joined with their
    byte-order marks) raises ``error`` naming it."""
    text = read_utf8(path, error=error)
    for number, line in enumerate(io.StringIO(text, newline=None), start=1):
        if line.startswith(BOM_CHAR):
            raise error(
                f"{path}:{number}: line starts with a byte-order mark (U+FEFF; were "
                "files with a BOM joined?)",
                fix=bom_fix(path),
            )
        yield number, line.rstrip("\r\n")
