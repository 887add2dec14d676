"""``kcca cache verify`` and ``prune``: what a cache folder holds, and deleting only its own files.

A file is the cache's own only when it proves it: an entry (``<key>.entry``, or a per-item
record ``<stage>/<key>/<item>.entry``) whose header names the stage folder and key it lies in;
an entry of the older pickle format (``<key>.joblib`` or ``.npz``) whose ``<key>.json`` sidecar
names its stage folder and hashes to its key; an older per-image record listed in its folder's
``inputs.json``; or a temporary file of a killed writer of this host. Symbolic links are never
followed, files of other users never touched, and everything else in the folder is left alone.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from kcca._atomic_files import TEMP_FILE, process_alive, host_name
from kcca._cache import check_trusted, config_key
from kcca._cache_entry import ENTRY_SUFFIX, EntryUnusable, check_entry
from kcca.errors import DataError
from kcca.limits import MAX_CACHE_HEADER_BYTES

_KEY = re.compile(r"[0-9a-f]{20}")
_ENTRY = re.compile(r"[0-9a-f]{20}" + re.escape(ENTRY_SUFFIX))
#: the value suffixes of entries written by older versions (pickles and arrays), each with a
#: ``<key>.json`` sidecar
OLD_SUFFIXES = (".joblib", ".npz")
#: the manifest of an older per-image record folder: record file name -> input record
OLD_MANIFEST = "inputs.json"
#: an older per-image record: ``<item>.<16 hex digits of its image's digest, or memory>``
_OLD_RECORD = re.compile(r".+\.(?:[0-9a-f]{16}|memory)\.joblib")
#: the settings file of a folder of per-item records (kept, never an entry)
RECORDS_CONFIG = "config.json"


@dataclass
class CacheAudit:
    """What :func:`verify_cache` found in a cache folder.

    ``current``: entries whose input files are unchanged; ``stale``: entry -> the input files
    that changed; ``unusable``: entries that are damaged (their content no longer has the
    digest their header records, among others), of another format version or hold another
    stage's or key's value (entry -> why); ``old_format``: files of entries written by
    an older kcca as pickles (never read now); ``leftovers``: temporary files of killed
    writers; ``foreign``: files and links that are not the cache's own, left alone."""

    root: Path
    current: int = 0
    stale: dict[Path, list[str]] = field(default_factory=dict)
    unusable: dict[Path, str] = field(default_factory=dict)
    old_format: list[Path] = field(default_factory=list)
    leftovers: list[Path] = field(default_factory=list)
    foreign: list[Path] = field(default_factory=list)

    def doomed(self) -> list[Path]:
        """The files :func:`prune_cache` deletes (never a current entry)."""
        return [*self.stale, *self.unusable, *self.old_format, *self.leftovers]

    def stages(self) -> dict[str, dict[str, int]]:
        """Stage -> {"stale": n} (for the report)."""
        out: dict[str, dict[str, int]] = {}
        for p in self.stale:
            stage = p.relative_to(self.root).parts[0]
            out.setdefault(stage, {"stale": 0})["stale"] += 1
        return out


def _scan(folder: Path) -> Iterator[tuple[Path, os.stat_result]]:
    """``(path, lstat)`` of each name in ``folder`` (links not followed), by name."""
    with os.scandir(folder) as it:
        names = sorted(it, key=lambda e: e.name)
    for e in names:
        try:
            yield Path(e.path), e.stat(follow_symlinks=False)
        except FileNotFoundError:  # removed meanwhile
            continue


def _mine(st: os.stat_result) -> bool:
    return not hasattr(os, "getuid") or st.st_uid == os.getuid()


def verify_cache(root: str | os.PathLike) -> CacheAudit:
    """Re-check the content and the input files of every entry of a cache folder (``kcca
    cache verify``)."""
    root = Path(root)
    check_trusted(root)
    audit = CacheAudit(root)
    if not root.is_dir():
        return audit
    for stage_dir, st in _scan(root):
        if stat.S_ISDIR(st.st_mode) and _mine(st):
            _audit_stage(audit, stage_dir)
        else:
            audit.foreign.append(stage_dir)
    return audit


def _audit_stage(audit: CacheAudit, folder: Path) -> None:
    stage = folder.name
    names = {p.name for p, _ in _scan(folder)}
    for path, st in _scan(folder):
        name = path.name
        if stat.S_ISDIR(st.st_mode) and _KEY.fullmatch(name) and _mine(st):
            _audit_records(audit, path, stage)
        elif not stat.S_ISREG(st.st_mode) or not _mine(st):
            audit.foreign.append(path)
        elif _ENTRY.fullmatch(name):
            _audit_entry(audit, path, stage, name[: -len(ENTRY_SUFFIX)], None)
        elif _old_entry_file(folder, names, stage, name):
            audit.old_format.append(path)
        elif _dead_temp(name):
            audit.leftovers.append(path)
        else:
            audit.foreign.append(path)


def _audit_entry(audit: CacheAudit, path: Path, stage: str, key: str, item: str | None) -> None:
    from kcca._fingerprints import changed_inputs

    try:
        head = check_entry(path)
    except EntryUnusable as exc:
        audit.unusable[path] = str(exc)
        return
    except DataError:  # another user's file, or one that others can write: not touched
        audit.foreign.append(path)
        return
    found = (head.get("stage"), head.get("key"), head.get("item"))
    if found != (stage, key, item):
        audit.unusable[path] = f"it holds {found[0]}/{found[1]}, not what its name says"
        return
    inputs = head.get("inputs")
    changed = changed_inputs(inputs) if isinstance(inputs, dict) else {}
    if changed:
        audit.stale[path] = [f"{p}: {why}" for p, why in sorted(changed.items())]
    else:
        audit.current += 1


def _audit_records(audit: CacheAudit, folder: Path, stage: str) -> None:
    """A folder of per-item records (``<stage>/<key>/<item>.entry``, beside the folder's
    ``config.json``); older records are ``<item>.<16 hex or memory>.joblib`` in a folder
    with that ``config.json`` or an ``inputs.json`` manifest."""
    manifest = _old_manifest(folder)
    ours = bool(manifest) or (folder / RECORDS_CONFIG).is_file()
    for path, st in _scan(folder):
        name = path.name
        if not stat.S_ISREG(st.st_mode) or not _mine(st):
            audit.foreign.append(path)
        elif name.endswith(ENTRY_SUFFIX):
            _audit_entry(audit, path, stage, folder.name, name[: -len(ENTRY_SUFFIX)])
        elif name == RECORDS_CONFIG:
            continue
        elif (ours and _OLD_RECORD.fullmatch(name)) or (
            name == OLD_MANIFEST and manifest is not None and ours
        ):
            audit.old_format.append(path)
        elif _dead_temp(name):
            audit.leftovers.append(path)
        else:
            audit.foreign.append(path)


def _old_manifest(folder: Path) -> set[str] | None:
    """The older records the ``inputs.json`` of ``folder`` lists, or ``None`` when there is
    no such manifest."""
    try:
        doc = json.loads(read_regular(folder / OLD_MANIFEST, MAX_CACHE_HEADER_BYTES))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(doc, dict) or not all(
        isinstance(k, str) and _OLD_RECORD.fullmatch(k) and "/" not in k for k in doc
    ):
        return None
    return set(doc)


def _old_entry_file(folder: Path, names: set[str], stage: str, name: str) -> bool:
    """Whether ``name`` is the value or sidecar of an older entry: ``<key>.json`` names the
    stage and its config hashes to ``key``."""
    key, _, suffix = name.partition(".")
    if not _KEY.fullmatch(key) or "." + suffix not in (*OLD_SUFFIXES, ".json"):
        return False
    sidecar = folder / f"{key}.json"
    if sidecar.name not in names:
        return False
    try:
        doc = json.loads(read_regular(sidecar, MAX_CACHE_HEADER_BYTES))
        return (
            isinstance(doc, dict)
            and doc.get("stage") == stage
            and config_key(doc.get("config")) == key
        )
    except (OSError, ValueError, TypeError, RecursionError):
        return False


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, not following a link;
    ``OSError`` for anything else (a FIFO or device is never waited on or read)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            raise OSError(f"{path} is not a regular file of at most {limit:,} bytes")
        return f.read(st.st_size)


def _dead_temp(name: str) -> bool:
    m = TEMP_FILE.match(name)
    return m is not None and m["host"] == host_name() and not process_alive(int(m["pid"]))


def file_size(path: Path) -> int:
    try:
        return os.lstat(path).st_size
    except OSError:
        return 0


def prune_cache(audit: CacheAudit) -> list[Path]:
    """Delete the files of :meth:`CacheAudit.doomed` (never following a link); returns those
    removed (a file another process removed first is skipped)."""
    removed = []
    for f in audit.doomed():
        try:
            if stat.S_ISREG(os.lstat(f).st_mode):
                f.unlink()
                removed.append(f)
        except FileNotFoundError:
            pass
    return removed
