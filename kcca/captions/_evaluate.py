"""Score raw captions with several metrics at once (the COCOEvalCap pipeline, without Java).

:func:`evaluate_captions` checks the input, tokenises references and candidates once, as
pycocoevalcap does (:func:`kcca.captions._tokenizer.tokenize_batch`: all references as one
batch, all candidates as another, images in the references' order; or each caption on its
own), or takes them as already tokenised, and runs each requested scorer on the captions as
that metric reads them (:meth:`~kcca.captions._scorer.CaptionScorer.split`). The result keeps
the per-item scores of every metric in the candidates' order, for the paired tests of
:mod:`kcca._evaluate`.

A caption with no tokens after tokenisation (``""``, ``"..."``) is an error
(:class:`~kcca.captions._scorer.EmptyCaptionError`, listing them all) unless
``allow_empty=True``: then they are scored as pycocoevalcap scores them (an empty candidate
gets 0 from every metric; an empty reference stays one of its image's references) and listed
in :attr:`CaptionEvaluation.empty_candidate_ids` / ``empty_reference_ids``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Mapping, Sequence

import numpy as np

from kcca.captions._meteor import (
    CaptionTooLongError,
    MeteorUnavailable,
    check_caption_lengths,
    joined,
)
from kcca.captions._registry import get_scorer
from kcca.captions._scorer import (
    CaptionScorer,
    Candidates,
    EmptyCaptionError,
    References,
    split_tokens,
    token_tuples,
    unscored_reference_ids,
    validate_inputs,
)
from kcca.captions._tokenizer import tokenize as ptb_tokenize
from kcca.captions._tokenizer import OTHER_LINE_BREAKS, tokenize_batch
from kcca.errors import SettingError

#: How captions meet the tokeniser: ``"batch"`` as pycocoevalcap (all references of the scored
#: images one after another, then all candidates, images in the references' order, so that a
#: caption's last token can depend on the next caption), or ``"caption"``, each on its own.
TOKENIZER_CONTEXTS = ("batch", "caption")

#: The COCO metrics computed by default, in table order (METEOR, which needs pycocoevalcap's
#: resources and builds a paraphrase index on first use, is opted in by name).
DEFAULT_METRICS = ("bleu", "rouge_l", "cider_d", "cider")


@dataclass
class CaptionEvaluation:
    """Scores of one evaluation (what :func:`evaluate_captions` returns).

    Parameters
    ----------
    ids : list
        The scored image ids (the candidates' order).
    corpus : dict of str to float
        Metric label (``"BLEU-1"`` ... ``"CIDEr"``, ``"METEOR"``) -> corpus score.
    per_item : dict of str to ndarray
        Metric label -> per-item scores, shape ``(len(ids),)``.
    unscored_reference_ids : list
        Reference images without a candidate (not scored).
    unavailable : dict of str to str
        Metric name -> why it was not computed (e.g. METEOR without pycocoevalcap).
    tokenized : bool, default=True
        Whether the captions went through the PTB-style tokeniser.
    empty_candidate_ids : list
        Scored ids whose candidate has no tokens (``allow_empty``).
    empty_reference_ids : list of (id, int)
        ``(image id, reference index)`` of references with no tokens.
    tokenizer_context : {"batch", "caption"}, default="batch"
        See :data:`TOKENIZER_CONTEXTS`.
    line_break_candidate_ids, line_break_reference_ids : list
        Scored ids whose candidate holds a line break other than ``\\n``, and ``(image
        id, reference index)`` of such references: pycocoevalcap would shift the later
        captions of their batch onto the wrong images; here each caption keeps its own
        tokens.

    Examples
    --------
    >>> from kcca.captions import evaluate_captions
    >>> result = evaluate_captions({1: ["A dog runs on the grass."]},
    ...                            {1: "A dog runs on grass."}, metrics=["rouge_l"])
    >>> result.per_item_records()
    [{'image_id': 1, 'ROUGE-L': 0.8...}]
    """

    ids: list[Hashable]
    corpus: dict[str, float] = field(default_factory=dict)
    per_item: dict[str, np.ndarray] = field(default_factory=dict)
    unscored_reference_ids: list[Hashable] = field(default_factory=list)
    unavailable: dict[str, str] = field(default_factory=dict)
    tokenized: bool = True
    empty_candidate_ids: list[Hashable] = field(default_factory=list)
    empty_reference_ids: list[tuple[Hashable, int]] = field(default_factory=list)
    tokenizer_context: str = "batch"
    line_break_candidate_ids: list[Hashable] = field(default_factory=list)
    line_break_reference_ids: list[tuple[Hashable, int]] = field(default_factory=list)

    def table(self) -> str:
        """One line per metric: label and corpus score."""
        width = max((len(k) for k in self.corpus), default=6)
        lines = [f"{'metric':<{width}}  score"]
        lines += [f"{k:<{width}}  {v:.4f}" for k, v in self.corpus.items()]
        lines += [f"{k.upper():<{width}}  n/a ({why})" for k, why in self.unavailable.items()]
        return "\n".join(lines)

    def per_item_records(self) -> list[dict[str, Any]]:
        """``[{"image_id": id, label: score, ...}, ...]`` for JSON output."""
        return [
            {"image_id": i, **{k: float(v[n]) for k, v in self.per_item.items()}}
            for n, i in enumerate(self.ids)
        ]


def evaluate_captions(
    references: References,
    candidates: Candidates,
    metrics: Sequence[str] = DEFAULT_METRICS,
    tokenize: bool = True,
    metric_params: Mapping[str, Mapping[str, Any]] | None = None,
    skip_unavailable: bool = True,
    allow_empty: bool = False,
    tokenizer_context: str = "batch",
) -> CaptionEvaluation:
    """Score ``candidates`` against ``references`` with every metric in ``metrics``.

    Parameters
    ----------
    references : mapping of id to sequence of str
        Image id -> reference captions (raw text, or tokenised if ``tokenize`` is False).
    candidates : mapping of id to str or sequence of str
        Image id -> one caption (a string or a one-element list).
    metrics : sequence of str, default=DEFAULT_METRICS
        Registered scorer names (``bleu``, ``rouge_l``, ``cider_d``, ``cider``, ``meteor``);
        by default all but METEOR.
    tokenize : bool, default=True
        Apply the PTB-style tokeniser (the COCO pipeline) first.
    metric_params : mapping or None, default=None
        Per-metric constructor arguments, e.g. ``{"bleu": {"n": 4}}``.
    skip_unavailable : bool, default=True
        Record (instead of raising) a metric that cannot run here (METEOR without
        pycocoevalcap's resources).
    allow_empty : bool, default=False
        Score captions with no tokens (see the module docstring) instead of raising
        :class:`~kcca.captions._scorer.EmptyCaptionError`.
    tokenizer_context : {"batch", "caption"}, default="batch"
        ``"batch"``: pycocoevalcap's tokens; ``"caption"``: each caption's tokens on its
        own; see :data:`TOKENIZER_CONTEXTS`.

    Returns
    -------
    CaptionEvaluation
        Corpus and per-item scores of every metric, in the candidates' order.

    Examples
    --------
    >>> from kcca.captions import evaluate_captions
    >>> references = {1: ["A dog runs on the grass.", "A brown dog is running."],
    ...               2: ["A red car on a road.", "A car drives down the street."]}
    >>> candidates = {1: "A brown dog runs on the grass.", 2: "A red car on the street."}
    >>> result = evaluate_captions(references, candidates)
    >>> print(result.table())
    metric   score
    BLEU-1   1.0000
    BLEU-2   0.9535
    BLEU-3   0.8463
    BLEU-4   0.7139
    ROUGE-L  0.8014
    CIDEr-D  4.2413
    CIDEr    4.3052
    >>> result.ids, result.per_item["ROUGE-L"].round(3)
    ([1, 2], array([0.936, 0.667]))
    """
    _check_tokenizer_context(tokenizer_context)
    ids, raw_refs, raw_cands = validate_inputs(references, candidates, allow_empty=allow_empty)
    scorers = [get_scorer(name, **dict((metric_params or {}).get(name, {}))) for name in metrics]
    loading = [_prepare_in_background(s) for s in scorers]
    refs, cands = raw_refs, raw_cands
    if tokenize:
        refs, cands = _tokenised(references, ids, raw_refs, raw_cands, tokenizer_context)
    views = _TokenViews(refs, cands)
    unscored = unscored_reference_ids(references, candidates)
    result = CaptionEvaluation(
        ids=ids,
        tokenized=tokenize,
        unscored_reference_ids=unscored,
        tokenizer_context=tokenizer_context,
    )
    _note_odd_captions(result, raw_refs, raw_cands, *views(split_tokens))
    if not allow_empty:
        _check_not_empty(result, dict(zip(ids, raw_cands)), dict(zip(ids, raw_refs)))
    for name, scorer, thread in zip(metrics, scorers, loading):
        _score_with(result, name, scorer, thread, views, skip_unavailable)
    return result


def _check_tokenizer_context(tokenizer_context: str) -> None:
    if tokenizer_context not in TOKENIZER_CONTEXTS:
        raise SettingError(
            f"unknown tokenizer_context {tokenizer_context!r}; use one of {TOKENIZER_CONTEXTS}"
        )


class _TokenViews:
    """The captions as each metric's ``split`` reads them, made once per way of reading."""

    def __init__(self, refs: Sequence, cands: Sequence) -> None:
        self.refs, self.cands = refs, cands
        self.views: dict[Callable, tuple] = {}

    def __call__(self, split: Callable[[str], Sequence[str]]) -> tuple:
        if split not in self.views:
            self.views[split] = token_tuples(split, self.refs, self.cands)
        return self.views[split]


def _note_odd_captions(
    result: CaptionEvaluation, raw_refs: Sequence, raw_cands: Sequence, ref_tokens, cand_tokens
) -> None:
    """Record the captions holding a line break other than ``\\n`` (when tokenised) and
    those without tokens."""
    ids = result.ids
    if result.tokenized:
        result.line_break_candidate_ids = [
            i for i, c in zip(ids, raw_cands) if OTHER_LINE_BREAKS.search(c)
        ]
        result.line_break_reference_ids = [
            (i, j)
            for i, rs in zip(ids, raw_refs)
            for j, r in enumerate(rs)
            if OTHER_LINE_BREAKS.search(r)
        ]
    result.empty_candidate_ids = [i for i, t in zip(ids, cand_tokens) if not t]
    result.empty_reference_ids = [
        (i, j) for i, rs in zip(ids, ref_tokens) for j, t in enumerate(rs) if not t
    ]


def _score_with(
    result: CaptionEvaluation,
    name: str,
    scorer: CaptionScorer,
    loading: threading.Thread | None,
    views: _TokenViews,
    skip_unavailable: bool,
) -> None:
    """Score with one metric once its resources are loaded; a METEOR without its resources
    is recorded as unavailable when ``skip_unavailable``."""
    if loading is not None:
        loading.join()
    try:
        corpus, per_item = scorer.score_tokens(*views(scorer.split))
    except CaptionTooLongError as exc:  # named by its image id, which only this caller knows
        check_caption_lengths(*joined(*views(scorer.split)), ids=result.ids)
        raise exc
    except MeteorUnavailable as exc:
        if not skip_unavailable:
            raise
        result.unavailable[name] = str(exc)
        return
    _record_scores(result, scorer, corpus, per_item)


def _record_scores(result: CaptionEvaluation, scorer: CaptionScorer, corpus, per_item) -> None:
    """A scorer's corpus and per-item scores under each of its labels (BLEU-1..4: four)."""
    per_item = np.atleast_2d(np.asarray(per_item, dtype=float))
    corpus_list = corpus if isinstance(corpus, (list, tuple, np.ndarray)) else [corpus]
    for label, c, p in zip(scorer.labels, corpus_list, per_item):
        result.corpus[label] = float(c)
        result.per_item[label] = p


def _prepare_in_background(scorer: CaptionScorer) -> threading.Thread | None:
    """A started thread running ``scorer.prepare()`` when the scorer has something to load
    (METEOR: its resources and compiled kernel, while the captions are tokenised and the
    other metrics run), else None. A fault is left to the scoring call, which meets it again
    and names it."""
    if type(scorer).prepare is CaptionScorer.prepare:
        return None

    def prepare() -> None:
        try:
            scorer.prepare()
        except Exception:  # the scoring call raises it with its message
            pass

    thread = threading.Thread(target=prepare, name=f"prepare-{scorer.name}", daemon=True)
    thread.start()
    return thread


def _tokenised(
    references: References,
    ids: Sequence[Hashable],
    refs: Sequence[Sequence[str]],
    cands: Sequence[str],
    context: str,
) -> tuple[list[list[str]], list[str]]:
    """The captions as space-joined PTB tokens (what pycocoevalcap's metrics receive)."""
    if context == "caption":
        return (
            [[" ".join(ptb_tokenize(r)) for r in rs] for rs in refs],
            [" ".join(ptb_tokenize(c)) for c in cands],
        )
    position = {i: n for n, i in enumerate(ids)}
    order = [position[i] for i in references if i in position]
    ref_tokens = iter(tokenize_batch([r for n in order for r in refs[n]]))
    cand_tokens = iter(tokenize_batch([cands[n] for n in order]))
    ref_out: list[list[str]] = [[] for _ in ids]
    cand_out: list[str] = [""] * len(ids)
    for n in order:
        ref_out[n] = [" ".join(next(ref_tokens)) for _ in refs[n]]
        cand_out[n] = " ".join(next(cand_tokens))
    return ref_out, cand_out


def _phrases(
    ids: Sequence[Any], text: Callable[[Any], str], what: Callable[[Any], str], shown: int
) -> str:
    out = [f"{what(k)} ({text(k)!r:.40})" for k in ids[:shown]]
    more = f", and {len(ids) - shown} more" if len(ids) > shown else ""
    return ", ".join(out) + more


def _check_not_empty(
    result: CaptionEvaluation,
    candidates: Mapping[Hashable, str],
    references: Mapping[Hashable, Sequence[str]],
    *,
    shown: int = 20,
) -> None:
    """Raise :class:`EmptyCaptionError` naming the empty captions of ``result`` (up to
    ``shown`` of each kind, with their raw text)."""
    cands, refs = result.empty_candidate_ids, result.empty_reference_ids
    if not cands and not refs:
        return
    after = " after tokenisation" if result.tokenized else ""
    parts = []
    if cands:
        parts.append(
            f"{len(cands)} candidate caption(s) have no words{after}: "
            + _phrases(cands, lambda i: candidates[i], lambda i: f"image id {i!r}", shown)
        )
    if refs:
        parts.append(
            f"{len(refs)} reference caption(s) have no words{after}: "
            + _phrases(
                refs,
                lambda k: references[k[0]][k[1]],
                lambda k: f"image id {k[0]!r} reference {k[1]}",
                shown,
            )
        )
    raise EmptyCaptionError("; ".join(parts), candidate_ids=cands, reference_ids=refs)
