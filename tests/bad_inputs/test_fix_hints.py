"""Every ``fix:`` hint names options that exist: the ``kcca SUB --option`` commands written in
the source, and (through the autouse fixture of tests/conftest.py) every fix line any test
makes the CLI print, checked against the parser of the command it belongs to."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.fix_lines import unknown_fix_options

ROOT = Path(__file__).resolve().parents[2]


def _texts(tree: ast.AST):
    """String constants and f-strings (their constant parts, placeholders as ``X``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            yield node.lineno, "".join(v.value if isinstance(v, ast.Constant) else "X"
                                       for v in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value


def _commands_in_source():
    for package in ("kcca", "features"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for line, text in _texts(ast.parse(path.read_text(encoding="utf-8"))):
                if "kcca " in text and "--" in text:
                    yield f"{path.relative_to(ROOT)}:{line}", text


def test_every_kcca_command_written_in_the_source_takes_its_options():
    bad = {where: (unknown_fix_options(text, None, bare=False), text)
           for where, text in _commands_in_source()}
    bad = {w: v for w, v in bad.items() if v[0]}
    assert not bad, bad


@pytest.mark.parametrize("fix, command, unknown", [
    ("pass --skip-bad-images to leave it out", "features", []),
    ("pass --skip-bad-images to leave it out", "evaluate", ["--skip-bad-images"]),
    ("run `kcca features --no-such-flag` first", "data", ["--no-such-flag"]),
    ("run `kcca data --corpus demo`, then pass --cache-dir X", "demo", []),
])
def test_the_checker(fix, command, unknown):
    assert unknown_fix_options(fix, command) == unknown
