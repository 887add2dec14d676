"""Content fingerprints of the files a stage reads, for cache keys and ``kcca cache verify``.

A cached stage is keyed by its parameters and by the *content* of every input file (SHA-256),
never by a path or a modification time alone: an edited caption, lemma, split or image file
changes the key of exactly the stages that read it, and a restored file hits its old entries
again. A digest is memoised per process under the file's path, size, modification time and
inode, so a file is read once per process however many stages ask for it.

Stages record the files behind their key in the entry's header (``"inputs"``: path
-> digest); :func:`changed_inputs` re-checks them (``kcca cache verify``).
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Iterable, Mapping

_MEMO: dict[tuple[str, int, int, int], str] = {}
_CHUNK = 1 << 20


def file_digest(path: str | os.PathLike) -> str:
    """SHA-256 (hex) of a file's bytes; raises ``OSError`` if it cannot be read."""
    real = os.path.realpath(path)
    st = os.stat(real)
    memo = (real, st.st_size, st.st_mtime_ns, st.st_ino)
    digest = _MEMO.get(memo)
    if digest is None:
        with open(real, "rb") as f:
            digest = _MEMO[memo] = _read_digest(f)
    return digest


def regular_file_digest(path: str | os.PathLike) -> str:
    """:func:`file_digest` of a regular file only, reading no more than the size it had when
    opened; ``OSError`` for a folder, FIFO or device, which is never waited on or read (the
    files a cache entry's header names, which anyone could have edited)."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise OSError(f"{path} is not a regular file")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # replaced since the check
            raise OSError(f"{path} is not a regular file")
        memo = (os.path.realpath(path), st.st_size, st.st_mtime_ns, st.st_ino)
        digest = _MEMO.get(memo)
        if digest is None:
            digest = _MEMO[memo] = _read_digest(f, st.st_size)
    return digest


def _read_digest(f, limit: int | None = None) -> str:
    """SHA-256 (hex) of what ``f`` holds (at most ``limit`` bytes)."""
    h = hashlib.sha256()
    left = limit
    while left is None or left > 0:
        chunk = f.read(_CHUNK if left is None else min(_CHUNK, left))
        if not chunk:
            break
        h.update(chunk)
        if left is not None:
            left -= len(chunk)
    return h.hexdigest()


def tree_digest(path: str | os.PathLike) -> str:
    """Digest of a file, or of a folder: every file below it, by relative name and content."""
    root = Path(path)
    if not root.is_dir():
        return file_digest(root)
    h = hashlib.sha256()
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            f = Path(d) / name
            h.update(f"{f.relative_to(root).as_posix()}\x00{file_digest(f)}\x01".encode())
    return h.hexdigest()


def files_digest(paths: Mapping[str, str | os.PathLike]) -> str:
    """One digest of named files (name -> path), by name and content, in name order."""
    h = hashlib.sha256()
    for name in sorted(paths):
        h.update(f"{name}\x00{file_digest(paths[name])}\x01".encode())
    return h.hexdigest()


def input_record(paths: Iterable[str | os.PathLike]) -> dict[str, str]:
    """``{absolute path: digest}`` of files, for a cache entry's header."""
    return {os.path.abspath(p): file_digest(p) for p in paths}


def changed_inputs(record: Mapping[str, str]) -> dict[str, str]:
    """The files of an input record whose content changed: path -> what happened. Only
    regular files are read (:func:`regular_file_digest`)."""
    out = {}
    for path, digest in record.items():
        try:
            now = regular_file_digest(path)
        except OSError as exc:
            out[path] = f"unreadable ({exc.strerror or exc})"
            continue
        if now != digest:
            out[path] = "content changed"
    return out
