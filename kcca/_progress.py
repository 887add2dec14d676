"""Saying what a slow step is doing: one line when it starts, then a progress bar.

A step that can take more than a few seconds announces itself on stderr (:func:`notice`) and
shows a tqdm bar while it runs; one that builds a cache entry says, once, what it builds, about
how long that takes and where the result is kept (:func:`building`). Both are off with
``enabled=False`` (the ``progress`` switch of the library, ``--quiet`` on the command line).
"""

from __future__ import annotations

import sys
from typing import Any


def about(seconds: float) -> str:
    """A rough duration: ``"about 40 seconds"``, ``"about 3 minutes"``."""
    if seconds < 90:
        return f"about {max(5, int(round(seconds / 5.0)) * 5)} seconds"
    return f"about {int(round(seconds / 60.0))} minutes"


def notice(message: str, enabled: bool = True) -> None:
    """``message`` on its own line of stderr (between the redraws of any progress bar)."""
    if not enabled:
        return
    from tqdm.auto import tqdm

    tqdm.write(message, file=sys.stderr)


def building(
    what: str, seconds: float | None, cache: Any, stage: str, enabled: bool = True
) -> None:
    """``building WHAT (about N minutes, once; cached in ROOT/STAGE)`` via :func:`notice`.

    ``cache`` is a :class:`kcca._cache.Cache` (a disabled one: "not cached"); ``seconds`` the
    expected duration on this machine class (None: not said).
    """
    if not enabled:
        return
    root = getattr(cache, "root", None)
    where = f"once; cached in {root / stage}" if root is not None else "not cached"
    when = f"{about(seconds)}, " if seconds is not None else ""
    notice(f"building {what} ({when}{where})")
