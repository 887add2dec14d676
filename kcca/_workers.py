"""Worker processes that end with the process that started them.

joblib's loky workers wait for tasks on a queue: when their parent is killed (``kill -9``,
an out-of-memory kill, a closed terminal) they stay alive, each holding its memory, until
loky's idle timeout. :func:`worker_parallel` is ``joblib.Parallel`` whose process workers
start a watchdog thread that exits the worker as soon as its parent is gone (checked every
:data:`POLL_SECONDS`); loky's resource tracker then ends too, its pipe closed. Thread and
Dask backends are left as they are.

:func:`check_scheduler` checks a Dask scheduler address before any work: its form, that
something listens there, and that it greets as a Dask scheduler does (a scheduler speaks
first; an HTTP server, the dashboard say, waits for a request), each within seconds.
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from typing import Any

from joblib import Parallel

from kcca.limits import MAX_SCHEDULER_GREETING

#: how often a worker checks that its parent still runs
POLL_SECONDS = 0.5
#: seconds a Dask scheduler has to accept a connection, and then to greet
SCHEDULER_TIMEOUT = 5.0
#: the schemes of Dask scheduler addresses; ``tcp`` when none is given
SCHEDULER_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")
_ADDRESS = re.compile(
    r"(?:(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+)"
    r"(?::(?P<port>[^/]*))?/?"
)
_SCHEDULER_FIX = (
    "give the address the Dask scheduler prints (`dask scheduler` listens on tcp://HOST:8786 "
    "by default; its dashboard on :8787 is a web page, not the scheduler), start it first, "
    "or run on this machine without --scheduler"
)

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


def check_scheduler(address: str, *, timeout: float = SCHEDULER_TIMEOUT) -> None:
    """Raise :class:`~kcca.errors.DataError` unless ``address`` (``tcp://HOST:PORT``) is a
    Dask scheduler address where one answers: a malformed address, an unknown scheme or
    host, no port, nothing listening, no answer within ``timeout`` seconds, or a server that
    does not greet as a Dask scheduler (``tcp`` only) is named."""
    from kcca.errors import DataError

    def fault(what: str) -> DataError:
        return DataError(f"Dask scheduler {address!r}: {what}", fix=_SCHEDULER_FIX)

    m = _ADDRESS.fullmatch(address.strip())
    if m is None:
        raise fault("not an address of the form tcp://HOST:PORT")
    scheme = (m["scheme"] or "tcp").lower()
    if scheme not in SCHEDULER_SCHEMES:
        raise fault(
            f"{scheme}:// is not a scheme of Dask schedulers (use "
            f"{', '.join(s + '://' for s in SCHEDULER_SCHEMES)})"
        )
    if not m["port"]:
        raise fault("no port (tcp://HOST:PORT; a scheduler listens on 8786 by default)")
    if not m["port"].isdigit() or not 1 <= int(m["port"]) <= 65535:
        raise fault(f"port {m['port']!r} is not a number from 1 to 65535")
    host, port = m["host"].strip("[]"), int(m["port"])
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except socket.gaierror as exc:
        raise fault(f"unknown host {host!r} ({exc.strerror})") from None
    except ConnectionRefusedError:
        raise fault(f"nothing listens on {host} port {port} (connection refused)") from None
    except TimeoutError:
        raise fault(f"no answer from {host} port {port} within {timeout:g} s") from None
    except OSError as exc:
        raise fault(f"cannot connect to {host} port {port} ({exc.strerror or exc})") from None
    with sock:
        if scheme != "tcp":  # tls, ws, ucx: the client speaks first
            return
        greeting = _first_bytes(sock, 8, timeout)
    if greeting is _SILENT or len(greeting) < 8:
        if greeting is _SILENT:
            said = f"sent nothing within {timeout:g} s"
        elif greeting:
            said = f"sent only {greeting!r}"
        else:
            said = "closed the connection"
        raise fault(
            f"{host} port {port} answers, but not as a Dask scheduler ({said}; an HTTP "
            "server, such as the dashboard, waits for a request)"
        )
    if not 0 < int.from_bytes(greeting, "little") <= MAX_SCHEDULER_GREETING:
        raise fault(
            f"{host} port {port} answers, but not as a Dask scheduler (it sent {greeting!r})"
        )


_SILENT = b"\0silent"  # what _first_bytes returns when nothing came in time


def _first_bytes(sock: socket.socket, n: int, timeout: float) -> bytes:
    """The first ``n`` bytes the peer sends (fewer if it closes), or :data:`_SILENT`."""
    sock.settimeout(timeout)
    data = b""
    try:
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                break
            data += chunk
    except (TimeoutError, OSError):
        return data or _SILENT
    return data
