"""Meteor's sufficient statistics and their corpus aggregate.

A segment's statistics are the 23 numbers the jar prints for a ``SCORE`` line
(``MeteorStats.toString``), kept as one ``int64`` row in the jar's order
(:data:`STATISTICS`): hypothesis and reference lengths, their function-word counts, for each
of the four stages the matched content and function words of both sides, the number of
chunks and the matched words of both sides. The jar keeps them as doubles; they are whole
numbers far below 2**53, so integer sums are its double sums exactly.

The score of a row is ``MeteorScorer.computeMetrics``, compiled in :func:`.kernel.score`
(:func:`.engine.corpus_score` scores a corpus). :func:`corpus_statistics` is the jar's ``EVAL``
line (``MeteorStats.addStats``): statistics are summed over segments before the score is
computed (Chen et al. 2015, Section 3.5: the corpus METEOR is not a mean of segment scores),
and a segment matched perfectly in one chunk adds no chunk.
"""

from __future__ import annotations

import numpy as np

N_MODULES = 4
#: the statistics of a row, in the jar's order; per stage ``k`` (``0..3``, the order of
#: :data:`.params.MODULES`) four: hypothesis content, reference content, hypothesis
#: function, reference function words matched
STATISTICS = (
    ("test_length", "reference_length", "test_function_words", "reference_function_words")
    + tuple(
        f"stage{k}_{side}"
        for k in range(N_MODULES)
        for side in ("test_content", "reference_content", "test_function", "reference_function")
    )
    + ("chunks", "test_word_matches", "reference_word_matches")
)
N_STATS = len(STATISTICS)
#: columns of the hypothesis's and the reference's matched words (content and function words
#: of every stage)
_TEST_MATCHED = [4 + 4 * k + side for k in range(N_MODULES) for side in (0, 2)]
_REFERENCE_MATCHED = [4 + 4 * k + side for k in range(N_MODULES) for side in (1, 3)]
_CHUNKS = STATISTICS.index("chunks")


def statistics_line(row: np.ndarray) -> str:
    """The jar's ``SCORE`` output line of one row (``MeteorStats.toString``)."""
    return " ".join(repr(float(v)) for v in row)


def is_perfect(rows: np.ndarray) -> np.ndarray:
    """Per row: every word of both sides matched, in one chunk (no fragmentation)."""
    rows = np.asarray(rows, np.int64)
    return (
        (rows[:, _CHUNKS] == 1)
        & (rows[:, _TEST_MATCHED].sum(axis=1) == rows[:, 0])
        & (rows[:, _REFERENCE_MATCHED].sum(axis=1) == rows[:, 1])
    )


def corpus_statistics(rows: np.ndarray) -> np.ndarray:
    """``MeteorStats.addStats`` over the rows ``(n, 23)`` of the segments: their sum, the
    chunks of perfectly matched segments left out."""
    rows = np.asarray(rows, np.int64).reshape(-1, N_STATS)
    total = rows.sum(axis=0)
    total[_CHUNKS] = rows[~is_perfect(rows), _CHUNKS].sum()
    return total
