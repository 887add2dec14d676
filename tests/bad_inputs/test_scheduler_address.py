"""A ``--scheduler`` address where no Dask scheduler answers is a named error within seconds,
before any work: no port, a scheme Dask does not speak (the dashboard's http://), an unknown
host, nothing listening, an HTTP server (before: a 30 s wait, then ``unexpected OSError``, or
Dask reading the server's reply as a message length of exabytes)."""

from __future__ import annotations

import http.server
import importlib.util
import socket
import threading
import time

import pytest

from kcca._cli import main
from tests.support.named_errors import one_error
from tests.support.optional_tools import skip_unless


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def http_server():
    """An HTTP server on a free local port (what a dashboard address reaches)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


CASES = [
    ("localhost", "no port (tcp://HOST:PORT; a scheduler listens on 8786 by default)"),
    ("http://127.0.0.1:8787", "http:// is not a scheme of Dask schedulers"),
    ("tcp://127.0.0.1:70000", "port '70000' is not a number from 1 to 65535"),
    ("tcp://no-such-host.invalid:8786", "unknown host 'no-such-host.invalid'"),
    ("tcp://127.0.0.1:{free}", "nothing listens on 127.0.0.1 port {free} (connection refused)"),
    ("127.0.0.1:{http}", "127.0.0.1 port {http} answers, but not as a Dask scheduler"),
]


@pytest.mark.parametrize("address, fault", CASES, ids=[c[0] for c in CASES])
def test_a_scheduler_that_is_not_there_is_named_before_any_work(tmp_path, capsys, http_server,
                                                               address, fault):
    values = {"free": free_port(), "http": http_server}
    address, fault = address.format(**values), fault.format(**values)
    start = time.perf_counter()
    code = main(["features", "--corpus", "demo", "--cache-dir", str(tmp_path / "cache"),
                 "--quiet", "--scheduler", address])
    seconds = time.perf_counter() - start
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error.startswith(f"Dask scheduler {address!r}: {fault}"), error
    assert "--scheduler" in fix and "tcp://HOST:8786" in fix, fix
    assert seconds < 15, seconds
    assert not (tmp_path / "cache").exists()  # no image was described


def test_reproduce_names_the_scheduler_before_reading_the_data(tmp_path, capsys, monkeypatch):
    from tests.support.fake_flickr8k import write_fake_flickr8k

    write_fake_flickr8k(tmp_path / "data", images=False)
    monkeypatch.setenv("KCCA_DATA_DIR", str(tmp_path / "data"))
    port = free_port()
    code = main(["reproduce", "--systems", "BoW5", "--tables", "3", "--out",
                 str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache"), "--quiet",
                 "--scheduler", f"tcp://127.0.0.1:{port}"])
    error, _ = one_error(capsys.readouterr().err)
    assert code == 2
    assert error == (f"Dask scheduler 'tcp://127.0.0.1:{port}': nothing listens on 127.0.0.1 "
                     f"port {port} (connection refused)"), error


def test_a_dask_scheduler_passes_the_check():
    skip_unless(importlib.util.find_spec("distributed") is not None,
                "dask.distributed absent (extra 'dask')")
    from distributed import LocalCluster

    from kcca._workers import check_scheduler

    with LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1",
                      dashboard_address=None) as cluster:
        check_scheduler(cluster.scheduler_address)
        check_scheduler(cluster.scheduler_address.removeprefix("tcp://"))


@pytest.mark.parametrize("scheduler", [None, "", "tcp://127.0.0.1:{free}"],
                         ids=["absent", "empty", "nothing-listens"])
def test_a_run_file_choosing_dask_names_its_scheduler_fault_with_the_file(
    tmp_path, capsys, monkeypatch, scheduler
):
    """``executor = "dask"`` in run.toml: its ``scheduler`` is where the systems run, so a
    missing or unreachable one is named with the file, before the data is read (before: the
    absent --scheduler flag replaced the file's address, and every such file, a good address
    included, failed with "the dask executor needs the scheduler's address")."""
    from tests.support.fake_flickr8k import write_fake_flickr8k
    from tests.support.flickr_like import GRID, SPEC

    write_fake_flickr8k(tmp_path / "data", images=False)
    monkeypatch.setenv("KCCA_DATA_DIR", str(tmp_path / "data"))
    exp = tmp_path / "exp"
    exp.mkdir()
    (exp / "01-bow5.toml").write_text(SPEC.format(name="BoW5", short="BoW5", model="kcca",
                                                  text="bow", params="", grid=GRID))
    table = '[run]\nexecutor = "dask"\n'
    if scheduler is not None:
        scheduler = scheduler.format(free=free_port())
        table += f'scheduler = "{scheduler}"\n'
    (exp / "run.toml").write_text(table, encoding="utf-8")
    code = main(["reproduce", "--experiments", str(exp), "--systems", "BoW5", "--tables", "3",
                 "--out", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache"),
                 "--quiet"])
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error.startswith(f"{exp / 'run.toml'}: [run] "), error
    if scheduler:
        assert "nothing listens on 127.0.0.1" in error, error
    else:
        assert "needs the scheduler's address" in error, error
    assert f"[run] table of {exp / 'run.toml'}" in fix and "--scheduler" in fix, fix
    assert not (tmp_path / "cache").exists()
