"""No worker process outlives its parent: SIGKILL a ``-j 2`` run, its workers end within 10 s."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kcca._workers import watch_parent, worker_parallel


def _processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, state) of every live process (Linux /proc)."""
    out = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        out[int(d.name)] = (int(fields[1]), fields[0])
    return out


def _descendants(pid: int) -> set[int]:
    procs, found, todo = _processes(), set(), [pid]
    while todo:
        parent = todo.pop()
        for child, (ppid, _) in procs.items():
            if ppid == parent and child not in found:
                found.add(child)
                todo.append(child)
    return found


def _running(pids: set[int]) -> set[int]:
    procs = _processes()
    return {p for p in pids if p in procs and procs[p][1] != "Z"}


@pytest.mark.data_variables
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
@pytest.mark.slow
def test_killed_parent_leaves_no_workers(tmp_path):
    """``kcca features --corpus demo -j 2`` on loky workers; SIGKILL the parent mid-run."""
    env = {**os.environ, "KCCA_CACHE_DIR": str(tmp_path / "cache")}
    workers: set[int] = set()
    proc = subprocess.Popen([sys.executable, "-m", "kcca", "features", "--corpus", "demo",
                             "-j", "2", "--quiet"], env=env, cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(workers) < 2 and proc.poll() is None:
            time.sleep(0.2)
            workers = _descendants(proc.pid)
        assert len(workers) >= 2, "the run started no worker processes"
        time.sleep(1.0)
        workers = _descendants(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 10
        while _running(workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _running(workers), f"alive 10 s after the parent: {_running(workers)}"
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in _running(workers | _descendants(proc.pid)):  # never leak them here
            os.kill(pid, signal.SIGKILL)


def test_worker_parallel_runs_tasks_and_watches_only_process_workers():
    assert worker_parallel(n_jobs=2)(__import__("joblib").delayed(abs)(-i)
                                     for i in range(4)) == [0, 1, 2, 3]
    assert "initializer" not in worker_parallel(n_jobs=2, prefer="threads")._backend_kwargs
    assert worker_parallel(n_jobs=2, backend="loky")._backend_kwargs["initargs"] == (os.getpid(),)
    watch_parent(os.getpid())  # the parent itself: no watchdog
