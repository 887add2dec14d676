"""The time left of a run over many systems, counting only systems that computed something.

A system whose stages all came from the cache finishes in seconds; averaging it with the
systems that fitted KCCA grids made ``kcca reproduce`` print "about 0 min left" while an
uncached system was still running. :class:`RemainingTime` estimates the wall time per computed
system (the run's wall time so far over the number of systems that took longer than
``cached_below`` seconds) and multiplies it by the systems still to run; systems still to run
that turn out to be cached make that an upper estimate, so it is printed as "at most".
"""

from __future__ import annotations

import time
from typing import Callable


class RemainingTime:
    """Estimate of the wall time left, from the durations of the systems done so far.

    ``total`` systems will run; call :meth:`done` with each finished system's own seconds.
    ``clock`` is injectable for tests (default :func:`time.perf_counter`).
    """

    def __init__(
        self,
        total: int,
        *,
        cached_below: float = 15.0,
        clock: Callable[[], float] = time.perf_counter,
    ):
        if isinstance(total, bool) or int(total) != total or total < 0:
            raise ValueError(f"total must be a non-negative integer, got {total!r}")
        self.total = int(total)
        self.cached_below = float(cached_below)
        self._clock = clock
        self._start = clock()
        self.finished = 0
        self.computed = 0

    def done(self, seconds: float) -> None:
        """Record one finished system that took ``seconds`` of its own."""
        self.finished += 1
        if seconds >= self.cached_below:
            self.computed += 1

    @property
    def remaining(self) -> int:
        return max(self.total - self.finished, 0)

    def seconds_left(self) -> float | None:
        """Upper estimate of the wall seconds left; ``None`` while no system has computed
        anything (every one so far came from the cache) and some are left."""
        if self.remaining == 0:
            return 0.0
        if self.computed == 0:
            return None
        return (self._clock() - self._start) / self.computed * self.remaining

    def text(self) -> str:
        """``"at most about 12 min left"``, ``"done"``, or ``"time left unknown (...)"``."""
        left = self.seconds_left()
        if left is None:
            return "time left unknown (every system so far came from the cache)"
        if self.remaining == 0:
            return "done"
        return f"at most about {max(left / 60, 1):.0f} min left ({self.remaining} system(s))"
