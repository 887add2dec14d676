"""On-disk cache of pipeline stages, keyed by a hash of the stage's config, written atomically.

Every arrow of the data flow (docs/design.md#data-flow) is a function of its inputs and a config; a
stage stores its result under ``<root>/<stage>/<key>.joblib`` where ``key`` hashes that config
(or ``<key>.npz`` for a value made of arrays and scalars, :meth:`Cache.get_or_compute_arrays`:
read without pickle or joblib, which is quicker to import and to load).
Files are written to a temporary name in the same folder and renamed into place, so an interrupted
run never leaves a partial entry and the next run resumes from what is there.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, TypeVar

import numpy as np

from kcca.fingerprints import input_record

T = TypeVar("T")

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


def _umask() -> int:
    """The process's file-creation mask (read without changing it where Linux allows)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: ``.<target name>.<host>.<pid>.<random>.tmp``: a writer's unique temporary file
_TEMP = re.compile(r"^\.(?P<name>.+)\.(?P<host>[^.]+)\.(?P<pid>\d+)\.[^.]+\.tmp$")


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname()) or "host"


def atomic_write(path: str | os.PathLike, write: Callable[[str], object]) -> Path:
    """Call ``write(tmp_path)`` and rename the result to ``path`` (atomic on one filesystem).

    The temporary file is unique to this writer (host, process id and a random part), so
    concurrent writers of one target never collide and a reader sees the old or the new file,
    never a partial one; the result gets the permissions the umask gives a new file. A
    temporary file left behind by a killed writer is removed by :func:`remove_stale_temp_files`.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{path.name}.{_host()}.{os.getpid()}.", suffix=".tmp", dir=path.parent
    )
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write a UTF-8 text file through :func:`atomic_write`."""
    return atomic_write(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def remove_stale_temp_files(folder: str | os.PathLike, *, recursive: bool = True) -> list[Path]:
    """Delete the temporary files of :func:`atomic_write` whose writer is gone (a process of
    this host that no longer runs); returns them. Live writers' files are left alone."""
    root = Path(folder)
    if not root.is_dir():
        return []
    return _unlink_all(stale_temp_files(root, recursive=recursive))


def _unlink_all(paths: Iterable[Path]) -> list[Path]:
    """Delete each file that still exists; returns those deleted (a file another process
    removed first is skipped)."""
    removed = []
    for f in paths:
        try:
            f.unlink()
            removed.append(f)
        except FileNotFoundError:
            pass
    return removed


def stale_temp_files(root: Path, *, recursive: bool = True) -> list[Path]:
    """The temporary files of :func:`atomic_write` under ``root`` whose writer is gone (a
    process of this host that no longer runs)."""
    host = _host()
    files = root.rglob(".*.tmp") if recursive else root.glob(".*.tmp")
    return [
        f
        for f in files
        if (m := _TEMP.match(f.name)) and m["host"] == host and not _alive(int(m["pid"]))
    ]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def atomic_dump(value: Any, path: str | os.PathLike) -> Path:
    """``joblib.dump`` written atomically."""
    import joblib

    return atomic_write(path, lambda tmp: joblib.dump(value, tmp))


#: the suffixes of an entry's value: a joblib pickle, or arrays (``np.savez``)
ENTRY_SUFFIXES = (".joblib", ".npz")


def _save_arrays(value: dict[str, Any], path: Path) -> Path:
    def write(tmp: str) -> None:
        with open(tmp, "wb") as fh:  # a file object: savez would append ".npz" to a name
            # the stubs fear a key named allow_pickle
            np.savez(fh, **{k: np.asarray(v) for k, v in value.items()})  # type: ignore[arg-type]

    return atomic_write(path, write)


def _load_arrays(path: Path) -> dict[str, Any]:
    """An ``.npz`` entry (no pickles); 0-d arrays come back as Python scalars."""
    with np.load(path, allow_pickle=False) as z:
        return {k: (a.item() if a.ndim == 0 else a) for k in z.files for a in (z[k],)}


class Cache:
    """A folder of cached stage results; ``Cache(None)`` is a disabled cache.

    An entry is ``<root>/<stage>/<key>.joblib`` with a ``<key>.json`` sidecar holding the
    config and the input files behind it (path -> content digest, :mod:`kcca.fingerprints`),
    which ``kcca cache verify`` re-checks. Entries are pickles, so a cache folder must be the
    user's own: one owned by another user or writable by everyone is refused
    (:func:`check_trusted`).

    >>> cache = Cache("/tmp/kcca-cache")                      # doctest: +SKIP
    >>> gram = cache.get_or_compute("pyramid-gram", cfg, lambda: compute(cfg))  # doctest: +SKIP
    """

    def __init__(self, root: str | os.PathLike | None):
        self.root = Path(root) if root is not None else None
        #: stage -> {"computed": n, "loaded": n} for this cache (also summed in cache_stats())
        self.stats: dict[str, dict[str, int]] = {}
        self._checked = False

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

    def path(self, stage: str, config: Any, suffix: str = ".joblib") -> Path:
        return self._open() / stage / f"{config_key(config)}{suffix}"

    def has(self, stage: str, config: Any) -> bool:
        return self.enabled and self.path(stage, config).exists()

    def load(self, stage: str, config: Any) -> Any:
        import joblib

        value = joblib.load(self.path(stage, config))
        self.record(stage, loaded=1)
        return value

    def save(
        self, stage: str, config: Any, value: Any, inputs: Iterable[str | os.PathLike] | None = None
    ) -> None:
        """Store ``value``; ``inputs`` are the files it was computed from (their digests go
        to the sidecar, for ``kcca cache verify``)."""
        if self.enabled:
            self._store(stage, config, value, inputs, ".joblib", atomic_dump)

    def _store(
        self,
        stage: str,
        config: Any,
        value: Any,
        inputs: Iterable[str | os.PathLike] | None,
        suffix: str,
        dump: Callable[[Any, Path], Any],
    ) -> None:
        """Write an entry's value (``dump``) and its sidecar, and count it computed."""
        p = self.path(stage, config, suffix)
        dump(value, p)
        write_sidecar(
            p, {"stage": stage, "config": _jsonable(config), "inputs": input_record(inputs or ())}
        )
        self.record(stage, computed=1)

    def get_or_compute(
        self,
        stage: str,
        config: Any,
        compute: Callable[[], T],
        inputs: Iterable[str | os.PathLike] | Callable[[], Iterable] | None = None,
    ) -> T:
        """Return the cached value for ``(stage, config)``, computing and storing it if absent.

        ``inputs``: the files behind the value (or a function returning them, called only when
        the value is computed); their content must be part of ``config`` already.
        """
        if self.has(stage, config):
            try:
                return self.load(stage, config)
            except Exception:  # a corrupt entry (e.g. disk full when written): recompute
                pass
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
        numbers, stored as ``<key>.npz`` and read back without pickle (scalars and strings
        come back as Python objects)."""
        if not self.enabled:
            return compute()
        path = self.path(stage, config, ".npz")
        if path.exists():
            try:
                value = _load_arrays(path)
                self.record(stage, loaded=1)
                return value
            except Exception:  # a corrupt entry (e.g. disk full when written): recompute
                pass
        value = compute()
        self._store(stage, config, value, inputs, ".npz", _save_arrays)
        return value


_CLEANED: set[str] = set()


def write_sidecar(entry: Path, doc: dict) -> Path:
    """The ``.json`` beside a cache entry: stage, config and input record."""
    return write_text_atomic(entry.with_suffix(".json"), json.dumps(doc, indent=1, sort_keys=True))


def check_trusted(root: str | os.PathLike) -> None:
    """Refuse a cache folder that someone else could have written pickles into: one owned by
    another user, or writable by everyone (a shared Dask cache included)."""
    from kcca.errors import DataError

    root = Path(root)
    probe = root
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent  # the folder will be made with the umask: check its parent
    st = probe.stat()
    if probe == root and hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise DataError(
            f"cache folder {root} belongs to another user (uid {st.st_uid}); cache "
            "entries are pickles, so only your own folder is read",
            fix="pass --cache-dir with a folder of your own (or set KCCA_CACHE_DIR)",
        )
    if probe == root and st.st_mode & 0o002:
        raise DataError(
            f"cache folder {root} is writable by every user; cache entries are "
            "pickles, so such a folder is not read",
            fix=f"chmod o-w '{root}', or pass --cache-dir with a folder of your own",
        )


def default_cache_dir() -> Path | None:
    """``$KCCA_CACHE_DIR`` if set, else ``~/.cache/kcca``."""
    env = os.environ.get(DEFAULT_CACHE_ENV)
    if env:
        return Path(env)
    return Path.home() / ".cache" / "kcca"


# ------------------------------------------------------------------ verify and prune
@dataclass
class CacheAudit:
    """What :func:`verify_cache` found: entries whose input files changed (``stale``: entry
    path -> reasons), entries with no input record (written before inputs were recorded, or
    by a stage that reads no file: ``unrecorded``), entries whose inputs are unchanged
    (``current``), and leftovers (a value without its sidecar or the reverse, temporary files
    of killed writers)."""

    root: Path
    current: int = 0
    unrecorded: list[Path] = field(default_factory=list)
    stale: dict[Path, list[str]] = field(default_factory=dict)
    leftovers: list[Path] = field(default_factory=list)

    def check(self, entry: Path, inputs: dict[str, str] | None) -> None:
        """File ``entry`` as unrecorded, stale or current from its input record."""
        from kcca.fingerprints import changed_inputs

        if not inputs:
            self.unrecorded.append(entry)
            return
        changed = changed_inputs(inputs)
        if changed:
            self.stale[entry] = [f"{path}: {why}" for path, why in sorted(changed.items())]
        else:
            self.current += 1

    def stages(self) -> dict[str, dict[str, int]]:
        """Stage -> {"stale": n} (for the report)."""
        out: dict[str, dict[str, int]] = {}
        for p in self.stale:
            stage = p.relative_to(self.root).parts[0]
            out.setdefault(stage, {"stale": 0})["stale"] += 1
        return out


_KEY = re.compile(r"[0-9a-f]{20}")


def verify_cache(root: str | os.PathLike) -> CacheAudit:
    """Re-check the input files of every entry of a cache folder (``kcca cache verify``)."""
    root = Path(root)
    check_trusted(root)
    audit = CacheAudit(root)
    if not root.is_dir():
        return audit
    for sidecar in sorted(root.glob("*/*.json")):
        value = next(
            (v for v in map(sidecar.with_suffix, ENTRY_SUFFIXES) if v.exists()),
            sidecar.with_suffix(".joblib"),
        )
        try:
            doc = json.loads(sidecar.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            audit.leftovers.append(sidecar)
            continue
        if not value.exists():
            audit.leftovers.append(sidecar)
            continue
        audit.check(value, doc.get("inputs") if isinstance(doc, dict) and "stage" in doc else None)
    values = [v for suffix in ENTRY_SUFFIXES for v in root.glob(f"*/*{suffix}")]
    for value in sorted(values):  # an entry's value without its sidecar
        if _KEY.fullmatch(value.stem) and not value.with_suffix(".json").exists():
            audit.leftovers.append(value)
    _verify_records(root, audit)
    audit.leftovers += stale_temp_files(root)
    return audit


#: the manifest of a folder of per-item records (a stage that stores one file per item, as
#: ``image-features`` does per image): record file name -> its input record
RECORDS_MANIFEST = "inputs.json"


def read_records_manifest(folder: Path) -> dict[str, dict[str, str]]:
    """Record file name -> {input file: digest} of a folder of per-item records."""
    try:
        return json.loads((folder / RECORDS_MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _verify_records(root: Path, audit: CacheAudit) -> None:
    """Per-item records: every ``<stage>/<config>/`` folder (only record stages have
    folders); a record missing from its folder's manifest is unrecorded."""
    for folder in sorted(p for p in root.glob("*/*") if p.is_dir()):
        manifest = read_records_manifest(folder)
        for record in sorted(folder.glob("*.joblib")):
            audit.check(record, manifest.get(record.name))


def prune_cache(audit: CacheAudit, *, unrecorded: bool = False) -> list[Path]:
    """Delete the stale entries and leftovers of an audit (and, with ``unrecorded``, the
    entries without an input record); returns the files removed."""
    doomed = [*audit.stale, *audit.leftovers, *(audit.unrecorded if unrecorded else [])]
    return _unlink_all(
        f
        for p in doomed
        for f in ((p, p.with_suffix(".json")) if p.suffix in ENTRY_SUFFIXES else (p,))
    )
