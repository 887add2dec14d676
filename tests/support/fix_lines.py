"""The check that every ``fix:`` line names only options its command takes.

Used by the autouse fixture of ``tests/conftest.py`` on every fix line a test makes the CLI
print, and by ``tests/bad_inputs/test_fix_hints.py`` on every ``kcca`` command written in
the source.
"""

from __future__ import annotations

import argparse
import re

from kcca._cli import build_parser


def unknown_fix_options(fix: str, command: str | None, *, bare: bool = True) -> list[str]:
    """The ``--options`` of a fix line that the command they belong to does not take.

    An option belongs to the ``kcca SUB`` it follows (up to the end of that code span or
    clause), else to ``command``, the command that printed the fix (the test suite checks
    every fix it sees with this, so that a fix always runs as printed); ``bare=False`` checks
    only the options that follow a ``kcca SUB``.
    """
    parser = build_parser()
    subs = next(a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    known: dict[str | None, set[str]] = {name: option_strings(sp) for name, sp in subs.items()}
    known[None] = {o for a in parser._actions for o in a.option_strings}
    default = command if command in known else None
    current, unknown = default, []
    other = r"\b(?:pip|python3?|sed|chmod|apt-get|git|java)\b"  # another program's options
    for token in re.findall(rf"`|;|{other}|\bkcca\s+[a-z][a-z-]*|--[A-Za-z][A-Za-z0-9-]*", fix):
        if token in ("`", ";"):
            current = default
        elif re.fullmatch(other, token):
            current = "other"
        elif token.startswith("kcca"):
            sub = token.split()[1]
            current = sub if sub in known else current
        elif (
            current != "other"
            and (bare or current is not None)
            and token not in known[current]
            and token not in unknown
        ):
            unknown.append(token)
    return unknown


def option_strings(parser: argparse.ArgumentParser) -> set[str]:
    """Option strings of a parser and of its own subcommands (``caption-analysis bast``)."""
    out: set[str] = set()
    for action in parser._actions:
        out.update(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                out |= option_strings(sub)
    return out
