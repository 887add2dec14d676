"""Faults of the machine a command runs on, named with the path, the fault and the flag that
chose the path: a read-only or full file system, a disk quota, the file size limit
(``ulimit -f``), a dangling or looping symbolic link, a file where a folder should be, a
folder that cannot be written.

:func:`describe_os_error` turns the ``OSError`` that ended a command into ``(message, fix)``
(for :func:`kcca._cli.describe_error`, exit status 2); :func:`check_writable` finds the same
faults before any work, for the folders a command writes, without creating anything.
"""

from __future__ import annotations

import argparse
import errno
import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from kcca._file_kinds import broken_link, file_on_path, path_kind
from kcca.errors import KccaUserError

#: errno -> (the fault in words, the kind of remedy: see :func:`_fix`)
FAULTS: dict[int, tuple[str, str]] = {
    errno.EROFS: ("read-only file system", "elsewhere"),
    errno.EACCES: ("permission denied", "permission"),
    errno.EPERM: ("operation not permitted", "permission"),
    errno.ENOSPC: ("no space left on the device", "space"),
    errno.EDQUOT: ("disk quota exceeded", "space"),
    errno.EFBIG: ("file too large for the file size limit (ulimit -f) or the file system", "size"),
    errno.ELOOP: ("symbolic link loop", "link"),
    errno.ENOTDIR: ("a part of the path is not a folder", "elsewhere"),
    errno.EEXIST: ("exists and is not a folder", "link"),
    errno.ENAMETOOLONG: ("file name too long", "elsewhere"),
    errno.EMFILE: ("too many open files", "files"),
    errno.ENFILE: ("too many open files on the system", "files"),
    errno.EIO: ("input/output error (a failing disk or network file system)", "elsewhere"),
}

#: flags whose value a command writes (the others name what it reads)
OUTPUT_FLAGS = frozenset(
    {
        "--cache-dir",
        "--out",
        "--output",
        "--per-item",
        "--plot",
        "--html",
        "--rankings-dir",
        "--export",
    }
)


class EnvironmentFault(KccaUserError):
    """A folder or file the command needs cannot be written or reached (read-only, full,
    a broken link, ...): printed as ``error:`` / ``fix:``, exit status 2."""

    fix = "choose a folder you can write (`kcca COMMAND --help` lists the output options)"


@dataclass(frozen=True)
class Role:
    """Who chose a path: ``flag`` (``--out``, ``--cache-dir``), its value ``root``, and how
    the flag is written with a value (``--out DIR``)."""

    flag: str
    root: Path
    usage: str
    label: str

    @property
    def writes(self) -> bool:
        return self.flag in OUTPUT_FLAGS


def is_environment_fault(exc: BaseException) -> bool:
    """Whether ``exc`` is an ``OSError`` that :func:`describe_os_error` names: one of
    :data:`FAULTS`, or a missing path that a dangling symbolic link explains."""
    if not isinstance(exc, OSError):
        return False
    if exc.errno == errno.ENOENT and exc.filename is not None:
        return broken_link(os.fsdecode(exc.filename)) is not None
    return exc.errno in FAULTS


def describe_os_error(exc: OSError, args: argparse.Namespace) -> tuple[str, str]:
    """``(message, fix)`` for an ``OSError`` of :data:`FAULTS` that ended a command: the
    path (from the error, else the file the command was writing), the fault, the flag that
    chose the path, and a fix that names that flag."""
    path = failed_path(exc)
    role = role_of(path, args) if path is not None else None
    return fault_text(exc.errno or 0, path, role, getattr(args, "command", None))


def fault_text(
    code: int, path: Path | None, role: Role | None, command: str | None = None
) -> tuple[str, str]:
    """``(message, fix)`` for the fault ``code`` (an errno of :data:`FAULTS`) at ``path``."""
    fault, kind = FAULTS.get(code, (os.strerror(code), "elsewhere"))
    subject = path
    if path is not None and code in (errno.ELOOP, errno.EEXIST, errno.ENOENT):
        link = broken_link(path)
        if link is not None:
            subject, fault, kind = link, f"is {path_kind(link)}", "link"
        elif code == errno.EEXIST and path_kind(path) == "a file":
            fault, kind = "is a file, not a folder", "elsewhere"
    elif path is not None and code == errno.ENOTDIR:
        culprit = file_on_path(path)
        if culprit is not None:
            subject, fault = culprit, f"is {path_kind(culprit)}, not a folder"
    where = ""
    if role is not None:
        same = subject is not None and _abs(subject) == _abs(role.root)
        where = f" ({role.label})" if same else f" ({role.label} {role.root})"
    if subject is None:
        message = f"{fault}{where}"
    else:
        sep = " " if fault.startswith("is ") else ": "
        named = f"{subject} (the working folder)" if _abs(subject) == _abs(".") else subject
        message = f"{named}{sep}{fault}{where}"
    return message, _fix(kind, subject, role, command)


def _fix(kind: str, path: Path | None, role: Role | None, command: str | None) -> str:
    if role is not None and role.flag == "--cache-dir":
        other = (
            "choose a cache folder you can write with --cache-dir DIR (or set "
            "KCCA_CACHE_DIR), or compute without a cache: --no-cache"
        )
    elif role is not None:
        what = "a path you can write" if role.writes else "another path"
        other = f"give {what} with {role.usage}"
    else:
        cmd = f"kcca {command}" if command else "kcca COMMAND"
        other = (
            f"choose a folder you can write (`{cmd} --help` lists the output options; "
            f"relative paths start at {os.getcwd()})"
        )
    folder = _existing_folder(path) if path is not None else None
    if kind == "space" and folder is not None:
        return f"free space on the file system of {folder} (`df -h {_q(folder)}`), or {other}"
    if kind == "size":
        return f"raise the file size limit (`ulimit -f unlimited`), or {other}"
    if kind == "permission" and folder is not None:
        return f"make {folder} writable (`chmod u+w {_q(folder)}`), or {other}"
    if kind == "link" and path is not None:
        return (
            f"repair or remove the symbolic link {path} (`ls -l {_q(path)}` shows its "
            f"target), or {other}"
        )
    if kind == "files":
        return f"raise the open-files limit (`ulimit -n 4096`) or use fewer --jobs, or {other}"
    return other


def _abs(path: str | os.PathLike) -> Path:
    return Path(os.path.abspath(path))


def _q(path: Path) -> str:
    return shlex.quote(str(path))


def _existing_folder(path: Path) -> Path:
    """``path`` if it is a folder, else the nearest folder above it."""
    p = Path(os.path.abspath(path))
    while not p.is_dir() and p.parent != p:
        p = p.parent
    return p


# ------------------------------------------------------------------ which path, which flag
def _is_temp(name: str) -> bool:
    """A writer's temporary file (``.<name>.<host>.<pid>.<random>.tmp``)."""
    base = os.path.basename(name)
    return base.startswith(".") and base.endswith(".tmp")


def _project_frames(exc: BaseException) -> Iterator[dict]:
    """The local variables of the frames of ``exc``'s traceback in this project's code,
    innermost first."""
    root = Path(__file__).resolve().parents[2]
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        where = Path(frame.f_code.co_filename).resolve()
        if root in where.parents and where.parts[len(root.parts)] in ("kcca", "features"):
            yield frame.f_locals


def failed_path(exc: OSError) -> Path | None:
    """The path an ``OSError`` concerns: its file name, unless that is missing (a full disk
    reports none) or a writer's temporary file; then the ``path`` the innermost writer of
    this project was writing (a temporary file's folder when there is none)."""
    name = exc.filename
    if name is not None and not _is_temp(os.fsdecode(name)):
        return Path(os.fsdecode(name))
    found = traceback_path(exc)
    if found is None and name is not None:
        return Path(os.fsdecode(name)).parent
    return found


def traceback_path(exc: BaseException) -> Path | None:
    """The ``path`` the innermost function of this project that ``exc`` passed through was
    reading or writing (its local variable ``path``), or ``None``."""
    for local in _project_frames(exc):
        value = local.get("path")
        if isinstance(value, (str, os.PathLike)) and not _is_temp(os.fspath(value)):
            return Path(os.fspath(value))
    return None


def _flag_values(args: argparse.Namespace) -> Iterator[tuple[str, str, str]]:
    """``(flag, usage, value)`` of every option of the command given a path-like value."""
    from kcca._cli import build_parser

    parser = build_parser()
    subs = next(
        (a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction)), {}
    )
    sub = subs.get(getattr(args, "command", None) or "")
    for action in sub._actions if sub is not None else ():
        if not action.option_strings or action.dest == "cache_dir":
            continue
        value = getattr(args, action.dest, None)
        values = value if isinstance(value, list) else [value]
        flag = max(action.option_strings, key=len)
        metavar = action.metavar if isinstance(action.metavar, str) else "PATH"
        for v in values:
            if isinstance(v, str) and v:
                yield flag, f"{flag} {metavar}", v


def _cache_role(args: argparse.Namespace) -> Role | None:
    if getattr(args, "no_cache", False):
        return None
    from kcca._cache import DEFAULT_CACHE_ENV, default_cache_dir

    if getattr(args, "cache_dir", None):
        return Role("--cache-dir", Path(args.cache_dir), "--cache-dir DIR", "--cache-dir")
    root = default_cache_dir()
    if root is None:
        return None
    label = (
        f"the cache folder of ${DEFAULT_CACHE_ENV}"
        if os.environ.get(DEFAULT_CACHE_ENV)
        else "the default cache folder"
    )
    return Role("--cache-dir", Path(root), "--cache-dir DIR", label)


def roles(args: argparse.Namespace) -> list[Role]:
    """The paths a command was given (or defaults to), each with the flag that sets it."""
    out = [Role(flag, Path(v), usage, flag) for flag, usage, v in _flag_values(args)]
    cache = _cache_role(args)
    return out + ([cache] if cache is not None else [])


def role_of(path: Path, args: argparse.Namespace) -> Role | None:
    """The role whose path is ``path``, a folder above it (the nearest wins) or, when none is,
    a path below it (``path`` is a folder made on the way to the role's)."""
    target = _abs(path)
    above: list[tuple[int, Role]] = []
    below: list[tuple[int, Role]] = []
    for role in roles(args):
        root = _abs(role.root)
        if root == target or root in target.parents:
            above.append((-len(root.parts), role))
        elif target in root.parents:
            below.append((len(root.parts), role))
    found = min(above, key=lambda x: x[0], default=None) or min(
        below, key=lambda x: x[0], default=None
    )
    return found[1] if found is not None else None


# ------------------------------------------------------------------ checks before any work
def probe_writable(path: str | os.PathLike, *, folder: bool = True) -> OSError | None:
    """The ``OSError`` that writing ``path`` (a folder to create or fill, or with
    ``folder=False`` a file) would meet, found without writing: a broken link or a file on
    the path, a read-only or unwritable folder, a full file system; ``None`` when none."""
    p = Path(os.path.abspath(path))
    if not folder:
        if p.is_dir():
            return IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(p))
        p = p.parent
    probe = p
    while True:
        try:
            st = os.stat(probe)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(probe))
            if os.path.islink(probe):  # a link to nothing: mkdir fails with EEXIST
                return OSError(errno.EEXIST, os.strerror(errno.EEXIST), str(probe))
            if exc.errno in (errno.ENOENT, errno.ENOTDIR) and probe.parent != probe:
                probe = probe.parent
                continue
            return OSError(exc.errno, exc.strerror, str(probe))
        break
    import stat

    if not stat.S_ISDIR(st.st_mode):
        code = errno.EEXIST if probe == p else errno.ENOTDIR
        return OSError(code, os.strerror(code), str(p))
    if not os.access(probe, os.W_OK | os.X_OK):
        code = errno.EROFS if _read_only(probe) else errno.EACCES
        return OSError(code, os.strerror(code), str(probe))
    if _read_only(probe):  # root may write any folder, but not a read-only file system
        return OSError(errno.EROFS, os.strerror(errno.EROFS), str(probe))
    try:
        vfs = os.statvfs(probe)
    except OSError:
        return None
    free = vfs.f_bfree if os.geteuid() == 0 else vfs.f_bavail
    if vfs.f_blocks and free == 0:
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(probe))
    return None


def _read_only(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def check_writable(
    path: str | os.PathLike, role: Role | str, *, folder: bool = True, command: str | None = None
) -> None:
    """Raise :class:`EnvironmentFault` (naming ``path``, the fault and the flag of ``role``)
    when ``path`` cannot be written (:func:`probe_writable`)."""
    fault = probe_writable(path, folder=folder)
    if fault is None:
        return
    if isinstance(role, str):
        role = Role(role, Path(path), f"{role} {'DIR' if folder else 'FILE'}", role)
    message, fix = fault_text(fault.errno or 0, Path(fault.filename), role, command)
    raise EnvironmentFault(message, fix=fix)


def check_outputs(
    args: argparse.Namespace,
    *outputs: tuple[str, str | os.PathLike | None, bool],
    cache: bool = True,
) -> None:
    """Before any work: every ``(flag, path, is_folder)`` of ``outputs`` given a path, and
    (``cache``, unless ``--no-cache``) the cache folder, can be written."""
    command = getattr(args, "command", None)
    for flag, path, is_folder in outputs:
        if path:
            check_writable(path, flag, folder=is_folder, command=command)
    role = _cache_role(args) if cache else None
    if role is not None:
        check_writable(role.root, role, command=command)
