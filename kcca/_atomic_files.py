"""Files written atomically: a unique temporary file in the target's folder, then ``os.replace``.

A reader sees the old or the new file, never a partial one; the temporary file of a writer that
was killed is recognised by its name (host and process id) and removed by the next run. A file
written here is never writable by group or others, whatever the umask.
"""

from __future__ import annotations

import os
import re
import socket
import tempfile
from pathlib import Path
from typing import Callable, Iterable


def _umask() -> int:
    """The process's file-creation mask (read without changing it where Linux allows)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: ``.<target name>.<host>.<pid>.<random>.tmp``: a writer's unique temporary file
TEMP_FILE = re.compile(r"^\.(?P<name>.+)\.(?P<host>[^.]+)\.(?P<pid>\d+)\.[^.]+\.tmp$")


def host_name() -> str:
    """This machine's name as it goes into temporary file names (letters, digits, ``-``)."""
    return re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname()) or "host"


def atomic_write(path: str | os.PathLike, write: Callable[[str], object]) -> Path:
    """Call ``write(tmp_path)`` and rename the result to ``path`` (atomic on one filesystem).

    The temporary file is unique to this writer (host, process id and a random part), so
    concurrent writers of one target never collide and a reader sees the old or the new file,
    never a partial one; the result gets the permissions the umask gives a new file, less
    group and other write. A temporary file left behind by a killed writer is removed by
    :func:`remove_stale_temp_files`.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{path.name}.{host_name()}.{os.getpid()}.", suffix=".tmp", dir=path.parent
    )
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o644 & ~_umask())  # never writable by group or others
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write a UTF-8 text file through :func:`atomic_write`."""
    return atomic_write(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def remove_stale_temp_files(folder: str | os.PathLike, *, recursive: bool = True) -> list[Path]:
    """Delete the temporary files of :func:`atomic_write` whose writer is gone (a process of
    this host that no longer runs); returns them. Live writers' files are left alone."""
    root = Path(folder)
    if not root.is_dir():
        return []
    return _unlink_all(stale_temp_files(root, recursive=recursive))


def _unlink_all(paths: Iterable[Path]) -> list[Path]:
    """Delete each file that still exists; returns those deleted (a file another process
    removed first is skipped)."""
    removed = []
    for f in paths:
        try:
            f.unlink()
            removed.append(f)
        except FileNotFoundError:
            pass
    return removed


def stale_temp_files(root: Path, *, recursive: bool = True) -> list[Path]:
    """The temporary files of :func:`atomic_write` under ``root`` whose writer is gone (a
    process of this host that no longer runs)."""
    host = host_name()
    files = root.rglob(".*.tmp") if recursive else root.glob(".*.tmp")
    return [
        f
        for f in files
        if (m := TEMP_FILE.match(f.name)) and m["host"] == host and not process_alive(int(m["pid"]))
    ]


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` of this machine still runs (its temporary files are in use)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
