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
        h = hashlib.sha256()
        with open(real, "rb") as f:
            while chunk := f.read(_CHUNK):
                h.update(chunk)
        digest = _MEMO[memo] = h.hexdigest()
    return digest


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
    """The files of an input record whose content changed: path -> what happened."""
    out = {}
    for path, digest in record.items():
        try:
            now = file_digest(path)
        except OSError as exc:
            out[path] = f"unreadable ({exc.strerror or exc})"
            continue
        if now != digest:
            out[path] = "content changed"
    return out
