"""Python's cyclic garbage collector paused around the caption metrics' allocation-heavy work.

Tokenising and scoring a COCO-size evaluation makes hundreds of thousands of small lists,
tuples and dicts and keeps most of them until the call returns. Every 700 new containers
the collector scans the young ones, and now and then everything alive: about a sixth of the
whole evaluation's time (5,000 COCO items) went to scans that find no garbage. Reference
counting still frees everything that is not part of a cycle while the collector is paused.
"""

from __future__ import annotations

import gc
import os
import threading
from contextlib import ContextDecorator

#: new containers left by the paused work above which the young generations are collected
#: once when the last block ends (left to itself, the collector would scan them young, then
#: move them on and soon scan everything alive: 0.15 s after METEOR's resources are loaded,
#: against 0.06 s)
COLLECT_AFTER = 50_000
_LOCK = threading.Lock()
_depth = 0
_was_enabled = False


class paused_gc(ContextDecorator):
    """A block (or, as a decorator, a call) during which the cyclic collector does not run.

    The pause is the whole process's (the collector is one for all threads). Blocks may nest
    and run in several threads at once: the collector is paused when the first starts, and
    when the last ends it is set back to the state it had when the first started (a
    ``gc.enable()`` or ``gc.disable()`` in between is undone); then, if it is enabled and the
    work left more than :data:`COLLECT_AFTER` new containers, the young generations are
    collected, once, outside any lock (a finaliser may start a new block).

    Examples
    --------
    >>> import gc
    >>> from kcca.captions.gc_pause import paused_gc
    >>> with paused_gc():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """

    def __enter__(self) -> paused_gc:
        global _depth, _was_enabled
        with _LOCK:
            if _depth == 0:
                _was_enabled = gc.isenabled()
                gc.disable()
            _depth += 1
        return self

    def __exit__(self, *_exc: object) -> None:
        global _depth
        with _LOCK:
            if _depth == 0:  # a block entered before a fork, ending in the child
                return
            _depth -= 1
            if _depth > 0 or not _was_enabled:
                return
            # counted while the collector is still off, so that no allocation can start an
            # automatic collection of the young generation before the explicit one
            many = gc.get_count()[0] > COLLECT_AFTER
            gc.enable()
        if many:
            gc.collect(1)


def _reset_in_child() -> None:
    """A child forked during a pause starts without it: the other threads' blocks are not
    in the child to end it (the forking thread's block, if any, ends without effect)."""
    global _LOCK, _depth
    _LOCK = threading.Lock()
    if _depth > 0:
        _depth = 0
        if _was_enabled:
            gc.enable()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_in_child)
