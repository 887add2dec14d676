"""Run independent systems on a Dask cluster (``kcca reproduce --scheduler ADDRESS``).

Each system is one task, :func:`run_system_task`: the worker loads the corpus itself (from the
data folder, once per worker process), opens the same cache folder as the client, searches
the NLTK data folders the client resolved (workers need no ``$NLTK_DATA`` of their own), runs
:func:`kcca.systems.run_system`, and sends back the rankings arrays and the run details; the
client writes the rankings files. Workers must therefore see the data folder, the cache
folder and the NLTK data folders at the same paths (a shared file system, or one machine). The
image features and the image-kernel blocks every system shares are computed first on the
client, with the cluster doing the feature extraction (``Workspace(scheduler=...)``), so the
systems find them cached instead of all computing them at once.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from kcca.cache import Cache
from kcca.data.errors import DataError


@dataclass(frozen=True)
class TaskConfig:
    """What a worker needs besides the system: where the data and cache are, and the knobs.

    ``nltk_path``: the NLTK data folders the client searches (:func:`with_client_nltk_path`),
    searched first by the worker; empty, the worker's own ``$NLTK_DATA`` decides.
    """

    data_dir: str
    splits_dir: str | None
    cache_dir: str | None
    seed: int = 0
    n_jobs: int | None = 1  # None: joblib's default
    image_config: Any = None
    precision: float | None = None
    search_rank: int | None = None
    backend: str = "numpy"
    nltk_path: tuple[str, ...] = ()


def with_client_nltk_path(cfg: TaskConfig) -> TaskConfig:
    """``cfg`` with ``nltk_path`` set to the NLTK data folders this process (the client)
    resolves, its data folder's ``nltk_data`` included; unchanged when already set."""
    if cfg.nltk_path:
        return cfg
    from features.text.resources import resolved_search_path

    return dataclasses.replace(cfg, nltk_path=resolved_search_path(cfg.data_dir))


@functools.lru_cache(maxsize=4)
def _corpus(data_dir: str, splits_dir: str | None):
    from kcca.data.flickr8k import load_flickr8k_with_splits

    return load_flickr8k_with_splits(data_dir, splits_dir)


def run_system_task(spec, cfg: TaskConfig) -> dict:
    """Run one system on a worker; returns ``{"details", "rankings", "gold_ties", "table"}``
    (picklable)."""
    from kcca.systems import Workspace, run_system

    if cfg.nltk_path:
        from features.text.resources import use_search_path

        use_search_path(cfg.nltk_path)
    corpus = _corpus(cfg.data_dir, cfg.splits_dir)
    ws = Workspace(
        corpus,
        Cache(cfg.cache_dir),
        n_jobs=cfg.n_jobs,
        seed=cfg.seed,
        progress=False,
        image_config=cfg.image_config,
        backend=cfg.backend,
    )
    res = run_system(
        corpus, spec, workspace=ws, precision=cfg.precision, search_rank=cfg.search_rank
    )
    return {
        "details": res.to_json(),
        "table": res.table(),
        "rankings": {t: np.asarray(r, dtype=np.int32) for t, r in res.rankings.items()},
        "gold_ties": {t: np.asarray(v, dtype=np.int32) for t, v in res.gold_ties.items()},
    }


def client_for(address: str):
    """A ``dask.distributed.Client`` connected to ``address`` (clear error when missing)."""
    try:
        from distributed import Client
    except ImportError:
        raise DataError(
            "--scheduler needs dask.distributed: pip install 'dask[distributed]'"
        ) from None
    try:
        return Client(address, timeout="30s")
    except (OSError, TimeoutError) as exc:
        raise DataError(f"cannot reach the Dask scheduler at {address}: {exc}") from None


def run_systems_on_cluster(
    address: str,
    specs: Sequence,
    cfg: TaskConfig,
    *,
    on_done: Callable[[Any, dict], None] | None = None,
) -> tuple[dict[str, dict], dict[str, str]]:
    """Submit every system, collect results as they finish.

    Returns ``(results by system name, errors by system name)``; ``on_done(spec, result)`` is
    called for each finished system in completion order (the client writes its rankings file
    there, so finished systems survive a later failure).
    """
    from distributed import as_completed

    cfg = with_client_nltk_path(cfg)
    client = client_for(address)
    try:
        futures = {
            client.submit(
                run_system_task, spec, cfg, pure=False, key=f"kcca-system-{i}-{spec.label}"
            ): spec
            for i, spec in enumerate(specs)
        }
        results: dict[str, dict] = {}
        errors: dict[str, str] = {}
        for fut in as_completed(list(futures)):
            spec = futures[fut]
            try:
                res = fut.result()
            except Exception as exc:  # noqa: BLE001 - report every system's failure, go on
                errors[spec.name] = f"{type(exc).__name__}: {exc}"
                continue
            results[spec.name] = res
            if on_done is not None:
                on_done(spec, res)
        return results, errors
    finally:
        client.close()
