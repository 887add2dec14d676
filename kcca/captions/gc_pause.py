"""Python's cyclic garbage collector paused around the caption metrics' allocation-heavy work.

Tokenising and scoring a COCO-size evaluation makes hundreds of thousands of small lists,
tuples and dicts and keeps most of them until the call returns. Every 700 new containers
the collector scans the young ones, and now and then everything alive: about a fifth of the
whole evaluation's time (5,000 COCO items) goes to scans that find no garbage. Reference
counting still frees everything that is not part of a cycle while the collector is paused.
"""

from __future__ import annotations

import gc
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

    Blocks may nest and run in several threads at once: the collector is paused when the
    first starts and set back as it was (enabled or not) when the last ends; if the work
    left more than :data:`COLLECT_AFTER` new containers, the young generations are collected
    then, once.

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
            _depth -= 1
            if _depth == 0 and _was_enabled:
                if gc.get_count()[0] > COLLECT_AFTER:
                    gc.collect(1)
                gc.enable()
