"""Output lines of at most :data:`WIDTH` characters: wrapped messages, a path that does not fit
on its own line, and commands split with shell line continuations (they still run as printed).
"""

from __future__ import annotations

import logging
import shlex
from typing import Sequence

from kcca._line_width import WIDTH, wrap

__all__ = ["WIDTH", "command", "joined_command", "log_handler", "with_path", "wrap"]


def with_path(before: str, path: object, after: str = "", width: int = WIDTH) -> str:
    """``before + path + after`` on one line when it fits, else the path on a line of its own
    (indented by two spaces) between the two parts."""
    one = f"{before}{path}{after}"
    if len(one) <= width:
        return one
    lines = [before.rstrip(), f"  {path}"]
    if after.strip():
        lines.append(wrap(after.strip(), width, indent="  ", continuation="  "))
    return "\n".join(lines)


def command(argv: Sequence[str], prefix: str = "", suffix: str = "", width: int = WIDTH) -> str:
    """The shell command ``argv`` (quoted) after ``prefix`` and before ``suffix`` on one line when
    it fits, else split between words with `` \\`` line continuations, which a shell joins: the
    command runs as printed. Continuation lines are indented by four spaces."""
    words = [shlex.quote(str(w)) for w in argv]
    one = f"{prefix}{' '.join(words)}{suffix}"
    if len(one) <= width:
        return one
    lines: list[str] = []
    current = prefix + words[0]
    for word in words[1:]:
        if len(current) + 1 + len(word) + 2 <= width:  # room for " word \"
            current += " " + word
        else:
            lines.append(current + " \\")
            current = "    " + word
    lines.append(current + suffix)
    return "\n".join(lines)


def joined_command(text: str) -> list[str]:
    """The words of a command that :func:`command` printed (its continuations joined)."""
    return shlex.split(text.replace("\\\n", " "))


class WrappingFormatter(logging.Formatter):
    """``LEVEL logger: message`` wrapped to :data:`WIDTH` columns (a traceback as it is)."""

    def __init__(self) -> None:
        super().__init__("%(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        first, sep, rest = text.partition("\n")
        return wrap(first) + sep + rest


def log_handler() -> logging.Handler:
    """A stderr handler of log records through :class:`WrappingFormatter`."""
    handler = logging.StreamHandler()
    handler.setFormatter(WrappingFormatter())
    return handler
