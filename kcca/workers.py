"""Worker processes that end with the process that started them.

joblib's loky workers wait for tasks on a queue: when their parent is killed (``kill -9``,
an out-of-memory kill, a closed terminal) they stay alive, each holding its memory, until
loky's idle timeout. :func:`worker_parallel` is ``joblib.Parallel`` whose process workers
start a watchdog thread that exits the worker as soon as its parent is gone (checked every
:data:`POLL_SECONDS`); loky's resource tracker then ends too, its pipe closed. Thread and
Dask backends are left as they are.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

from joblib import Parallel

#: how often a worker checks that its parent still runs
POLL_SECONDS = 0.5

_WATCHING: set[int] = set()


def worker_parallel(n_jobs: int | None = None, **kwargs: Any) -> Parallel:
    """``joblib.Parallel(n_jobs, **kwargs)``; when the work goes to loky processes (the
    default backend, or ``backend="loky"``), its workers end with this process."""
    from joblib.parallel import LokyBackend, get_active_backend

    backend = kwargs.get("backend")
    active = get_active_backend()[0] if backend is None else None
    if backend == "loky" or (
        backend is None and kwargs.get("prefer") != "threads" and isinstance(active, LokyBackend)
    ):
        kwargs.update(initializer=watch_parent, initargs=(os.getpid(),))
    return Parallel(n_jobs=n_jobs, **kwargs)


def watch_parent(parent_pid: int) -> None:
    """Exit this process (status 1) once ``parent_pid`` is no longer its parent."""
    if parent_pid == os.getpid() or parent_pid in _WATCHING:
        return
    _WATCHING.add(parent_pid)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="kcca-parent-watch", daemon=True).start()
