"""The width of printed output: :data:`WIDTH` columns, text wrapped at spaces only (never inside
a word or a path). Light on purpose: the command line imports it before any heavy library."""

from __future__ import annotations

import textwrap

#: the widest line a command prints (a path longer than this alone gets a line of its own)
WIDTH = 100


def wrap(text: str, width: int = WIDTH, *, indent: str = "", continuation: str = "  ") -> str:
    """A message line wrapped to ``width`` columns at spaces (never inside a word or a path):
    the first line after ``indent``, the continuation lines after ``continuation``."""
    return (
        "\n".join(
            textwrap.wrap(
                text,
                width,
                initial_indent=indent,
                subsequent_indent=continuation,
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
        or text
    )
