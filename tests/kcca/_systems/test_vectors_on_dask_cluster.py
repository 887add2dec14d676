"""A vectors system on a real Dask cluster: ``dask scheduler`` and two ``dask worker`` processes
started here on 127.0.0.1 (ports the system chooses), each in a temporary folder of its own
that holds none of the run's files. The experiment folder's ``run.toml`` chooses the dask
executor and names the scheduler; its experiment file names the vectors by paths relative to
its own folder. ``kcca reproduce`` then writes rankings and all-captions files byte-identical to
a serial run's. The cluster's processes are stopped whatever happens, and the test checks that
none of them is left."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from kcca.data._flickr8k import load_flickr8k_with_splits
from tests.support.data_variables import VARIABLES
from tests.support.flickr_like import write_flickr_like
from tests.support.optional_tools import skip_unless
from tests.support.planted_vectors import plant_vectors, vectors_experiment

pytestmark = pytest.mark.slow

NAME = "VEC"
ROOT = Path(__file__).resolve().parents[3]
#: seconds the scheduler and the workers get to start, and each process to stop
START_S, STOP_S = 60.0, 15.0


def _experiments(folder: Path, corpus_root: Path, run_table: str) -> Path:
    """An experiment folder: planted vectors under ``vectors/``, named relatively by
    ``vec.toml``, and ``run.toml`` holding ``run_table``."""
    vectors = folder / "vectors"
    vectors.mkdir(parents=True)
    plant_vectors(load_flickr8k_with_splits(corpus_root, None), vectors)
    (folder / "vec.toml").write_text(
        vectors_experiment("vectors/images.npy", "vectors/captions.npz", "[5, 10, 20, 39]"),
        encoding="utf-8",
    )
    (folder / "run.toml").write_text(f"[run]\n{run_table}\n", encoding="utf-8")
    return folder


def _environment() -> dict[str, str]:
    """The cluster processes import this checkout's code, whatever folder they run in."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


def _start(argv: list[str], folder: Path) -> subprocess.Popen:
    """``python -m dask ARGV`` in ``folder``, in a process group of its own (its output in
    ``folder/log.txt``)."""
    folder.mkdir(parents=True)
    with open(folder / "log.txt", "wb") as log:
        return subprocess.Popen([sys.executable, "-m", "dask", *argv], cwd=folder,
                                env=_environment(), stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _stop(procs: list[subprocess.Popen]) -> None:
    """Stop every process group in turn (workers first, each before the next is signalled: a
    worker whose scheduler went away at the same moment took 15 s to end): SIGTERM, then
    SIGKILL after ``STOP_S``."""
    for proc in procs:
        if _group_alive(proc.pid):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=STOP_S)
        except subprocess.TimeoutExpired:
            pass
        deadline = time.monotonic() + STOP_S
        while _group_alive(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if _group_alive(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=STOP_S)


def _scheduler_address(scheduler_file: Path, proc: subprocess.Popen) -> str:
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            return json.loads(scheduler_file.read_text(encoding="utf-8"))["address"]
        except (OSError, ValueError, KeyError):
            time.sleep(0.2)
    log = (scheduler_file.parent / "log.txt").read_text(errors="replace")
    raise AssertionError(f"the Dask scheduler did not start:\n{log}")


@contextmanager
def dask_cluster(folder: Path, n_workers: int = 2) -> Iterator[tuple[str, list]]:
    """A scheduler and ``n_workers`` one-thread workers on 127.0.0.1, each process in its own
    folder under ``folder``; yields the scheduler's address and the processes, and stops them
    all on leaving, whatever happened."""
    from distributed import Client

    scheduler_file = folder / "scheduler" / "scheduler.json"
    # the timeouts end the processes by themselves should this process die before stopping them
    procs = [_start(["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                     "--scheduler-file", str(scheduler_file), "--idle-timeout", "600s"],
                    scheduler_file.parent)]
    try:
        address = _scheduler_address(scheduler_file, procs[0])
        for i in range(n_workers):
            work = folder / f"worker-{i}"
            procs.insert(0, _start(
                ["worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--no-nanny",
                 "--no-dashboard", "--name", f"worker-{i}", "--local-directory", str(work),
                 "--death-timeout", "60"], work))
        with Client(address, timeout="30s") as client:
            try:
                client.wait_for_workers(n_workers, timeout=START_S)
            except TimeoutError:
                logs = [(folder / f"worker-{i}" / "log.txt").read_text(errors="replace")
                        for i in range(n_workers)]
                raise AssertionError("the Dask workers did not start:\n" + "\n".join(logs))
            yield address, procs
    finally:
        _stop(procs)


def _without_data_variables(monkeypatch) -> None:
    """A vectors system needs neither variable: unset both here and in the cluster's processes,
    so that the test runs the same with the data or without (and once in CI)."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)


def _reproduce(corpus_root: Path, exp: Path, out: Path) -> None:
    from kcca._cli import main

    rc = main(["reproduce", "--data-dir", str(corpus_root), "--experiments", str(exp),
               "--systems", NAME, "--tables", "3", "--out", str(out),
               "--cache-dir", str(out.parent / f"{out.name}-cache"), "--quiet",
               "--protocol", "all-captions"])
    assert rc == 0


def test_a_vectors_system_on_a_dask_scheduler_and_two_workers_gives_the_serial_files(
    tmp_path, monkeypatch
):
    skip_unless(importlib.util.find_spec("distributed") is not None,
                "dask.distributed absent (extra 'dask')")
    _without_data_variables(monkeypatch)
    write_flickr_like(tmp_path / "data")
    serial_exp = _experiments(tmp_path / "serial-exp", tmp_path / "data", 'executor = "serial"')
    elsewhere = tmp_path / "elsewhere"  # the client's folder holds no vectors either
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    _reproduce(tmp_path / "data", serial_exp, tmp_path / "serial")

    with dask_cluster(tmp_path / "cluster") as (address, procs):
        dask_exp = tmp_path / "dask-exp"
        shutil.copytree(serial_exp, dask_exp)
        (dask_exp / "run.toml").write_text(
            f'[run]\nexecutor = "dask"\nscheduler = "{address}"\n', encoding="utf-8"
        )
        _reproduce(tmp_path / "data", dask_exp, tmp_path / "dask")
    assert not any(_group_alive(p.pid) for p in procs), "a cluster process outlived the run"

    for name in (f"{NAME}.json", f"{NAME}.all-captions.json"):
        serial = (tmp_path / "serial" / "rankings" / name).read_bytes()
        assert (tmp_path / "dask" / "rankings" / name).read_bytes() == serial, name
    details = json.loads((tmp_path / "dask" / "rankings" / "details.json").read_text())
    assert [d["scheduler"] for d in details] == [address]
    alone = json.loads((tmp_path / "serial" / "rankings" / "details.json").read_text())
    assert [d.get("scheduler") for d in alone] == [None]


def test_the_cluster_is_stopped_when_the_run_fails(tmp_path, monkeypatch):
    """Whatever happens inside, no scheduler or worker process outlives the cluster."""
    skip_unless(importlib.util.find_spec("distributed") is not None,
                "dask.distributed absent (extra 'dask')")
    _without_data_variables(monkeypatch)
    with pytest.raises(RuntimeError, match="inside"):
        with dask_cluster(tmp_path / "cluster") as (_, procs):
            raise RuntimeError("a failure inside")
    assert procs and not any(_group_alive(p.pid) for p in procs)
