"""pycocoevalcap's ``Meteor``: Meteor 1.5 as its jar scores captions (Chen et al. 2015,
Section 3.5), by default without Java."""

from __future__ import annotations

import threading
from collections.abc import Mapping

from kcca.captions._meteor import Meteor as _Meteor
from kcca.captions._meteor import score_line
from kcca.coco._compat import ordered_inputs

__all__ = ["METEOR_JAR", "Meteor"]

#: pycocoevalcap's name of the Meteor 1.5 jar (whose data files the Python engine reads)
METEOR_JAR = "meteor-1.5.jar"


class Meteor:
    """``Meteor().compute_score(gts, res) -> (corpus score, list of per-item scores)``, items
    in ``gts``'s order.

    A drop-in for pycocoevalcap's ``pycocoevalcap.meteor.meteor.Meteor`` (see its
    documentation for the interface). As pycocoevalcap starts the jar when its ``Meteor`` is
    made, making one starts loading METEOR's resources in a background thread (seconds).

    ``_stat(hypothesis, references)`` (the jar's statistics line of one item) and
    ``_score(hypothesis, references)`` (METEOR of one item), which code written for
    pycocoevalcap calls for per-sentence METEOR, are provided with the jar's numbers
    (computed by the Python engine whatever ``engine`` says); ``lock`` is a
    ``threading.Lock`` as pycocoevalcap's (``_stat`` and ``_score`` need no lock here).
    Not provided: ``meteor_p`` and ``meteor_cmd``, pycocoevalcap's Java process and its
    command line (no Java is run by default).

    Parameters
    ----------
    engine : {"python", "java"}, default="python"
        ``"python"``: :mod:`kcca.captions._meteor_engine`, the jar's numbers without Java
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
        # _stat and _score: the Python engine's numbers, whatever ``engine`` says
        self._sentences = (
            self._scorer if engine == "python" else _Meteor(engine="python", cache_dir=cache_dir)
        )
        self.lock = threading.Lock()
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
        _, references, candidates = ordered_inputs(gts, res)
        corpus, per_item = self._scorer.score_texts(references, candidates)
        return float(corpus), [float(s) for s in per_item]

    def method(self) -> str:
        return "METEOR"

    def _line_stats(self, hypothesis_str: str, reference_list: list[str]):
        """The Meteor statistics of one item, its ``SCORE`` line read as the jar reads it."""
        from kcca.captions._meteor_engine import split_score_line

        self._loading.join()
        refs, hyp = split_score_line(score_line(reference_list, hypothesis_str))
        return self._sentences._python_engine().score_lines([refs], [hyp])

    def _stat(self, hypothesis_str: str, reference_list: list[str]) -> str:
        """The jar's statistics line of one item (its answer to a ``SCORE`` line)."""
        from kcca.captions._meteor_engine.stats import statistics_line

        return statistics_line(self._line_stats(hypothesis_str, reference_list)[2][0])

    def _score(self, hypothesis_str: str, reference_list: list[str]) -> float:
        """METEOR of one item (the jar's answer to ``EVAL`` of its statistics)."""
        return float(self._line_stats(hypothesis_str, reference_list)[0])
