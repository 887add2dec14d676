"""Every writer goes through a unique temporary file: concurrent writers never collide, a
reader never sees half a file, files get the umask's permissions, a killed writer's temporary
file is removed by the next run, and an untrusted cache folder is refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from kcca._cache import Cache, atomic_write, remove_stale_temp_files
from kcca._cli import main
from kcca.data._demo import make_demo_corpus
from kcca._evaluate.rankings_io import write_rankings


def test_concurrent_rankings_writers_and_a_reader(tmp_path):
    pool = make_demo_corpus(n_train=2, n_dev=2, n_test=60, image_size=32, seed=1,
                            judgments=False).pool("test")
    target = tmp_path / "run.json"
    rng = np.random.default_rng(0)
    tasks = [{"annotation": np.array([rng.permutation(60) for _ in range(60)])}
             for _ in range(2)]
    errors: list[BaseException] = []
    reads = {"ok": 0, "bad": 0}
    done = threading.Event()

    def writer(k: int) -> None:
        try:
            for _ in range(150):
                write_rankings(target, pool, tasks[k], system=f"S{k}", corpus="demo")
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    def reader() -> None:
        while not done.is_set():
            try:
                json.loads(target.read_text(encoding="utf-8"))
                reads["ok"] += 1
            except FileNotFoundError:
                pass
            except ValueError:
                reads["bad"] += 1

    threads = [threading.Thread(target=writer, args=(k,)) for k in (0, 1)]
    r = threading.Thread(target=reader)
    r.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done.set()
    r.join()
    assert errors == [] and reads["bad"] == 0 and reads["ok"] > 0
    assert list(tmp_path.glob(".*.tmp")) == []


def test_files_get_the_umask_permissions(tmp_path):
    old = os.umask(0o022)
    try:
        cache = Cache(tmp_path / "cache")
        cache.save("stage", {"a": 1}, [1, 2])
        entry = cache.path("stage", {"a": 1})
        assert entry.stat().st_mode & 0o777 == 0o644
        os.umask(0o077)
        out = atomic_write(tmp_path / "private.txt", lambda p: Path(p).write_text("x"))
        assert out.stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(old)


@pytest.mark.data_variables
def test_a_killed_writers_temporary_file_is_removed_by_the_next_run(tmp_path):
    folder = tmp_path / "cache" / "stage"
    folder.mkdir(parents=True)
    # a writer that is gone: a finished child process's pid, on this host
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    from kcca._atomic_files import host_name

    stale = folder / f".abc.joblib.{host_name()}.{dead}.x1y2.tmp"
    live = folder / f".abc.joblib.{host_name()}.{os.getpid()}.z3w4.tmp"
    other_host = folder / f".abc.joblib.elsewhere.{dead}.q5r6.tmp"
    for f in (stale, live, other_host):
        f.write_bytes(b"partial")
    cache = Cache(tmp_path / "cache")
    cache.get_or_compute("stage", {"k": 1}, lambda: 1)
    assert not stale.exists() and live.exists() and other_host.exists()
    assert remove_stale_temp_files(tmp_path / "cache") == []


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_a_world_writable_cache_folder_is_refused(tmp_path, capsys):
    shared = tmp_path / "shared-cache"
    shared.mkdir()
    shared.chmod(0o777)
    code = main(["cache", "verify", "--cache-dir", str(shared)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"cache folder {shared} is writable by every user" in err
    assert f"fix: chmod o-w '{shared}'" in err
    subprocess.run(f"chmod o-w '{shared}'", shell=True, check=True)  # the fix, as printed
    assert main(["cache", "verify", "--cache-dir", str(shared)]) == 0


def test_run_details_are_merged_under_a_lock_that_leaves_no_file(tmp_path):
    from kcca._evaluate.results_files import DETAILS_FILE, merge_details, read_details

    systems = [f"S{k}" for k in range(4)]
    errors: list[BaseException] = []

    def merger(system: str) -> None:
        try:
            for i in range(25):
                merge_details(tmp_path, [{"system": system, "round": i}])
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=merger, args=(s,)) for s in systems]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    # no writer lost another's entry, and the folder holds the details alone: no lock file
    assert {s: d["round"] for s, d in read_details(tmp_path).items()} == dict.fromkeys(
        systems, 24)
    assert sorted(p.name for p in tmp_path.iterdir()) == [DETAILS_FILE]
