"""The ``kcca`` command. One module per subcommand, each with ``add_parser`` and ``run``.

A subcommand module defines ``add_parser(subparsers) -> argparse.ArgumentParser`` (which
sets ``func=run`` on its parser) and ``run(args) -> int``. Register it in ``SUBCOMMANDS``.

Errors: :func:`main` turns the user errors of :mod:`kcca.errors` (bad or missing data and
files, malformed experiment files, unknown names, broken plug-ins, files of another version),
missing paths and faults of the machine (a read-only or full file system, the file size
limit, a broken symbolic link: :mod:`kcca._cli.environment_faults`) into ``error: <message>``
and ``fix: <what to do>`` on stderr and exit status 2. Whose fault an error is follows from
its type alone, never from where the raising code is installed: a plain ``ValueError`` (or
any other exception) is a bug, printed as one line saying ``unexpected`` with exit status 1.
``--verbose`` adds the traceback. Log records of level INFO are shown with ``--verbose`` only
(:func:`log_level`): otherwise a command prints its progress, its results and warnings. A
command that used the cache ends with one line per stage of entries computed and loaded (not
with ``--quiet``).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import select
import sys
import traceback
from typing import Sequence

from kcca import __version__

SUBCOMMANDS = (
    "kcca._cli.data_cmd",
    "kcca._cli.demo_cmd",
    "kcca._cli.preprocess_cmd",
    "kcca._cli.features_cmd",
    "kcca._cli.similar_words_cmd",
    "kcca._cli.evaluate_cmd",
    "kcca._cli.score_captions_cmd",
    "kcca._cli.caption_analysis_cmd",
    "kcca._cli.reproduce_cmd",
    "kcca._cli.tables_cmd",
    "kcca._cli.fit_model_cmd",
    "kcca._cli.query_cmd",
    "kcca._cli.annotate_cmd",
    "kcca._cli.report_cmd",
    "kcca._cli.cache_cmd",
)


def build_parser() -> argparse.ArgumentParser:
    from kcca._cli.common import add_common_options

    parser = argparse.ArgumentParser(
        prog="kcca",
        description="Sentence-based image description and search as a ranking task "
        "(Hodosh, Young & Hockenmaier 2013).",
    )
    parser.add_argument("--version", action="version", version=f"kcca {__version__}")
    add_common_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in SUBCOMMANDS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:  # subcommand not built yet
                continue
            raise
        module.add_parser(sub)
    return parser


def log_level(args: argparse.Namespace) -> int:
    """The level of the log records a command shows: INFO with ``--verbose`` (not with
    ``--quiet``), else WARNING: without ``--verbose`` a command shows its progress, its results
    and warnings only."""
    return logging.INFO if args.verbose and not args.quiet else logging.WARNING


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from kcca._cli.common import finalize

    finalize(args)
    from kcca._cli.lines import log_handler

    logging.basicConfig(level=log_level(args), handlers=[log_handler()])
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    from kcca._cache import format_cache_stats, reset_cache_stats

    reset_cache_stats()
    _raise_on_file_size_limit()
    _escape_what_stdout_cannot_encode()
    try:
        status = int(args.func(args) or 0)
        sys.stdout.flush()  # a reader that went away shows here, not at the interpreter's exit
        return status
    except BrokenPipeError as exc:
        if not _stdout_reader_gone():
            message, fix, status = describe_error(exc, args)
            _report(args, message, fix)
            return status
        _discard_stdout()
        return SIGPIPE_STATUS
    except KeyboardInterrupt:
        _report(
            args,
            "interrupted",
            "re-run the same command: finished stages are cached and the run resumes from them",
        )
        return 130
    except Exception as exc:  # noqa: BLE001 - every error ends in one message (or a traceback)
        message, fix, status = describe_error(exc, args)
        _report(args, message, fix)
        return status
    finally:
        summary = format_cache_stats()
        if summary and not args.quiet:
            print(summary, file=sys.stderr)


def describe_error(exc: BaseException, args: argparse.Namespace) -> tuple[str, str | None, int]:
    """(message, fix, exit status) for an exception that ended a command."""
    from kcca.errors import KccaUserError

    command = getattr(args, "command", None) or "COMMAND"
    if isinstance(exc, KccaUserError):
        fix = exc.fix.replace("kcca COMMAND", f"kcca {command}") if exc.fix else exc.fix
        return exc.message or type(exc).__name__, fix, 2
    from kcca._cli.environment_faults import describe_os_error, is_environment_fault

    if is_environment_fault(exc):
        assert isinstance(exc, OSError)
        message, fix = describe_os_error(exc, args)
        return message, fix, 2
    if type(exc).__module__ == "cv2" and type(exc).__name__ == "error":
        return _opencv_error(exc)
    if isinstance(exc, (FileNotFoundError, NotADirectoryError, IsADirectoryError, PermissionError)):
        path = exc.filename if exc.filename is not None else ""
        reason = exc.strerror or type(exc).__name__
        message = f"{reason}: {path}" if path else str(exc)
        if isinstance(exc, PermissionError):
            fix = "choose a path you can read and write, or change its permissions"
        else:
            fix = (
                f"check the path (relative paths start at {os.getcwd()}); "
                f"`kcca {command} --help` lists the arguments"
            )
        return message, fix, 2
    text = str(exc).splitlines()[0] if str(exc) else ""
    return (
        f"unexpected {type(exc).__name__}" + (f": {text}" if text else ""),
        "run with --verbose for the traceback (and report it if the inputs look right)",
        1,
    )


def _opencv_error(exc: BaseException) -> tuple[str, str | None, int]:
    """An OpenCV error (``cv2.error``) raised while decoding a file: the file the command was
    reading is malformed (a size the decoder refuses, say), so the error names it."""
    from kcca._cli.environment_faults import traceback_path

    path = traceback_path(exc)
    said = next((line.strip() for line in str(exc).splitlines() if "error:" in line), str(exc))
    said = said.split("error:", 1)[-1].strip()
    if path is None:
        return (
            f"OpenCV could not decode an image: {said}",
            "run with --verbose to see which file; re-save it as PNG or JPEG, or remove it",
            2,
        )
    return (
        f"{path}: not a decodable image (OpenCV: {said})",
        f"re-save {path} as PNG or JPEG, or remove it",
        2,
    )


def _escape_what_stdout_cannot_encode() -> None:
    """Print a character that standard output's encoding lacks (a caption's "é" under
    ``PYTHONIOENCODING=ascii`` or a C locale) as a backslash escape, as standard error
    does, instead of failing; text it can encode (all of it in UTF-8) is printed as it is."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors="backslashreplace")
        except (ValueError, OSError):  # a closed or detached stream: left as it is
            pass


def _raise_on_file_size_limit() -> None:
    """Ignore SIGXFSZ, so that a write past the file size limit (``ulimit -f``) raises an
    ``OSError`` (EFBIG) that is named, instead of killing the process."""
    import signal

    if hasattr(signal, "SIGXFSZ"):
        try:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        except ValueError:  # not the main thread: leave the signal as it is
            pass


#: the exit status of a command whose output reader went away (``kcca evaluate ... | head``):
#: that of a process ended by SIGPIPE, as the shell reports it (128 + 13)
SIGPIPE_STATUS = 141


def _stdout_reader_gone() -> bool:
    """Whether standard output is a pipe whose reading end is closed (poll reports an error
    on it), so that a ``BrokenPipeError`` came from our own output, not from a worker."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (OSError, ValueError, AttributeError):
        return False


def _discard_stdout() -> None:
    """Point standard output at the null device: the interpreter's final flush of what is
    still buffered would raise the same ``BrokenPipeError`` again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _report(args: argparse.Namespace, message: str, fix: str | None) -> None:
    if getattr(args, "verbose", False):
        traceback.print_exc(file=sys.stderr)
    print(f"error: {message}", file=sys.stderr)
    if fix:
        print(f"fix: {fix}", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
