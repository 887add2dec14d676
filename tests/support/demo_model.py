"""The demo model (``--model demo``), fitted once per test run and copied to each user.

Fitting it takes about 10 s; four test modules use it. :func:`demo_cache` fits it once into
a folder that every pytest-xdist worker of the run shares (under a file lock, so that one
worker fits while the others wait), and gives each caller a cache folder of its own holding a
copy: no test sees what another one changed. ``kcca query --model demo --cache-dir FOLDER``
and :func:`kcca._model.build.demo_model` then load the model instead of fitting it.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

import pytest


def demo_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new cache folder holding the demo model as ``demo_model(Cache(folder))`` stores it."""
    from kcca._cache import Cache
    from kcca._model.build import demo_model

    run_folder = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        run_folder = run_folder.parent  # the run's folder, above each worker's own
    shared = run_folder / "shared-demo-model"
    with open(run_folder / "shared-demo-model.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (shared / "fitted").is_file():
            demo_model(Cache(shared / "cache"))
            (shared / "fitted").touch()
    copy = tmp_path_factory.mktemp("kcca-cache")
    shutil.copytree(shared / "cache", copy, dirs_exist_ok=True)
    return copy
