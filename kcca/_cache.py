"""On-disk cache of pipeline stages, keyed by a hash of the stage's config, written atomically.

Every arrow of the data flow (docs/design.md#data-flow) is a function of its inputs and a config; a
stage stores its result under ``<root>/<stage>/<key>.entry`` where ``key`` hashes that config.
Entries are data, never pickles (:mod:`kcca._cache_entry`): no cache content can run code, whoever
wrote it. Files are written to a temporary name in the same folder and renamed into place, so an
interrupted run never leaves a partial entry and the next run resumes from what is there.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any, Callable, Iterable, TypeVar

import numpy as np

from kcca._atomic_files import (  # noqa: F401 - the names the toolkit imports from here
    TEMP_FILE,
    process_alive,
    host_name,
    atomic_write,
    remove_stale_temp_files,
    stale_temp_files,
    write_text_atomic,
)
from kcca._cache_entry import (
    ENTRY_SUFFIX,
    EntryUnusable,
    UntrustedCacheFile,
    check_folder,
    entry_header,
    read_entry,
    write_entry,
)
from kcca.errors import DataError
from kcca._fingerprints import input_record

T = TypeVar("T")
#: what a caller expects an entry's value to be: a type, a tuple of types, or None (anything)
Expected = type | tuple[type, ...] | None
log = logging.getLogger(__name__)

DEFAULT_CACHE_ENV = "KCCA_CACHE_DIR"

#: stage -> {"computed": n, "loaded": n} over every enabled Cache of this process (for the
#: summary ``kcca`` prints at the end of a command; :func:`cache_stats`, :func:`reset_cache_stats`)
_STATS: dict[str, dict[str, int]] = {}


def cache_stats() -> dict[str, dict[str, int]]:
    """Entries computed (and stored) and loaded per stage since the last reset, this process."""
    return {stage: dict(c) for stage, c in _STATS.items()}


def reset_cache_stats() -> None:
    _STATS.clear()


def format_cache_stats(stats: dict[str, dict[str, int]] | None = None) -> str:
    """``"cache: image-features 0 computed / 3 loaded; system-dev 2 computed / 0 loaded"``,
    folded between entries to fit 100 columns."""
    stats = cache_stats() if stats is None else stats
    if not stats:
        return ""
    entries = [
        f"{stage} {c.get('computed', 0)} computed / {c.get('loaded', 0)} loaded"
        for stage, c in stats.items()
    ]
    lines = ["cache: " + entries[0]]
    for entry in entries[1:]:  # folded between entries at 100 columns
        if len(lines[-1]) + 2 + len(entry) <= 100:
            lines[-1] += "; " + entry
        else:
            lines[-1] += ";"
            lines.append("  " + entry)
    return "\n".join(lines)


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return {
            "__ndarray__": hashlib.sha256(np.ascontiguousarray(obj).tobytes()).hexdigest(),
            "shape": list(obj.shape),
            "dtype": str(obj.dtype),
        }
    if isinstance(obj, (np.integer, np.floating, np.bool_)):
        return obj.item()
    if isinstance(obj, Path):
        return str(obj)
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if hasattr(obj, "get_params"):
        return {"__class__": type(obj).__name__, "params": _jsonable(obj.get_params())}
    raise TypeError(f"cannot hash config value of type {type(obj).__name__}: {obj!r}")


def config_key(config: Any) -> str:
    """A stable 20-hex-digit key for a JSON-like config (dicts, lists, numbers, arrays)."""
    text = json.dumps(_jsonable(config), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


class Cache:
    """A folder of cached stage results; ``Cache(None)`` is a disabled cache.

    An entry is ``<root>/<stage>/<key>.entry`` (:mod:`kcca._cache_entry`): data only (no
    pickle: no entry can run code, whoever wrote it), with a header naming its stage and key,
    the config behind the key and the input files behind the value (path -> content digest,
    :mod:`kcca._fingerprints`), which ``kcca cache verify`` re-checks. An entry whose header
    names another stage or key, that is damaged (its content no longer has the SHA-256 its
    header records, :func:`kcca._cache_entry.content_digest`) or whose value is not of the
    type its reader expects (``expect``) is recomputed; one that another user
    could have written is refused by name (:class:`kcca._cache_entry.UntrustedCacheFile`), as
    is a cache folder owned by another user or writable by everyone (:func:`check_trusted`).

    >>> cache = Cache("/tmp/kcca-cache")                      # doctest: +SKIP
    >>> gram = cache.get_or_compute("pyramid-gram", cfg, lambda: compute(cfg))  # doctest: +SKIP
    """

    def __init__(self, root: str | os.PathLike | None):
        self.root = Path(root) if root is not None else None
        #: stage -> {"computed": n, "loaded": n} for this cache (also summed in cache_stats())
        self.stats: dict[str, dict[str, int]] = {}
        self._checked = False
        self._folders: set[str] = set()

    def record(self, stage: str, *, computed: int = 0, loaded: int = 0) -> None:
        """Count entries computed / loaded (``load`` and ``save`` count themselves)."""
        if not self.enabled or not (computed or loaded):
            return
        for counts in (
            self.stats.setdefault(stage, {"computed": 0, "loaded": 0}),
            _STATS.setdefault(stage, {"computed": 0, "loaded": 0}),
        ):
            counts["computed"] += computed
            counts["loaded"] += loaded

    @property
    def enabled(self) -> bool:
        return self.root is not None

    def _open(self) -> Path:
        """The root, checked once: trusted (:func:`check_trusted`), stale temporary files of
        killed writers removed."""
        if self.root is None:
            raise RuntimeError("the cache is disabled (no cache directory)")
        if not self._checked:
            check_trusted(self.root)
            if self.root.is_dir() and str(self.root) not in _CLEANED:
                _CLEANED.add(str(self.root))
                remove_stale_temp_files(self.root)
            self._checked = True
        return self.root

    def folder(self, *parts: str) -> Path:
        """``<root>/<parts...>``, each level checked once (not a symbolic link, the user's
        own, not writable by others: :func:`kcca._cache_entry.check_folder`)."""
        folder = self._open()
        for part in parts:
            folder = folder / part
            if str(folder) not in self._folders:
                check_folder(folder)
                self._folders.add(str(folder))
        return folder

    def path(self, stage: str, config: Any, suffix: str = ENTRY_SUFFIX) -> Path:
        return self.folder(stage) / f"{config_key(config)}{suffix}"

    def has(self, stage: str, config: Any) -> bool:
        return self.enabled and self.path(stage, config).exists()

    def load(self, stage: str, config: Any, expect: Expected = None) -> Any:
        """The value of an entry; :class:`kcca._cache_entry.EntryUnusable` for a damaged or
        misplaced one, or one whose value is not an instance of ``expect`` (a type or tuple
        of types; None: any), ``FileNotFoundError`` for none."""
        value = read_entry(self.path(stage, config), stage=stage, key=config_key(config))
        check_type(value, expect)
        self.record(stage, loaded=1)
        return value

    def load_if_usable(self, stage: str, config: Any, expect: Expected = None) -> tuple[bool, Any]:
        """``(True, value)`` of a usable entry, else ``(False, None)`` (none, damaged,
        misplaced or not of type ``expect``: logged); an entry someone else could have
        written is an error."""
        if not self.enabled:
            return False, None
        try:
            return True, self.load(stage, config, expect)
        except FileNotFoundError:
            return False, None
        except EntryUnusable as exc:
            log.warning(
                "cache entry %s is not used and is computed again: %s",
                self.path(stage, config),
                exc,
            )
            return False, None

    def save(
        self, stage: str, config: Any, value: Any, inputs: Iterable[str | os.PathLike] | None = None
    ) -> None:
        """Store ``value``; ``inputs`` are the files it was computed from (their digests go
        to the header, for ``kcca cache verify``). A value the entry format cannot hold is
        not stored (logged), never an error of the run."""
        if not self.enabled:
            return
        key = config_key(config)
        header = entry_header(
            stage, key, config=_jsonable(config), inputs=input_record(inputs or ())
        )
        try:
            write_entry(self.path(stage, config), value, header)
        except DataError as exc:
            if isinstance(exc, UntrustedCacheFile):
                raise
            log.warning("not cached (%s/%s): %s", stage, key, exc)
            return
        self.record(stage, computed=1)

    # -------------------------------------------------------------- per-item records
    def record_path(self, stage: str, key: str, item: str) -> Path:
        """``<root>/<stage>/<key>/<item>.entry``: one record of a stage that stores one
        entry per item (``image-features`` per image; ``item`` a file-name-safe string)."""
        return self.folder(stage, key) / f"{item}{ENTRY_SUFFIX}"

    def load_record(self, stage: str, key: str, item: str) -> Any | None:
        """A record's value, or ``None`` when there is none or it is damaged or misplaced
        (logged); a record someone else could have written is an error."""
        path = self.record_path(stage, key, item)
        try:
            return read_entry(path, stage=stage, key=key, item=item)
        except FileNotFoundError:
            return None
        except EntryUnusable as exc:
            log.warning("cache record %s is not used and is computed again: %s", path, exc)
            return None

    def save_record(
        self, stage: str, key: str, item: str, value: Any, inputs: dict[str, str]
    ) -> None:
        """Store a record; ``inputs`` is its input record (absolute path -> digest)."""
        header = entry_header(stage, key, inputs=inputs, item=item)
        write_entry(self.record_path(stage, key, item), value, header)

    def get_or_compute(
        self,
        stage: str,
        config: Any,
        compute: Callable[[], T],
        inputs: Iterable[str | os.PathLike] | Callable[[], Iterable] | None = None,
        expect: Expected = None,
    ) -> T:
        """Return the cached value for ``(stage, config)``, computing and storing it if absent.

        ``inputs``: the files behind the value (or a function returning them, called only when
        the value is computed); their content must be part of ``config`` already. ``expect``:
        the type (or tuple of types) of the value; a stored value of another type is computed
        again (None: any type is served).
        """
        found, value = self.load_if_usable(stage, config, expect)
        if found:
            return value
        value = compute()
        self.save(stage, config, value, inputs() if callable(inputs) else inputs)
        return value

    def get_or_compute_arrays(
        self,
        stage: str,
        config: Any,
        compute: Callable[[], dict[str, Any]],
        inputs: Iterable[str | os.PathLike] | None = None,
    ) -> dict[str, Any]:
        """:meth:`get_or_compute` for a value that is a dict of NumPy arrays, strings and
        numbers (scalars and strings come back as Python objects)."""
        if not self.enabled:
            return compute()
        found, stored = self.load_if_usable(stage, config, dict)
        if found and all(isinstance(a, np.ndarray) for a in stored.values()):
            return {k: (a.item() if a.ndim == 0 else a) for k, a in stored.items()}
        if found:
            log.warning(
                "cache entry %s is not used and is computed again: it holds values that are "
                "not arrays",
                self.path(stage, config),
            )
        value = compute()
        self.save(stage, config, {k: np.asarray(v) for k, v in value.items()}, inputs)
        return value


_CLEANED: set[str] = set()


def check_type(value: Any, expect: Expected) -> None:
    """Raise :class:`kcca._cache_entry.EntryUnusable` when ``value`` is not an instance of
    ``expect`` (None: anything is)."""
    if expect is not None and not isinstance(value, expect):
        names = expect if isinstance(expect, tuple) else (expect,)
        raise EntryUnusable(
            f"it holds a {type(value).__name__}, not a " + " or ".join(t.__name__ for t in names)
        )


def check_trusted(root: str | os.PathLike) -> None:
    """Refuse a cache folder that someone else could have written entries into: one owned by
    another user, or writable by everyone (a shared Dask cache included)."""
    root = Path(root)
    probe = root
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent  # the folder will be made owner-only: check its parent
    st = probe.stat()
    if probe == root and hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise DataError(
            f"cache folder {root} belongs to another user (uid {st.st_uid}); only your own "
            "folder is read, so that no one else chooses what a run loads",
            fix="pass --cache-dir with a folder of your own (or set KCCA_CACHE_DIR)",
        )
    if probe == root and st.st_mode & 0o002:
        raise DataError(
            f"cache folder {root} is writable by every user, so anyone could plant entries "
            "in it; such a folder is not read",
            fix=f"chmod o-w '{root}', or pass --cache-dir with a folder of your own",
        )


def default_cache_dir() -> Path | None:
    """``$KCCA_CACHE_DIR`` if set, else ``~/.cache/kcca``."""
    env = os.environ.get(DEFAULT_CACHE_ENV)
    if env:
        return Path(env)
    return Path.home() / ".cache" / "kcca"
