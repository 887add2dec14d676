"""Where a result came from: the time, the code's commit (and its local changes) and the
machine, as the tables' header (:mod:`kcca._paper.header`) and each system's run details
(:mod:`kcca._systems.run`) record them; and which folders hold committed results."""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import platform
import subprocess
from dataclasses import dataclass
from pathlib import Path

#: the folder above the package: the git checkout when kcca runs from a clone
_SOURCE_TREE = Path(__file__).resolve().parents[1]

#: the folder of a checkout that holds committed results (``results/hodosh2013``, ...)
RESULTS_FOLDER = "results"


def now() -> str:
    """The local time to the second, ISO 8601 (``2026-11-26T09:10:56``)."""
    return _dt.datetime.now().isoformat(timespec="seconds")


def source_tree() -> Path:
    """The folder above the package (the checkout, for a clone)."""
    return _SOURCE_TREE


def _git(*args: str, cwd: str | Path | None = None) -> subprocess.CompletedProcess | None:
    """``git ARGS`` in ``cwd`` (default: the source tree; binary output), or None when git
    cannot run."""
    try:
        return subprocess.run(
            ["git", *args], capture_output=True, cwd=cwd or _SOURCE_TREE, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return None


#: the folders of the source tree whose new (untracked) files count as local changes
CODE_FOLDERS = ("kcca", "features", "experiments")


@dataclass(frozen=True)
class SourceState:
    """The code's commit and its local changes: ``changed``, the paths of ``git diff HEAD``;
    ``new``, files git does not track yet in :data:`CODE_FOLDERS`; ``diff_sha256``, the
    hash of that diff (followed, when there are new files, by their names and contents)."""

    commit: str
    changed: tuple[str, ...] = ()
    diff_sha256: str = ""
    new: tuple[str, ...] = ()

    @property
    def dirty(self) -> bool:
        return bool(self.changed or self.new)

    def describe(self) -> str:
        """``f678bac``, or ``f678bac + local changes (git diff HEAD sha256 1a2b3c4d5e6f,
        2 files: kcca/a.py, kcca/b.py; new: kcca/c.py)``."""
        if not self.dirty:
            return self.commit
        n = len(self.changed)
        new = f"; new: {', '.join(self.new)}" if self.new else ""
        return (
            f"{self.commit} + local changes (git diff HEAD sha256 {self.diff_sha256[:12]}, "
            f"{n} file{'s' if n != 1 else ''}: {', '.join(self.changed)}{new})"
        )

    @property
    def files(self) -> tuple[str, ...]:
        """The changed files, then the new ones."""
        return self.changed + self.new


def _split(out: bytes) -> tuple[str, ...]:
    return tuple(sorted(n for n in out.decode(errors="replace").split("\0") if n))


def source_state() -> SourceState:
    """The state of the code that runs (commit ``unknown`` outside a git checkout, as for an
    install that is not editable)."""
    head = _git("rev-parse", "--short", "HEAD")
    if head is None or head.returncode != 0 or not head.stdout.strip():
        return SourceState("unknown")
    commit = head.stdout.decode().strip()
    diff = _git("diff", "HEAD", "--binary", "--no-color", "--no-ext-diff")
    names = _git("diff", "HEAD", "--name-only", "-z", "--no-ext-diff")
    others = _git("ls-files", "--others", "--exclude-standard", "-z", "--", *CODE_FOLDERS)
    if diff is None or names is None or others is None:
        return SourceState(commit + " (local changes unknown)")
    if diff.returncode or names.returncode or others.returncode:
        return SourceState(commit + " (local changes unknown)")
    changed, new = _split(names.stdout), _split(others.stdout)
    if not (changed or new):
        return SourceState(commit)
    digest = hashlib.sha256(diff.stdout)
    for name in new:
        try:
            content = (_SOURCE_TREE / name).read_bytes()
        except OSError:
            content = b""
        digest.update(name.encode() + b"\0" + content + b"\0")
    return SourceState(commit, changed, digest.hexdigest(), new)


def git_commit() -> str:
    """The commit of the code that runs, with its local changes named
    (:meth:`SourceState.describe`)."""
    return source_state().describe()


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def committed_results(path: str | Path) -> str | None:
    """Why ``path`` is a place of committed results, or None: it lies in the ``results``
    folder of this source tree or of the git checkout around it, or git tracks files in it."""
    target = Path(path).resolve()
    anchor = next((p for p in (target, *target.parents) if p.is_dir()), None)
    if anchor is None:
        return None
    ours = _SOURCE_TREE / RESULTS_FOLDER
    if (_SOURCE_TREE / ".git").exists() and _inside(target, ours):
        return f"it lies in the project's committed results folder {ours}"
    top = _git("rev-parse", "--show-toplevel", cwd=anchor)
    if top is None or top.returncode != 0:
        return None
    root = Path(top.stdout.decode().strip()).resolve()
    tracked = _git("ls-files", "-z", "--", str(target), cwd=root)
    if tracked is not None and tracked.returncode == 0 and tracked.stdout.strip(b"\0"):
        return f"git tracks files in it (the checkout {root})"
    results = root / RESULTS_FOLDER
    listed = _git("ls-files", "-z", "--", str(results), cwd=root)
    if _inside(target, results) and listed is not None and listed.stdout.strip(b"\0"):
        return f"it lies in the committed results folder {results} of the checkout {root}"
    return None


def machine() -> str:
    """Host, architecture, cores, Python and platform (``vm x86_64, 2 cores, Python 3.11.7,
    Linux-...``)."""
    return (
        f"{platform.node()} {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {platform.platform(terse=True)}"
    )
