"""What a path is (a folder, a named pipe, a device, a dangling or looping symbolic link), in
words for messages, without following a link further than the operating system does; and
:func:`check_regular_file`, which refuses anything but a regular file by name before it is
opened (reading a FIFO or ``/dev/zero`` would never end)."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


def path_kind(path: str | os.PathLike) -> str:
    """``path`` in words: ``"a file"``, ``"a folder"``, ``"a named pipe (FIFO)"``, ``"a
    character device"``, ``"a block device"``, ``"a socket"``, ``"a symbolic link loop"``,
    ``"a symbolic link to T, which does not exist"``, or ``"missing"``."""
    try:
        st = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symbolic link loop"
        if os.path.islink(path):
            return f"a symbolic link to {os.readlink(os.fspath(path))}, which does not exist"
        return "missing"
    if stat.S_ISREG(st.st_mode):
        return "a file"
    if stat.S_ISDIR(st.st_mode):
        return "a folder"
    if stat.S_ISFIFO(st.st_mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(st.st_mode):
        return "a character device"
    if stat.S_ISBLK(st.st_mode):
        return "a block device"
    if stat.S_ISSOCK(st.st_mode):
        return "a socket"
    return "not a file"


def broken_link(path: str | os.PathLike) -> Path | None:
    """The first symbolic link on ``path`` (itself or a folder above it) that loops or points
    to nothing, or ``None``."""
    p = Path(os.path.abspath(path))
    for part in [*reversed(p.parents), p]:
        if os.path.islink(part) and path_kind(part).startswith("a symbolic link"):
            return part
    return None


def file_on_path(path: str | os.PathLike) -> Path | None:
    """The first entry above ``path`` that exists and is not a folder (what makes a path
    "not a directory"), or ``None``."""
    p = Path(os.path.abspath(path))
    for part in reversed(p.parents):
        if part.exists() and not part.is_dir():
            return part
    return None


def check_regular_file(path: str | os.PathLike, what: str, fix: str) -> Path:
    """``path`` as a ``Path`` when it is a regular file (links followed); else a
    :class:`~kcca.errors.DataError` naming ``what`` it should be and what it is: missing, a
    folder, a named pipe, a device, a socket, a symbolic link loop or a link to nothing."""
    from kcca.errors import DataError

    kind = path_kind(path)
    if kind == "a file":
        return Path(path)
    if kind == "missing":
        raise DataError(f"{what} {path} does not exist", fix=fix)
    raise DataError(f"{what} {path} is {kind}, not a file", fix=fix)
