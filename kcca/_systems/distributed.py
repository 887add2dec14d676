"""Run independent systems on a Dask cluster (``kcca reproduce --scheduler ADDRESS``).

Each system is one task, :func:`run_system_task`: the worker loads the corpus itself (from the
data folder, once per worker process), opens the same cache folder as the client, searches
the NLTK data folders the client resolved (workers need no ``$NLTK_DATA`` of their own), runs
:func:`kcca._systems.run_system`, and sends back the rankings arrays and the run details; the
client writes the rankings files. Workers must therefore see the data folder, the cache
folder and the NLTK data folders at the same paths (a shared file system, or one machine). The
image features and the image-kernel blocks every system shares are computed first on the
client, with the cluster doing the feature extraction (``Execution.scheduler``), so the
systems find them cached instead of all computing them at once.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from kcca._cache import Cache
from kcca.data._errors import DataError
from kcca._systems.config import RunConfig
from kcca._workers import check_scheduler


def with_client_nltk_path(config: RunConfig) -> RunConfig:
    """``config`` with ``execution.nltk_path`` set to the NLTK data folders this process (the
    client) resolves, its data folder's ``nltk_data`` included; unchanged when already set."""
    if config.execution.nltk_path:
        return config
    from features.text._resources import resolved_search_path

    return config.replace(nltk_path=resolved_search_path(config.execution.data_dir))


@functools.lru_cache(maxsize=4)
def _corpus(
    data_dir: str | None, splits_dir: str | None, corpus_file: str | None, images: str | None
):
    if corpus_file is not None:
        from kcca.data._json_splits import load_json_splits

        return load_json_splits(corpus_file, images, require_splits=True)
    from kcca.data._flickr8k import load_flickr8k_with_splits

    assert data_dir is not None  # run_system_task refuses a configuration with neither
    return load_flickr8k_with_splits(data_dir, splits_dir)


def run_system_task(spec, config: RunConfig, cache_dir: str | None) -> dict:
    """Run one system on a worker with ``config`` (its ``execution`` says where the data and
    the NLTK data are) and the cache folder ``cache_dir``; returns ``{"details", "rankings",
    "gold_ties", "protocol_ranks", "table"}`` (picklable)."""
    from kcca._systems import Workspace, run_system

    execution = config.execution
    if execution.data_dir is None and execution.corpus_file is None:
        raise ValueError(
            "a worker reloads the corpus: the configuration needs data_dir or corpus_file"
        )
    if execution.nltk_path:
        from features.text._resources import use_search_path

        use_search_path(execution.nltk_path)
    corpus = _corpus(
        execution.data_dir, execution.splits, execution.corpus_file, execution.images_dir
    )
    res = run_system(corpus, spec, workspace=Workspace(corpus, Cache(cache_dir), config))
    return {
        "details": res.to_json(),
        "table": res.table(),
        "rankings": {t: np.asarray(r, dtype=np.int32) for t, r in res.rankings.items()},
        "gold_ties": {t: np.asarray(v, dtype=np.int32) for t, v in res.gold_ties.items()},
        "protocol_ranks": res.protocol_ranks,
    }


def client_for(address: str):
    """A ``dask.distributed.Client`` connected to ``address`` (clear error when missing)."""
    try:
        from distributed import Client
    except ImportError:
        raise DataError(
            "--scheduler needs dask.distributed: pip install 'dask[distributed]'"
        ) from None
    check_scheduler(address)  # form, listener and greeting, in seconds
    try:
        return Client(address, timeout="30s")
    except (OSError, TimeoutError) as exc:
        raise DataError(f"cannot reach the Dask scheduler at {address}: {exc}") from None


def run_systems_on_cluster(
    address: str,
    specs: Sequence,
    config: RunConfig,
    cache_dir: str | None,
    *,
    on_done: Callable[[Any, dict], None] | None = None,
) -> tuple[dict[str, dict], dict[str, str]]:
    """Submit every system, collect results as they finish.

    Returns ``(results by system name, errors by system name)``; ``on_done(spec, result)`` is
    called for each finished system in completion order (the client writes its rankings file
    there, so finished systems survive a later failure).
    """
    from distributed import as_completed

    config = with_client_nltk_path(config)
    client = client_for(address)
    try:
        futures = {
            client.submit(
                run_system_task,
                spec,
                config,
                cache_dir,
                pure=False,
                key=f"kcca-system-{i}-{spec.label}",
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
