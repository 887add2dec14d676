"""Optional tools (Java, pycocoevalcap, a headless browser, Dask): skipped locally, required in CI.

A developer's machine may lack an optional tool, and its tests then skip with the reason.
``.ci/run`` installs every one of them and sets ``KCCA_CI=1``: there a missing tool fails the
test instead, so a broken install can never pass CI as a row of skips.
"""

from __future__ import annotations

import os

import pytest

CI_ENV = "KCCA_CI"


def in_ci() -> bool:
    return os.environ.get(CI_ENV, "") not in ("", "0")


def skip_unless(available: bool, why: str) -> None:
    """Skip the calling test with ``why`` when the tool is absent; fail instead under CI."""
    if available:
        return
    if in_ci():
        pytest.fail(f"{why} ({CI_ENV} is set: .ci/run installs every optional tool)",
                    pytrace=False)
    pytest.skip(why)
