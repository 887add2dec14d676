"""The width rule of printed output, as tests check it (kcca._line_width)."""

from __future__ import annotations

import re

from kcca._line_width import WIDTH


def long_lines(text: str) -> list[str]:
    """The lines of ``text`` (progress-bar redraws split at ``\\r``) over :data:`WIDTH`
    characters that are not one path alone (with the `` \\`` of a continued command or a
    closing backquote), which the rule lets run longer."""
    return [line for line in re.split(r"[\r\n]", text)
            if len(line) > WIDTH and " " in line.strip().rstrip("\\").strip().strip("`")]


def assert_lines_fit(text: str) -> None:
    """Every line of ``text`` fits :data:`WIDTH` columns, but a path alone on its line."""
    long = long_lines(text)
    if long:
        raise AssertionError(f"{len(long[0])} characters: {long[0]!r}")
