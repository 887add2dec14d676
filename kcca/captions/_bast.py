"""BAST: Bag of Aggregated Semantic Tuples (Ellebracht et al. 2015, Sections 2-3).

From the semantic tuples (STs) of an image's captions, BAST builds seven *union* sets
(Figure 2; Section 3, steps 1-3):

* single arguments: participants ``PA`` (agents and patients together), predicates ``PR``,
  locatives ``LO`` (locative heads; the preposition is not part of the value, Figure 2);
* argument pairs: ``PA+PR``, ``PA+LO``, ``PR+LO``;
* the triplet ``PA+PR+LO``.

Rules, following the paper and the authors' MATLAB release (GitHub ``f00barin/semtuples``,
``GT_to_matrix.m``, ``toMatrixFormat.m``, ``evaluateSemanticTuples_matrixFormat.m``,
``getMeasures.m``), read to learn the rules, not copied:

* **Grounding** (Section 4): an argument value is the lower-cased lemma of its span; a
  multi-token span (positions ``N-M``) is the ``-``-joined lemmas of its tokens
  ("chasing-after" -> "chase-after"). Predicates are lemmatised as verbs, participants and
  locatives as nouns (:class:`LemmaGrounding`; any ``(text, role) -> value`` callable works).
* **Expansion**: an ST with several values in an argument stands for every combination: the
  release builds the cross product locatives x predicates x (agents + patients).
* **Nulls excluded**: a null argument contributes nothing; a pair or triplet is formed only
  from non-null members. A *tacit* predicate (``(['-'], ['TACIT'])``) has no span and hence no
  value: it is treated as null (the release leaves its predicate range empty).
* **Scoring** per image and component: ``P = |pred ∩ gold| / |pred|``, ``R = |pred ∩ gold| /
  |gold|``, F1 their harmonic mean, with the release's conventions: ``P = 1`` when there is no
  prediction, ``R = 1`` when there is no gold, ``F1 = 0`` when ``P + R = 0``.
* **Averaging**: the mean over the images whose gold tuple list is non-empty (the release's
  ``nonZero``); an image with gold tuples but an empty gold set for one component scores
  ``R = 1`` there.

Departure from the release (an apparent off-by-one): for pairs and triplets the MATLAB code
removes rows whose id equals ``n`` (the *last dictionary entry*) instead of ``n + 1`` (the
null id it uses for single arguments), so it keeps pairs with a null member and drops pairs
with the last-seen value. Here nulls are excluded and every real value is kept, which is what
the paper's Figure 2 shows. :func:`bast_sets` documents the definition used.

Figure 5 of the paper (F1 of the two systems, manual and automatic STs) is a bar chart with no
printed numbers; the text says predicates and locatives are "below 25%" F1 and participants
are the easiest, followed by locatives, then predicates.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Callable, Hashable, Iterable, Mapping, Sequence

import numpy as np

from kcca.captions._image_ids import matched_image_ids
from kcca.captions._flickr_st import SemanticTuple, Span
from kcca.data._errors import DataError

#: The seven components, in report order.
COMPONENTS = ("PA", "PR", "LO", "PA+PR", "PA+LO", "PR+LO", "PA+PR+LO")


class BastInputError(DataError):
    """Bad BAST input: unknown image ids, missing candidates, tuples of the wrong type."""


@dataclass(frozen=True)
class GroundedTuple:
    """An ST with grounded values; an empty tuple is a null (or tacit) argument."""

    predicates: tuple[str, ...] = ()
    participants: tuple[str, ...] = ()
    locatives: tuple[str, ...] = ()

    def rows(self) -> list[tuple[str | None, str | None, str | None]]:
        """The expanded ``(predicate, participant, locative)`` rows (``None`` = null)."""
        preds: list[str | None] = list(dict.fromkeys(self.predicates)) or [None]
        parts: list[str | None] = list(dict.fromkeys(self.participants)) or [None]
        locs: list[str | None] = list(dict.fromkeys(self.locatives)) or [None]
        return list(itertools.product(preds, parts, locs))


Grounding = Callable[[str, str], str]


class LemmaGrounding:
    """The paper's grounding function: lower-cased WordNet lemma of the span (Section 4).

    ``role`` is ``"predicate"`` (lemmatised as a verb) or ``"participant"`` / ``"locative"``
    (as a noun). A hyphen-joined multi-token span is lemmatised token by token when
    ``n_tokens`` > 1 (see :meth:`ground_span`).
    """

    _TAGS = {"predicate": "VERB", "participant": "NOUN", "locative": "NOUN"}

    def __init__(self, lemmatizer=None):
        if lemmatizer is None:
            from features.text._lemmatize import WordNetLemmatizer

            lemmatizer = WordNetLemmatizer()
        self.lemmatizer = lemmatizer

    def __call__(self, text: str, role: str) -> str:
        return self.lemmatizer.lemma(text.strip().lower(), self._TAGS[role])

    def ground_span(self, span: Span, role: str) -> str:
        parts = span.text.split("-")
        if span.n_tokens > 1 and len(parts) == span.n_tokens:
            return "-".join(self(p, role) for p in parts)
        return self(span.text, role)


def _ground_span(grounding: Grounding, span: Span, role: str) -> str:
    if hasattr(grounding, "ground_span"):
        return grounding.ground_span(span, role)
    return grounding(span.text, role)


def ground_tuple(st: SemanticTuple, grounding: Grounding) -> GroundedTuple:
    """Ground the spans of one ST (participants = agents then patients)."""
    preds = tuple(_ground_span(grounding, s, "predicate") for s in st.predicate)
    parts = tuple(_ground_span(grounding, s, "participant") for s in st.agents + st.patients)
    locs = tuple(_ground_span(grounding, s, "locative") for s in st.loc_heads)
    return GroundedTuple(preds, parts, locs)


@dataclass(frozen=True)
class BastSets:
    """The seven union sets of one image (or one caption)."""

    sets: Mapping[str, frozenset]

    def __getitem__(self, component: str) -> frozenset:
        return self.sets[component]


def bast_sets(tuples: Iterable[GroundedTuple]) -> BastSets:
    """Union BAST sets over grounded tuples (Section 3 steps 1-3; Figure 2).

    Every tuple is expanded into ``(predicate, participant, locative)`` rows; a component's
    element is taken from a row only when all of that component's members are non-null.
    Pair and triplet elements are ordered tuples ``(predicate, participant, locative)``
    restricted to the component's members (e.g. ``PA+LO`` -> ``(participant, locative)``).
    """
    out: dict[str, set] = {c: set() for c in COMPONENTS}
    for gt in tuples:
        if not isinstance(gt, GroundedTuple):
            raise BastInputError(f"expected GroundedTuple, got {type(gt).__name__}: {gt!r:.80}")
        for pr, pa, lo in gt.rows():
            if pa is not None:
                out["PA"].add(pa)
            if pr is not None:
                out["PR"].add(pr)
            if lo is not None:
                out["LO"].add(lo)
            if pa is not None and pr is not None:
                out["PA+PR"].add((pr, pa))
            if pa is not None and lo is not None:
                out["PA+LO"].add((pa, lo))
            if pr is not None and lo is not None:
                out["PR+LO"].add((pr, lo))
            if pr is not None and pa is not None and lo is not None:
                out["PA+PR+LO"].add((pr, pa, lo))
    return BastSets({c: frozenset(v) for c, v in out.items()})


def set_prf(predicted: frozenset | set, gold: frozenset | set) -> tuple[float, float, float]:
    """P, R, F1 of one set against another with the release's conventions (``getMeasures.m``).

    ``P = 1`` with no prediction, ``R = 1`` with no gold, ``F1 = 0`` when ``P + R = 0``.
    """
    n_correct = len(set(predicted) & set(gold))
    p = 1.0 if not predicted else n_correct / len(predicted)
    r = 1.0 if not gold else n_correct / len(gold)
    f = 0.0 if p + r == 0 else 2 * p * r / (p + r)
    return p, r, f


@dataclass
class BastResult:
    """Per-image and mean P, R, F1 for each component.

    ``precision[c]``, ``recall[c]``, ``f1[c]`` are arrays over ``image_ids`` (the scored images,
    in the candidates' order).
    """

    image_ids: list[Hashable]
    precision: dict[str, np.ndarray]
    recall: dict[str, np.ndarray]
    f1: dict[str, np.ndarray]
    skipped_empty_gold: list[Hashable] = field(default_factory=list)

    def mean(self, measure: str = "f1") -> dict[str, float]:
        table = {"precision": self.precision, "recall": self.recall, "f1": self.f1}[measure]
        return {c: float(np.mean(v)) if len(v) else float("nan") for c, v in table.items()}

    def table(self) -> list[tuple[str, float, float, float]]:
        p, r, f = self.mean("precision"), self.mean("recall"), self.mean("f1")
        return [(c, p[c], r[c], f[c]) for c in COMPONENTS]


def _as_grounded(items: Sequence, grounding: Grounding, where: str) -> list[GroundedTuple]:
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        raise BastInputError(f"{where} must be a list of tuples, not {type(items).__name__}")
    out = []
    for t in items:
        if isinstance(t, GroundedTuple):
            out.append(t)
        elif isinstance(t, SemanticTuple):
            out.append(ground_tuple(t, grounding))
        else:
            raise BastInputError(f"{where} holds a {type(t).__name__}, not a semantic tuple")
    return out


class BastScorer:
    """BAST F1 with the scorer interface of :mod:`kcca.captions._scorer`.

    ``references``: image id -> the gold STs of its captions (all captions together);
    ``candidates``: image id -> the STs of the generated caption. Tuples are
    :class:`~kcca.captions._flickr_st.SemanticTuple` (grounded with ``grounding``) or
    :class:`GroundedTuple`.

    Args:
        grounding: span -> value function; default :class:`LemmaGrounding` (built lazily).
        missing: what to do with a gold image that has no candidate entry: ``"error"``
            (default; nothing is dropped silently) or ``"empty"`` (score it as an empty
            prediction: ``P = 1``, ``R = 0`` unless its gold set is empty, as the release does
            for an image the system gave no tuples).
    """

    name = "bast"
    labels = COMPONENTS

    def __init__(self, grounding: Grounding | None = None, missing: str = "error"):
        if missing not in ("error", "empty"):
            raise ValueError(f"missing must be 'error' or 'empty', got {missing!r}")
        self.grounding = grounding
        self.missing = missing

    def _grounding(self) -> Grounding:
        if self.grounding is None:
            self.grounding = LemmaGrounding()
        return self.grounding

    def score(
        self, references: Mapping[Hashable, Sequence], candidates: Mapping[Hashable, Sequence]
    ) -> BastResult:
        """Per-image P/R/F1 of every component and the list of images left out (no gold)."""
        ids = matched_image_ids(
            references,
            candidates,
            BastInputError,
            not_mappings="references and candidates must be dicts image id -> tuples",
            unknown="candidate image id {id!r} has no gold tuples entry (unknown image id)",
            unscored=(
                "gold image id {id!r} has no candidate tuples entry "
                "(pass missing='empty' to score it as no prediction)"
                if self.missing == "error"
                else None
            ),
        )
        g = self._grounding()
        scored, skipped = [], []
        rows: dict[str, list[tuple[float, float, float]]] = {c: [] for c in COMPONENTS}
        for image_id in ids:
            gold_t = _as_grounded(references[image_id], g, f"gold tuples of image {image_id!r}")
            if not gold_t:
                skipped.append(image_id)
                continue
            pred_t = _as_grounded(
                candidates.get(image_id, []), g, f"candidate tuples of image {image_id!r}"
            )
            gs, ps = bast_sets(gold_t), bast_sets(pred_t)
            for c in COMPONENTS:
                rows[c].append(set_prf(ps[c], gs[c]))
            scored.append(image_id)
        if not scored:
            raise BastInputError("no image with gold tuples to score")
        arr = {c: np.asarray(v, dtype=float).reshape(-1, 3) for c, v in rows.items()}
        return BastResult(
            image_ids=scored,
            precision={c: a[:, 0] for c, a in arr.items()},
            recall={c: a[:, 1] for c, a in arr.items()},
            f1={c: a[:, 2] for c, a in arr.items()},
            skipped_empty_gold=skipped,
        )

    def compute_score(
        self, references: Mapping[Hashable, Sequence], candidates: Mapping[Hashable, Sequence]
    ) -> tuple[list[float], np.ndarray]:
        """``(mean F1 per component, per-image F1 of shape (7, n_images))``; rows = ``labels``.

        Images whose gold tuple list is empty are not scored (release rule); the column order
        is :attr:`BastResult.image_ids` of :meth:`score`.
        """
        res = self.score(references, candidates)
        per = np.vstack([res.f1[c] for c in COMPONENTS])
        return [float(v) for v in per.mean(axis=1)], per


def score_flickr_st(data, grounding: Grounding | None = None) -> dict[str, BastResult]:
    """Score each released system's manual tuples against the gold (paper Section 7.2)."""
    scorer = BastScorer(grounding=grounding, missing="empty")
    return {name: scorer.score(data.gold, tuples) for name, tuples in data.systems.items()}


def gold_counts(data, grounding: Grounding | None = None) -> dict[str, float]:
    """Mean size of each gold BAST set per image (a description of the gold)."""
    g = grounding or LemmaGrounding()
    sizes: dict[str, list[int]] = {c: [] for c in COMPONENTS}
    for ts in data.gold.values():
        s = bast_sets([ground_tuple(t, g) for t in ts])
        for c in COMPONENTS:
            sizes[c].append(len(s[c]))
    return {c: float(np.mean(v)) for c, v in sizes.items()}


#: What the paper says about Figure 5 (manual STs), for reports beside our numbers.
PAPER_FIGURE5_TEXT = (
    "Figure 5 is a bar chart without printed values. Text (Sec. 7.2): F1 for locatives and "
    "predicates 'quite modest, below 25%'; participants are the easiest, followed by locatives "
    "and predicates; automatic and manual STs order the two systems the same way except for "
    "locatives (small differences)."
)
