"""The time left of a reproduce run counts only systems that computed something."""

import pytest

from kcca._systems.eta import RemainingTime


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_cached_systems_do_not_shrink_the_estimate():
    clock = Clock()
    eta = RemainingTime(4, clock=clock)
    clock.now += 600
    eta.done(600.0)        # computed: 600 s of wall per computed system
    clock.now += 2
    eta.done(2.0)          # from the cache: not counted as a fast system
    assert eta.remaining == 2
    assert eta.seconds_left() == pytest.approx(602.0 * 2)
    assert eta.text() == "at most about 20 min left (2 system(s))"


def test_unknown_while_only_cached_systems_finished_and_zero_when_done():
    clock = Clock()
    eta = RemainingTime(2, clock=clock)
    clock.now += 1
    eta.done(1.0)
    assert eta.seconds_left() is None
    assert "unknown" in eta.text()
    eta.done(1.0)
    assert eta.seconds_left() == 0.0 and eta.text() == "done"


def test_bad_total_is_refused():
    with pytest.raises(ValueError, match="non-negative integer"):
        RemainingTime(-1)
