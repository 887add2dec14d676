"""Graded 'expert' judgments of the first caption (Section 4.2.1, Tables 1-2).

Three judges scored pairs on a 1-4 scale; a pair's score is their mean. Expert metrics are for
the annotation task and the top-ranked caption of each test image only. Thresholds are the
exact thirds of Table 1 (4, 11/3, 10/3, 3, 8/3, 7/3, 2), compared exactly with integer
arithmetic (the printed 3.66 / 3.33 / 2.66 / 2.33 stand for 11/3, 10/3, 8/3, 7/3).

The released file covers the pairs the paper's systems returned; a new system's top-1 pairs may
be unjudged. Unjudged pairs are NaN in the per-query scores, count as *below* every threshold
in the cumulative distribution (a lower bound), and are left out of the mean; coverage (judged
/ returned) is always reported with the numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping, Sequence

import numpy as np

from kcca.data._corpus import Corpus, ExpertJudgment
from kcca.data._errors import DataError
from kcca._evaluate.original import PerQuery

TABLE1_THRESHOLDS: tuple[Fraction, ...] = (
    Fraction(4),
    Fraction(11, 3),
    Fraction(10, 3),
    Fraction(3),
    Fraction(8, 3),
    Fraction(7, 3),
    Fraction(2),
)


def threshold_label(t: Fraction) -> str:
    """The paper's column heads: '=4.0', '>=3.66', ..., '>=2.0' (thirds truncated to 2 places)."""
    if t == 4:
        return "=4.0"
    if t.denominator == 1:
        return f">={float(t):.1f}"
    return f">={int(t * 100) / 100:.2f}"


@dataclass(frozen=True)
class ExpertMatrix:
    """Expert score sums over a pool: ``sums[i, j]`` (NaN when unjudged) and judge counts."""

    image_ids: tuple[str, ...]
    caption_ids: tuple[str, ...]
    sums: np.ndarray  # float, NaN where unjudged
    n_judges: np.ndarray  # int, 0 where unjudged
    n_outside_pool: int

    @property
    def judged(self) -> np.ndarray:
        return self.n_judges > 0

    @property
    def mean(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.sums / np.where(self.n_judges > 0, self.n_judges, np.nan)

    def at_least(self, threshold: Fraction) -> np.ndarray:
        """Boolean: judged and mean score >= threshold (exact); unjudged pairs are False."""
        t = Fraction(threshold)
        with np.errstate(invalid="ignore"):
            return self.judged & (self.sums * t.denominator >= self.n_judges * t.numerator)


def expert_matrix(
    pool: list[tuple[str, str, str]], expert: Mapping[tuple[str, str], ExpertJudgment]
) -> ExpertMatrix:
    """Place the expert judgments on the pool grid (image ``i`` x caption ``j``)."""
    image_ids = tuple(p[0] for p in pool)
    caption_ids = tuple(p[1] for p in pool)
    img_index = {x: i for i, x in enumerate(image_ids)}
    cap_index = {x: j for j, x in enumerate(caption_ids)}
    sums = np.full((len(image_ids), len(caption_ids)), np.nan)
    counts = np.zeros(sums.shape, dtype=np.int64)
    outside = 0
    for (image_id, cid), j in expert.items():
        i, c = img_index.get(image_id), cap_index.get(cid)
        if i is None or c is None:
            outside += 1
            continue
        sums[i, c] = sum(j.scores)
        counts[i, c] = len(j.scores)
    return ExpertMatrix(image_ids, caption_ids, sums, counts, outside)


def corpus_expert(corpus: Corpus, split: str = "test") -> ExpertMatrix:
    if corpus.expert is None:
        raise DataError(f"corpus {corpus.name!r} was loaded without expert judgments")
    return expert_matrix(corpus.pool(split), corpus.expert)


@dataclass(frozen=True)
class ExpertResult:
    """Per-query top-1 expert score (NaN unjudged), Table 1 cumulative values, Table 2 mean."""

    scores: np.ndarray
    cumulative: dict[str, PerQuery]
    mean: PerQuery
    coverage: float
    n_judged: int

    def as_dict(self) -> dict:
        return {
            "coverage": self.coverage,
            "n_judged": self.n_judged,
            "mean": self.mean.aggregate,
            "cumulative": {k: v.aggregate for k, v in self.cumulative.items()},
        }


def expert_metrics(
    top1: Sequence[int] | np.ndarray,
    experts: ExpertMatrix,
    thresholds: Sequence[Fraction] = TABLE1_THRESHOLDS,
) -> ExpertResult:
    """Expert metrics of the first caption returned per image (annotation).

    ``top1[i]`` is the pool index of the caption ranked first for image ``i``
    (``rankings[:, 0]``). Table 1: percentage of images whose first caption scores >= each
    threshold (unjudged = below). Table 2: mean score over the judged first captions.
    """
    t1 = np.asarray(top1)
    n_img, n_cap = experts.sums.shape
    if t1.shape != (n_img,) or not np.issubdtype(t1.dtype, np.integer):
        raise DataError(f"top1 must be {n_img} integer caption indices, got shape {t1.shape}")
    bad = np.flatnonzero((t1 < 0) | (t1 >= n_cap))
    if bad.size:
        raise DataError(
            f"query {int(bad[0])}: caption index {int(t1[bad[0]])} is outside 0..{n_cap - 1}"
        )
    rows = np.arange(n_img)
    scores = experts.mean[rows, t1]
    judged = ~np.isnan(scores)
    cumulative = {}
    for t in thresholds:
        hits = experts.at_least(t)[rows, t1].astype(float)
        cumulative[threshold_label(Fraction(t))] = PerQuery(
            f"expert {threshold_label(Fraction(t))}", hits, 100.0 * float(hits.mean())
        )
    mean = float(np.nanmean(scores)) if judged.any() else float("nan")
    return ExpertResult(
        scores,
        cumulative,
        PerQuery("expert mean", scores, mean),
        float(judged.mean()),
        int(judged.sum()),
    )
