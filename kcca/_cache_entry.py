"""One cache entry on disk: data only, saying what it is, read only from the user's own files.

An entry is a zip archive (``<key>.entry``; ``np.load(allow_pickle=False)`` opens it) with
members stored, never compressed:

* ``header.json``: magic, format version, the stage, the key (and, for a
  per-item record, the item), the config behind the key, the input files behind the value
  (absolute path -> content digest, :mod:`kcca._fingerprints`, which ``kcca cache verify``
  re-checks) and the SHA-256 of everything else the entry holds (:func:`content_digest`);
* ``tree.json`` and ``arr_N.npy``: the value as :mod:`kcca._data_tree` writes it: only the
  classes of :data:`CACHE_CLASSES` are ever rebuilt, so no entry can run code, whoever wrote it.

An entry is used only when its header names the stage and key (and item) it is read for, so a
file copied or renamed into another entry's place is recomputed, not served, and only when what
it holds still has the digest its header records, so an entry changed after it was written
(edited in place, or damaged on disk) is recomputed too. Entries and stage
folders are created with owner-only write permissions whatever the umask, and an entry that
another user owns, or that group or others could write, is refused by name
(:class:`UntrustedCacheFile`).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shlex
import stat
import zipfile
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from kcca._atomic_files import atomic_write
from kcca._data_tree import (
    ClassTable,
    TreeDecoder,
    TreeEncoder,
    UnknownClassError,
    encode_tree,
    read_array_member,
    write_archive,
)
from kcca.errors import DataError
from kcca.limits import MAX_CACHE_HEADER_BYTES

ENTRY_SUFFIX = ".entry"
ENTRY_MAGIC = "kcca-cache-entry"
#: bump when the layout changes: entries of another version are recomputed (version 2 added
#: the content digest)
ENTRY_VERSION = 2
HEADER = "header.json"
TREE = "tree.json"
#: the header field holding :func:`content_digest`
DIGEST = "digest"
#: arrays of at most this many bytes share one member per dtype (a per-image record is one
#: member, read at once)
POOLED_BYTES = 1 << 16
#: permission bits never set on what the cache creates, and refused on what it reads
FOREIGN_WRITE = stat.S_IWGRP | stat.S_IWOTH
#: folders are created with this mode (the umask can only take bits away)
FOLDER_MODE = 0o755

#: every class a cache entry may hold, as ``module:name``
CACHE_CLASSES = ClassTable(
    frozenset(
        {
            "features._codebook:Codebook",
            "features._image_features:ImageFeatures",
            "features.text._corpus_tokens:PreprocessedCorpus",
            "features.text._english_corpus:TokenizedCorpus",
            "features.text._similarity_alignment:AlignmentSimilarity",
            "features.text._similarity_alignment:IBMAligner",
            "features.text._similarity_alignment:PosStatistics",
            "features.text._similarity_alignment:_Links",
            "features.text._similarity_distributional:DistributionalSimilarity",
            "features.text._similarity_lin:LinSimilarity",
            "features.text._word_kernel:WordKernel",
            "kcca._solver.factors:KernelSide",
            "kcca._systems.grid:DevOutcome",
        }
    ),
    # the names entries written before a rename hold
    {"kcca._solver.factors:_Side": "kcca._solver.factors:KernelSide"},
)


class EntryUnusable(ValueError):
    """An entry that cannot serve the request: damaged, of another format version, or holding
    another stage's, key's or item's value. The caller recomputes it."""


class UntrustedCacheFile(DataError):
    """A cache file or folder that someone else could have written."""


def entry_header(
    stage: str,
    key: str,
    *,
    config: Any = None,
    inputs: dict[str, str] | None = None,
    item: str | None = None,
) -> dict[str, Any]:
    """The header fields of an entry (magic and version added on write)."""
    head: dict[str, Any] = {"stage": stage, "key": key, "config": config, "inputs": inputs or {}}
    if item is not None:
        head["item"] = item
    return head


def write_entry(path: Path, value: Any, header: dict[str, Any]) -> Path:
    """Write ``value`` as an entry at ``path`` (atomically, owner-only write); a value holding
    a class outside :data:`CACHE_CLASSES` raises :class:`DataError` before anything is
    written."""
    enc = TreeEncoder(
        CACHE_CLASSES,
        what="a cache entry",
        allowed_name="kcca._cache_entry.CACHE_CLASSES",
        small_bytes=POOLED_BYTES,
    )
    tree, arrays, pools = encode_tree(enc, value, "value")
    head = {
        **header,
        "magic": ENTRY_MAGIC,
        "format_version": ENTRY_VERSION,
        "pools": pools,
    }
    head = json.loads(json.dumps(head))  # as a reader parses it (keys as strings), digested
    head[DIGEST] = content_digest(head, tree, arrays.items())
    members = {HEADER: json.dumps(head, sort_keys=True).encode(), TREE: tree}
    make_private_folder(path.parent)
    return atomic_write(path, lambda tmp: write_archive(tmp, members, arrays))


#: what reading a damaged or foreign entry raises: the entry is unusable, never a crash
_DAMAGED = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    OSError,
    EOFError,
    ValueError,
    KeyError,
    TypeError,
    AttributeError,
    IndexError,
    RecursionError,
    MemoryError,
)


def read_entry(path: Path, *, stage: str, key: str, item: str | None = None) -> Any:
    """The value of the entry at ``path``, which must say it holds ``stage``/``key``/``item``.

    Raises :class:`EntryUnusable` for a damaged or misplaced entry, :class:`UntrustedCacheFile`
    for one another user could have written, ``FileNotFoundError`` when there is none."""
    with open_owned(path) as f:
        try:
            with zipfile.ZipFile(f) as zf:
                head = _read_header(zf)
                found = (head.get("stage"), head.get("key"), head.get("item"))
                if found != (stage, key, item):
                    raise EntryUnusable(
                        f"it holds {_what(*found)}, not {_what(stage, key, item)} as its name says"
                    )
                return _read_value(zf, head)
        except EntryUnusable:
            raise
        except _DAMAGED as exc:
            raise EntryUnusable(f"damaged ({type(exc).__name__}: {exc})") from None


def check_entry(path: Path) -> dict[str, Any]:
    """The header of the entry at ``path``, once what the entry holds is checked against the
    digest its header records (one array in memory at a time; ``kcca cache verify``).

    Raises :class:`EntryUnusable` when it is not a complete, unchanged entry of this format
    version, :class:`UntrustedCacheFile` for one another user could have written."""
    with open_owned(path) as f:
        try:
            with zipfile.ZipFile(f) as zf:
                head = _read_header(zf)
                _check_digest(head, zf.read(TREE), _array_members(zf))
                return head
        except EntryUnusable:
            raise
        except _DAMAGED as exc:
            raise EntryUnusable(f"damaged ({type(exc).__name__}: {exc})") from None


def content_digest(
    head: dict[str, Any], tree: bytes, arrays: Iterable[tuple[str, np.ndarray]]
) -> str:
    """SHA-256 (hex) of an entry's content: its header without the digest field, its tree
    and its arrays by name (dtype, shape, memory order and bytes: the value they rebuild, not
    the layout of the zip). Any change to what an entry serves changes it."""
    h = hashlib.sha256()
    fields = {k: v for k, v in head.items() if k != DIGEST}
    h.update(json.dumps(fields, sort_keys=True).encode())
    h.update(b"\0%d\0" % len(tree))
    h.update(tree)
    for name, a in sorted(arrays, key=lambda kv: kv[0]):
        if a.flags.c_contiguous:
            data, order = a, "C"
        elif a.flags.f_contiguous:
            data, order = a.T, "F"
        else:  # written in C order
            data, order = np.ascontiguousarray(a), "C"
        h.update(f"\0{name}\0{a.dtype.str}\0{a.shape}\0{order}\0".encode())
        h.update(data.reshape(-1).view(np.uint8).data)
    return h.hexdigest()


def _check_digest(
    head: dict[str, Any], tree: bytes, arrays: Iterable[tuple[str, np.ndarray]]
) -> None:
    """Raise :class:`EntryUnusable` unless the content has the digest the header records."""
    if content_digest(head, tree, arrays) != head.get(DIGEST):
        raise EntryUnusable(
            "what it holds does not match the content digest in its header (it was changed "
            "or damaged after it was written)"
        )


def _array_members(zf: zipfile.ZipFile) -> Iterable[tuple[str, np.ndarray]]:
    """``(name, array)`` of each array member, read one at a time."""
    for m in dict.fromkeys(zf.namelist()):
        if m not in (HEADER, TREE):
            yield m[:-4], read_array_member(zf, m)


def _what(stage: Any, key: Any, item: Any) -> str:
    return f"{stage}/{key}" + (f" item {item}" if item is not None else "")


def _read_header(zf: zipfile.ZipFile) -> dict[str, Any]:
    for info in zf.infolist():  # stored members only: nothing inflates past the file's size
        if info.compress_type != zipfile.ZIP_STORED:
            raise EntryUnusable(f"member {info.filename} is compressed: not a kcca cache entry")
    info = zf.getinfo(HEADER)
    if info.file_size > MAX_CACHE_HEADER_BYTES:
        raise EntryUnusable(f"{HEADER} is too large: not a kcca cache entry")
    head = json.loads(zf.read(info).decode("utf-8"))
    if not isinstance(head, dict) or head.get("magic") != ENTRY_MAGIC:
        raise EntryUnusable("not a kcca cache entry (wrong magic)")
    if head.get("format_version") != ENTRY_VERSION:
        raise EntryUnusable(
            f"an entry of format version {head.get('format_version')!r}; this kcca reads "
            f"version {ENTRY_VERSION}"
        )
    return head


def _read_value(zf: zipfile.ZipFile, head: dict[str, Any]) -> Any:
    arrays = dict(_array_members(zf))
    tree = zf.read(TREE)
    _check_digest(head, tree, arrays.items())
    pools = head.get("pools")
    try:
        return TreeDecoder(arrays, pools, CACHE_CLASSES).decode(tree)
    except UnknownClassError as exc:
        raise EntryUnusable(
            f"it names the class {str(exc)!r}, which an entry may not hold"
        ) from None


# ------------------------------------------------------------------ ownership
class open_owned:
    """``open(path, "rb")`` without following a symbolic link, refusing a file that is not a
    regular file of this user's that group and others cannot write."""

    def __init__(self, path: Path):
        self.path = path

    def __enter__(self):
        try:
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError as exc:
            if exc.errno == errno.ELOOP and os.path.islink(self.path):
                raise UntrustedCacheFile(
                    f"cache entry {self.path} is a symbolic link; the cache reads only its "
                    "own files",
                    fix=_remove_fix(self.path),
                ) from None
            raise
        try:
            check_owned(self.path, os.fstat(fd), folder=False)
        except BaseException:
            os.close(fd)
            raise
        self.file = os.fdopen(fd, "rb")
        return self.file

    def __exit__(self, *exc: Any) -> None:
        self.file.close()


def check_owned(path: Path, st: os.stat_result, *, folder: bool) -> None:
    """Refuse a cache file (or folder) that another user owns or that others could write
    (files: group or others; folders: others)."""
    kind = "folder" if folder else "entry"
    if folder and not stat.S_ISDIR(st.st_mode):
        raise DataError(
            f"cache folder {path} is not a folder",
            fix=_remove_fix(path),
        )
    if not folder and not stat.S_ISREG(st.st_mode):
        is_dir = stat.S_ISDIR(st.st_mode)
        raise DataError(
            f"cache entry {path} is a {'folder' if is_dir else 'special file'}, not a file: "
            "the cache never makes one there, and cannot store the entry in its place",
            fix=(
                f"remove the folder (`rm -r {shlex.quote(str(path))}`) once anything of yours "
                "in it is moved out, and run the command again"
                if is_dir
                else f"remove it (`rm {shlex.quote(str(path))}`) and run the command again"
            ),
        )
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise UntrustedCacheFile(
            f"cache {kind} {path} belongs to another user (uid {st.st_uid}); the cache reads "
            "only its own files",
            fix=_remove_fix(path),
        )
    writable = st.st_mode & (stat.S_IWOTH if folder else FOREIGN_WRITE)
    if writable:
        who = "every user" if st.st_mode & stat.S_IWOTH else "its group"
        raise UntrustedCacheFile(
            f"cache {kind} {path} is writable by {who}, so its content may not be yours",
            fix=f"if you wrote it: `chmod go-w {shlex.quote(str(path))}`; else {_remove_fix(path)}",
        )


def _remove_fix(path: Path) -> str:
    return (
        f"move it out of the cache (`mv {shlex.quote(str(path))} /tmp/`), or pass --cache-dir "
        "with a folder of your own"
    )


def make_private_folder(folder: Path) -> None:
    """Create ``folder`` and its missing parents with :data:`FOLDER_MODE` (never writable
    by group or others, whatever the umask)."""
    missing = []
    probe = folder
    while not probe.exists():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for f in reversed(missing):
        try:
            f.mkdir(mode=FOLDER_MODE)
        except FileExistsError:
            pass


def check_folder(folder: Path) -> None:
    """Refuse a stage or record folder that is a symbolic link, not a folder, or writable
    by others or owned by another user."""
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise UntrustedCacheFile(
            f"cache folder {folder} is a symbolic link; the cache does not follow links out "
            "of its folder",
            fix=_remove_fix(folder),
        )
    check_owned(folder, st, folder=True)
