"""Where a result came from: the time, the code's commit and the machine, as the tables' header
(:mod:`kcca.paper.header`) and each system's run details (:mod:`kcca.systems.run`) record them."""

from __future__ import annotations

import datetime as _dt
import os
import platform
import subprocess
from pathlib import Path

#: the folder above the package: the git checkout when kcca runs from a clone
_SOURCE_TREE = Path(__file__).resolve().parents[1]


def now() -> str:
    """The local time to the second, ISO 8601 (``2026-11-26T09:10:56``)."""
    return _dt.datetime.now().isoformat(timespec="seconds")


def git_commit() -> str:
    """The short commit of the code that runs (``unknown`` outside a git checkout, as for an
    install that is not editable), with a note when tracked files have local changes."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            cwd=_SOURCE_TREE,
            timeout=10,
        )
        if out.returncode != 0 or not out.stdout.strip():
            return "unknown"
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
            cwd=_SOURCE_TREE,
        ).stdout.strip()
        return out.stdout.strip() + (" (with local changes)" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def machine() -> str:
    """Host, architecture, cores, Python and platform (``vm x86_64, 2 cores, Python 3.11.7,
    Linux-...``)."""
    return (
        f"{platform.node()} {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {platform.platform(terse=True)}"
    )
