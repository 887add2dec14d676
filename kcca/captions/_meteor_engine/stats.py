"""Meteor's sufficient statistics, the score computed from them, and the corpus aggregate.

A segment's statistics are the 23 numbers the jar prints for a ``SCORE`` line
(``MeteorStats.toString``): hypothesis and reference lengths, their function-word counts,
for each of the four stages the matched content and function words of both sides, the number
of chunks and the matched words of both sides. :func:`score` is ``MeteorScorer.computeMetrics``
(formula in :mod:`kcca.captions._meteor_engine.params`) with Java's floating-point semantics: a
division by zero gives an infinity or NaN, and a NaN score is 0. :func:`aggregate` is the
jar's ``EVAL`` line (``MeteorStats.addStats``): statistics are summed over segments before
the score is computed (Chen et al. 2015, Section 3.5: the corpus METEOR is not a mean of
segment scores), and a segment matched perfectly in one chunk adds no chunk.
"""

from __future__ import annotations

import math
from typing import Iterable, NamedTuple, Sequence

from kcca.captions._meteor_engine.params import ALPHA, BETA, DELTA, GAMMA, MODULE_WEIGHTS

N_MODULES = 4


class Stats(NamedTuple):
    """``MeteorStats``. The jar keeps these counts as doubles; they are whole numbers far
    below 2**53, so Python ints (exact) give the same arithmetic in :func:`score`."""

    test_length: float
    reference_length: float
    test_function_words: float
    reference_function_words: float
    #: per stage: (test content, reference content, test function, reference function)
    stage_matches: tuple[tuple[float, ...], ...]  # four values each
    chunks: float
    test_word_matches: float
    reference_word_matches: float

    def _total(self, content: int, function: int) -> float:
        """Matches of one side over the stages, summed in the jar's order (content, then
        function words, stage by stage: float sums depend on the order)."""
        t = 0.0
        for stage in self.stage_matches:
            t += stage[content]
            t += stage[function]
        return t

    @property
    def test_total_matches(self) -> float:
        return self._total(0, 2)

    @property
    def reference_total_matches(self) -> float:
        return self._total(1, 3)

    def is_perfect(self) -> bool:
        """Every word of both sides matched, in one chunk (no fragmentation)."""
        return (
            self.chunks == 1
            and self.test_total_matches == self.test_length
            and self.reference_total_matches == self.reference_length
        )

    def as_line(self) -> str:
        """The jar's ``SCORE`` output line (``MeteorStats.toString``)."""
        values = [
            self.test_length,
            self.reference_length,
            self.test_function_words,
            self.reference_function_words,
        ]
        for quad in self.stage_matches:
            values.extend(quad)
        values += [self.chunks, self.test_word_matches, self.reference_word_matches]
        return " ".join(repr(float(v)) for v in values)

    @classmethod
    def from_line(cls, line: str) -> "Stats":
        v = [float(x) for x in line.split()]
        stages = tuple(tuple(v[4 + 4 * i : 8 + 4 * i]) for i in range(N_MODULES))
        return cls(v[0], v[1], v[2], v[3], stages, v[20], v[21], v[22])


def _div(a: float, b: float) -> float:
    """Java's ``a / b`` on doubles (no exception on a zero divisor)."""
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def score(
    s: Stats,
    weights: Sequence[float] = MODULE_WEIGHTS,
    alpha: float = ALPHA,
    beta: float = BETA,
    gamma: float = GAMMA,
    delta: float = DELTA,
) -> float:
    """``MeteorScorer.computeMetrics``: the METEOR score of (segment or summed) statistics."""
    test_wlen = (delta * (s.test_length - s.test_function_words)) + (
        (1.0 - delta) * s.test_function_words
    )
    ref_wlen = (delta * (s.reference_length - s.reference_function_words)) + (
        (1.0 - delta) * s.reference_function_words
    )
    # the jar's order of additions: content words of every stage, then function words
    test_w = ref_w = 0.0
    stages = s.stage_matches
    for i, w in enumerate(weights):
        test_w += stages[i][0] * w * delta
    for i, w in enumerate(weights):
        ref_w += stages[i][1] * w * delta
    for i, w in enumerate(weights):
        test_w += stages[i][2] * w * (1.0 - delta)
    for i, w in enumerate(weights):
        ref_w += stages[i][3] * w * (1.0 - delta)
    precision = _div(test_w, test_wlen)
    recall = _div(ref_w, ref_wlen)
    fmean = _div(1.0, _div(1.0 - alpha, precision) + _div(alpha, recall))
    if s.is_perfect():
        frag = 0.0
    else:
        frag = _div(s.chunks, (s.test_word_matches + s.reference_word_matches) / 2)
    penalty = gamma * (math.nan if math.isnan(frag) else math.pow(frag, beta))
    value = fmean * (1.0 - penalty)
    if math.isnan(value):
        return 0.0
    return max(value, 0.0) + 0.0  # + 0.0: Math.max(-0.0, 0.0) is 0.0


def aggregate(stats: Iterable[Stats]) -> Stats:
    """``MeteorStats.addStats`` over segments (the jar's ``EVAL`` line)."""
    tl = rl = tf = rf = ch = tw = rw = 0.0
    stages = [[0.0, 0.0, 0.0, 0.0] for _ in range(N_MODULES)]
    for s in stats:
        tl += s.test_length
        rl += s.reference_length
        tf += s.test_function_words
        rf += s.reference_function_words
        for acc, quad in zip(stages, s.stage_matches):
            for k in range(4):
                acc[k] += quad[k]
        if not s.is_perfect():
            ch += s.chunks
        tw += s.test_word_matches
        rw += s.reference_word_matches
    return Stats(tl, rl, tf, rf, tuple(tuple(q) for q in stages), ch, tw, rw)
