"""The docs cite only what a clone of the repository holds.

Every git revision a doc names (``git checkout REF``, ``git worktree add DIR REF``, a ``tag
`REF```, a ``commit 1a2b3c4``) is a commit in the history of ``HEAD``, so a user's clone has it;
every repository path a doc names in inline code (a word whose first part is a top-level entry
of the repository, ``scripts/foo.py``) exists or is an output location that git ignores
(``benchmarks/results/``); every relative Markdown link points at a file or folder that exists.
Commands in code blocks are not read here: ``tests/test_newcomer_walk.py`` runs the README's.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: the Markdown files that users read: the top level and every folder but the tests
DOC_FOLDERS = ("docs", "scripts", "experiments", "results", "benchmarks", "examples")

#: how a doc names a git revision; group 1 is the revision
REVISION_PATTERNS = (
    re.compile(r"git checkout ([\w./-]+)"),
    re.compile(r"git worktree add \S+ ([\w./-]+)"),
    re.compile(r"\btag `([^`]+)`"),
    re.compile(r"\bcommit ([0-9a-f]{7,40})\b"),
)

FENCE = re.compile(r"^```.*?^```", re.S | re.M)
INLINE_CODE = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)


def _needs_history() -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    if _git("rev-parse", "--is-shallow-repository").stdout.strip() != "false":
        pytest.skip("a shallow clone lacks the history the docs may cite")


def _doc_files() -> list[Path]:
    docs = sorted(ROOT.glob("*.md"))
    for folder in DOC_FOLDERS:
        docs += sorted(p for p in (ROOT / folder).rglob("*.md") if "__pycache__" not in p.parts)
    return docs


def _prose(path: Path) -> str:
    """The file's text without its fenced code blocks."""
    return FENCE.sub("", path.read_text(encoding="utf-8"))


def _in_history(revision: str) -> bool:
    known = _git("rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    return known.returncode == 0 and _git(
        "merge-base", "--is-ancestor", known.stdout.strip(), "HEAD").returncode == 0


def test_docs_cite_only_revisions_in_the_history():
    """A revision a doc names is a commit that ``HEAD`` descends from."""
    _needs_history()
    missing = []
    for path in _doc_files():
        text = path.read_text(encoding="utf-8")
        for pattern in REVISION_PATTERNS:
            for revision in sorted({m.group(1) for m in pattern.finditer(text)}):
                if not _in_history(revision):
                    missing.append(f"{path.relative_to(ROOT)}: {revision}")
    assert not missing, "docs cite revisions a clone does not hold:\n" + "\n".join(missing)


def _repository_paths(code: str, tops: set[str]) -> list[str]:
    """The words of an inline code span that name a path in the repository."""
    found = []
    for word in code.split():
        word = word.strip("'\"(),;").split("#")[0]
        if "/" not in word or any(c in word for c in "*{}<>$=~"):
            continue
        if word.split("/")[0] in tops:
            found.append(word.split(":")[0])
    return found


def _exists_or_ignored(relative: str) -> bool:
    if (ROOT / relative).exists():
        return True
    return any(_git("check-ignore", "--quiet", "--no-index", name).returncode == 0
               for name in (relative, relative.rstrip("/") + "/"))


def test_docs_name_only_paths_that_exist():
    """A repository path in a doc's inline code exists (or git ignores it: an output folder)."""
    _needs_history()
    tops = {p.name for p in ROOT.iterdir() if p.name != ".git"}
    missing = []
    for path in _doc_files():
        for code in INLINE_CODE.findall(_prose(path)):
            for word in _repository_paths(code, tops):
                if not _exists_or_ignored(word):
                    missing.append(f"{path.relative_to(ROOT)}: {word}")
    assert not missing, "docs name paths the repository does not hold:\n" + "\n".join(missing)


def test_docs_links_point_at_what_exists():
    """A relative Markdown link's target (without its #anchor) exists beside the doc."""
    missing = []
    for path in _doc_files():
        for target in LINK.findall(_prose(path)):
            target = target.split("#")[0]
            if not target or re.match(r"[a-z]+:", target):
                continue
            if not (path.parent / target).exists():
                missing.append(f"{path.relative_to(ROOT)}: {target}")
    assert not missing, "docs link to files that do not exist:\n" + "\n".join(missing)
