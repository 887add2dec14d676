"""The commit line of the tables' header: the checkout's commit, or ``unknown`` (never empty)
when git cannot name one, as for an install outside a git checkout."""

from __future__ import annotations

import subprocess

from kcca import _provenance as provenance


def test_commit_of_this_checkout_is_named():
    commit = provenance.git_commit()
    assert commit and commit != "unknown"


def test_outside_a_checkout_the_commit_is_unknown(monkeypatch):
    def not_a_repository(*args, **kwargs):
        return subprocess.CompletedProcess(args, 128, stdout="", stderr="fatal: not a git repo")

    monkeypatch.setattr(provenance.subprocess, "run", not_a_repository)
    assert provenance.git_commit() == "unknown"
