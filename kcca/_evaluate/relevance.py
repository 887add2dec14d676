"""Binary relevance from the crowdsourced judgments (Hodosh et al. 2013, Section 4.3.2).

A crowd pair (image, caption) carries integer yes / no votes (3 judges for most pairs, 4-6 for
1,050). A :class:`RelevanceRule` turns the votes into relevant / not relevant, exactly, from the
integers. Named presets (docs/paper-notes.md#crowd-relevance):

* ``paper``: fraction yes >= 1/2. This reproduces the paper's printed counts (2,031 pairs added
  to the 1,000 originals; 446 / 202 / 100 / 252 test captions with 1 / 2 / 3 / 4+ relevant
  images), although the text states ">= 0.66";
* ``two-thirds``: fraction yes >= 2/3, the rule the text states (Section 4.3.2);
* ``majority``: fraction yes > 1/2 (Section 4.3.3).

Original pairs are always relevant (21 were rejected by the crowd). Unjudged pairs count as not
relevant; :class:`RelevanceMatrix` keeps a ``judged`` mask so that every run can report the
fraction of its top-k pairs that were judged.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

import numpy as np

from kcca.data._corpus import Corpus, CrowdJudgment
from kcca.data._errors import DataError


@dataclass(frozen=True)
class RelevanceRule:
    """Relevant when ``yes / (yes + no) >= threshold`` (``> threshold`` when ``strict``)."""

    name: str
    threshold: Fraction
    strict: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.threshold <= 1:
            raise DataError(f"relevance threshold {self.threshold} is outside [0, 1]")

    def relevant(self, yes: np.ndarray | int, no: np.ndarray | int) -> np.ndarray | bool:
        """Apply the rule to integer vote counts (exact: no floating-point fraction)."""
        yes = np.asarray(yes, dtype=np.int64)
        no = np.asarray(no, dtype=np.int64)
        if np.any(yes < 0) or np.any(no < 0) or np.any(yes + no == 0):
            raise DataError("vote counts must be non-negative with at least one vote")
        lhs = yes * self.threshold.denominator
        rhs = (yes + no) * self.threshold.numerator
        out = lhs > rhs if self.strict else lhs >= rhs
        return out if out.ndim else bool(out)

    def describe(self) -> str:
        op = ">" if self.strict else ">="
        return f"{self.name}: fraction yes {op} {self.threshold}"


PRESETS: dict[str, RelevanceRule] = {
    "paper": RelevanceRule("paper", Fraction(1, 2)),
    "two-thirds": RelevanceRule("two-thirds", Fraction(2, 3)),
    "majority": RelevanceRule("majority", Fraction(1, 2), strict=True),
}


def get_rule(rule: str | RelevanceRule) -> RelevanceRule:
    """A preset by name (``paper``, ``two-thirds``, ``majority``) or a rule itself."""
    if isinstance(rule, RelevanceRule):
        return rule
    try:
        return PRESETS[rule]
    except KeyError:
        raise DataError(f"unknown relevance rule {rule!r}; presets: {sorted(PRESETS)}") from None


@dataclass(frozen=True)
class RelevanceMatrix:
    """Relevance over a pool: ``relevant[i, j]`` for image ``i`` and caption ``j`` of the pool.

    ``judged[i, j]`` is True for crowd-judged pairs and for the originals (always relevant).
    Annotation queries are the rows (images), search queries the columns (captions).
    """

    image_ids: tuple[str, ...]
    caption_ids: tuple[str, ...]
    relevant: np.ndarray
    judged: np.ndarray
    rule: RelevanceRule
    n_judged_pairs: int
    n_outside_pool: int

    def for_task(self, task: str) -> tuple[np.ndarray, np.ndarray]:
        """``(relevant, judged)`` with queries as rows: as is for annotation, transposed for
        search."""
        if task == "annotation":
            return self.relevant, self.judged
        if task == "search":
            return self.relevant.T, self.judged.T
        raise DataError(f"unknown task {task!r}: use 'annotation' or 'search'")

    @property
    def n_added(self) -> int:
        """Relevant pairs beyond the originals (paper rule: 2,031 on the Flickr 8K test pool)."""
        return int(self.relevant.sum() - np.trace(self.relevant))

    def count_histogram(self, task: str, top: int = 4) -> list[int]:
        """How many queries have 1, 2, ..., ``top``-or-more relevant items (Section 4.3.2)."""
        rel, _ = self.for_task(task)
        n = rel.sum(axis=1)
        return [int((n == k).sum()) for k in range(1, top)] + [int((n >= top).sum())]


def relevance_matrix(
    pool: list[tuple[str, str, str]],
    crowd: Mapping[tuple[str, str], CrowdJudgment],
    rule: str | RelevanceRule = "paper",
) -> RelevanceMatrix:
    """Build the pool's relevance matrix from crowd judgments under ``rule``.

    ``pool`` is ``Corpus.pool(split)``: image ``i`` and caption ``i`` form the original pair.
    Judged pairs whose image or caption is not in the pool are counted in ``n_outside_pool``
    (reported, not used): a judgment file may cover more than one pool.
    """
    rule = get_rule(rule)
    image_ids = tuple(p[0] for p in pool)
    caption_ids = tuple(p[1] for p in pool)
    img_index = {x: i for i, x in enumerate(image_ids)}
    cap_index = {x: j for j, x in enumerate(caption_ids)}
    n = len(pool)
    rows, cols, yes, no = [], [], [], []
    outside = 0
    c: Any  # a caption index here, the column indices below
    for (image_id, cid), j in crowd.items():
        i, c = img_index.get(image_id), cap_index.get(cid)
        if i is None or c is None:
            outside += 1
            continue
        rows.append(i)
        cols.append(c)
        yes.append(j.yes)
        no.append(j.no)
    relevant = np.zeros((n, len(caption_ids)), dtype=bool)
    judged = np.zeros_like(relevant)
    if rows:
        r, c = np.asarray(rows), np.asarray(cols)
        relevant[r, c] = rule.relevant(np.asarray(yes), np.asarray(no))
        judged[r, c] = True
    diag = np.arange(min(n, len(caption_ids)))
    relevant[diag, diag] = True
    judged[diag, diag] = True
    return RelevanceMatrix(image_ids, caption_ids, relevant, judged, rule, len(rows), outside)


def corpus_relevance(
    corpus: Corpus, split: str = "test", rule: str | RelevanceRule = "paper"
) -> RelevanceMatrix:
    """:func:`relevance_matrix` for ``corpus.pool(split)`` and the corpus's crowd judgments."""
    if corpus.crowd is None:
        raise DataError(f"corpus {corpus.name!r} was loaded without crowd judgments")
    return relevance_matrix(corpus.pool(split), corpus.crowd, rule)
