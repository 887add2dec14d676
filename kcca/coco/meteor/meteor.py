"""pycocoevalcap's ``Meteor``: Meteor 1.5 as its jar scores captions (Chen et al. 2015,
Section 3.5), by default without Java."""

from __future__ import annotations

import threading
from collections.abc import Mapping

from kcca.captions.meteor import Meteor as _Meteor
from kcca.coco._compat import score


class Meteor:
    """``Meteor().compute_score(gts, res) -> (corpus score, list of per-item scores)``, items
    in ``gts``'s order.

    A drop-in for pycocoevalcap's ``pycocoevalcap.meteor.meteor.Meteor`` (see its
    documentation for the interface). As pycocoevalcap starts the jar when its ``Meteor`` is
    made, making one starts loading METEOR's resources in a background thread (seconds).

    Parameters
    ----------
    engine : {"python", "java"}, default="python"
        ``"python"``: :mod:`kcca.captions.meteor_engine`, the jar's numbers without Java
        (needs the jar's data files, pycocoevalcap's); ``"java"``: runs the jar as
        pycocoevalcap does.
    cache_dir : path, "default" or None, default="default"
        The Python engine's cache of the paraphrase index (see
        :class:`kcca.captions.Meteor`).

    See Also
    --------
    kcca.captions.Meteor : the scorer behind it.

    Examples
    --------
    Skipped here, as making one loads METEOR's resources:

    >>> from kcca.coco.meteor.meteor import Meteor
    >>> gts = {1: ["a dog runs on the grass", "a brown dog is running"]}
    >>> Meteor().compute_score(gts, {1: ["a dog is running"]})  # doctest: +SKIP
    (0.2566..., [0.2566...])
    """

    def __init__(self, engine: str = "python", cache_dir="default"):
        self._scorer = _Meteor(engine=engine, cache_dir=cache_dir)
        # as pycocoevalcap starts the jar here, the engine loads while other metrics run
        self._loading = threading.Thread(target=self._prepare, name="meteor-load", daemon=True)
        self._loading.start()

    def _prepare(self) -> None:
        try:
            self._scorer.prepare()
        except Exception:  # compute_score meets the same fault and names it
            pass

    def compute_score(self, gts: Mapping, res: Mapping) -> tuple[float, list[float]]:
        self._loading.join()
        corpus, per_item = score(self._scorer, gts, res)
        return float(corpus), [float(s) for s in per_item]

    def method(self) -> str:
        return "METEOR"
