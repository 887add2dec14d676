"""On-disk cache of pipeline stages, keyed by a hash of the stage's config, written atomically.

Every arrow of the data flow (DESIGN.md) is a function of its inputs and a config; a stage
stores its result under ``<root>/<stage>/<key>.joblib`` where ``key`` hashes that config.
Files are written to a temporary name in the same folder and renamed into place, so an
interrupted run never leaves a partial entry and the next run resumes from what is there.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Callable, TypeVar

import joblib
import numpy as np

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
    """``"cache: image-features 0 computed / 3 loaded; system-dev 2 computed / 0 loaded"``."""
    stats = cache_stats() if stats is None else stats
    if not stats:
        return ""
    return "cache: " + "; ".join(f"{stage} {c.get('computed', 0)} computed / "
                                 f"{c.get('loaded', 0)} loaded" for stage, c in stats.items())


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return {"__ndarray__": hashlib.sha256(np.ascontiguousarray(obj).tobytes()).hexdigest(),
                "shape": list(obj.shape), "dtype": str(obj.dtype)}
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


def atomic_write(path: str | os.PathLike, write: Callable[[str], None]) -> Path:
    """Call ``write(tmp_path)`` and rename the result to ``path`` (atomic on one filesystem)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def atomic_dump(value: Any, path: str | os.PathLike) -> Path:
    """``joblib.dump`` written atomically."""
    return atomic_write(path, lambda tmp: joblib.dump(value, tmp))


class Cache:
    """A folder of cached stage results; ``Cache(None)`` is a disabled cache.

    >>> cache = Cache("/tmp/kcca-cache")                      # doctest: +SKIP
    >>> gram = cache.get_or_compute("pyramid-gram", cfg, lambda: compute(cfg))  # doctest: +SKIP
    """

    def __init__(self, root: str | os.PathLike | None):
        self.root = Path(root) if root is not None else None
        #: stage -> {"computed": n, "loaded": n} for this cache (also summed in cache_stats())
        self.stats: dict[str, dict[str, int]] = {}

    def record(self, stage: str, *, computed: int = 0, loaded: int = 0) -> None:
        """Count entries computed / loaded (``load`` and ``save`` count themselves)."""
        if not self.enabled or not (computed or loaded):
            return
        for counts in (self.stats.setdefault(stage, {"computed": 0, "loaded": 0}),
                       _STATS.setdefault(stage, {"computed": 0, "loaded": 0})):
            counts["computed"] += computed
            counts["loaded"] += loaded

    @property
    def enabled(self) -> bool:
        return self.root is not None

    def path(self, stage: str, config: Any) -> Path:
        if self.root is None:
            raise RuntimeError("the cache is disabled (no cache directory)")
        return self.root / stage / f"{config_key(config)}.joblib"

    def has(self, stage: str, config: Any) -> bool:
        return self.enabled and self.path(stage, config).exists()

    def load(self, stage: str, config: Any) -> Any:
        value = joblib.load(self.path(stage, config))
        self.record(stage, loaded=1)
        return value

    def save(self, stage: str, config: Any, value: Any) -> None:
        if not self.enabled:
            return
        p = self.path(stage, config)
        atomic_dump(value, p)
        atomic_write(p.with_suffix(".json"), lambda tmp: Path(tmp).write_text(
            json.dumps(_jsonable(config), indent=1, sort_keys=True)))
        self.record(stage, computed=1)

    def get_or_compute(self, stage: str, config: Any, compute: Callable[[], T]) -> T:
        """Return the cached value for ``(stage, config)``, computing and storing it if absent."""
        if self.has(stage, config):
            try:
                return self.load(stage, config)
            except Exception:  # a corrupt entry (e.g. disk full when written): recompute
                pass
        value = compute()
        self.save(stage, config, value)
        return value


def default_cache_dir() -> Path | None:
    """``$KCCA_CACHE_DIR`` if set, else ``~/.cache/kcca``."""
    env = os.environ.get(DEFAULT_CACHE_ENV)
    if env:
        return Path(env)
    return Path.home() / ".cache" / "kcca"
