"""The one ``error:`` and one ``fix:`` line every named error of the command line prints."""

from __future__ import annotations

import re


def one_error(err: str) -> tuple[str, str]:
    """The ``error:`` and ``fix:`` lines of ``err`` (exactly one each, no traceback)."""
    assert "Traceback" not in err, err
    errors = re.findall(r"^error: (.*)$", err, re.M)
    fixes = re.findall(r"^fix: (.*)$", err, re.M)
    assert len(errors) == 1 and len(fixes) == 1, err
    return errors[0], fixes[0]
