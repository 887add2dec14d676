"""The workspace of ``kcca reproduce`` opened from a script (``scripts/``): Flickr 8K and the
cached blocks, so that a maintenance script reuses what a reproduction computed."""

from __future__ import annotations

import argparse

from kcca.systems.blocks import Workspace


def add_workspace_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of :func:`open_workspace_from`: --data-dir, --cache-dir, --jobs."""
    parser.add_argument(
        "--data-dir", default=None, help="folder holding flickr8k/ ($KCCA_DATA_DIR)"
    )
    parser.add_argument(
        "--cache-dir", default=None, help="cache of kcca reproduce (default its own)"
    )
    parser.add_argument("--jobs", type=int, default=2)


def open_workspace_from(args: argparse.Namespace, progress: bool = True) -> Workspace:
    """:func:`open_workspace` with the options of :func:`add_workspace_arguments`."""
    return open_workspace(args.data_dir, args.cache_dir, args.jobs, progress)


def open_workspace(
    data_dir: str | None = None, cache_dir: str | None = None, jobs: int = 2, progress: bool = True
) -> Workspace:
    """Flickr 8K from ``data_dir`` (or ``$KCCA_DATA_DIR``) in a workspace on the cache of
    ``kcca reproduce`` (``cache_dir``, default its own)."""
    from kcca.cache import Cache, default_cache_dir
    from kcca.data.flickr8k import load_flickr8k
    from kcca.data.paths import resolve_data_dir
    from kcca.systems.config import RunConfig

    corpus = load_flickr8k(resolve_data_dir(data_dir))
    config = RunConfig.of(jobs=jobs, progress=progress)
    return Workspace(corpus, Cache(cache_dir or default_cache_dir()), config)
