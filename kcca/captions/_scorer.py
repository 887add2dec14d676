"""One small scorer interface shared by every caption metric, input checks, and a registry.

The interface follows pycocoevalcap (Chen et al. 2015, Section 3): a scorer maps

    compute_score(references: dict[id, list[str]], candidates: dict[id, list[str] | str])
        -> (corpus_score, per_item_scores)

where every string is *already tokenised* text (tokens separated by spaces; use
:func:`kcca.captions._tokenizer.tokenize_captions` for raw text), read by each metric as
pycocoevalcap's reads it (:meth:`CaptionScorer.split`). ``per_item_scores`` follows
the order of ``candidates``: a ``numpy`` array of shape ``(n_items,)``, or ``(k, n_items)``
for scorers with several outputs (BLEU-1..4: row ``k`` is BLEU-(k+1), as pycocoevalcap's
list of lists). These per-item arrays are what the paired significance tests of
:mod:`kcca._evaluate` take.

A new metric is one module: subclass :class:`CaptionScorer`, implement
:meth:`CaptionScorer.score_tokens`, and call :func:`register_scorer`.

Input rules (errors are :class:`CaptionInputError`, a :class:`kcca.data._errors.DataError`,
and name the offending id): every candidate id must have references; every image must have
at least one reference; every caption must be a non-empty string (``allow_empty`` lets blank
ones through); a candidate is one string (or a list holding exactly one). Reference images
without a candidate are not scored (as in the COCO evaluation, which scores the images of the
result file); callers that want to report them can use :func:`unscored_reference_ids`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Callable, Hashable, Mapping, Sequence

import numpy as np

from kcca.data._errors import DataError

Tokens = Sequence[str]
References = Mapping[Hashable, Sequence[str]]
Candidates = Mapping[Hashable, "Sequence[str] | str"]


class CaptionInputError(DataError):
    """Bad caption input: unknown ids, images without references, empty or non-string text."""


class EmptyCaptionError(CaptionInputError):
    """Captions with no tokens left after tokenisation (``""``, ``"..."``): ``candidate_ids``
    are image ids, ``reference_ids`` ``(image id, reference index)`` pairs."""

    fix = (
        "give those captions words, or pass allow_empty=True (kcca score-captions "
        "--allow-empty) to score them as pycocoevalcap does: an empty candidate scores 0"
    )

    def __init__(
        self,
        message: str = "",
        *,
        candidate_ids: Sequence[Hashable] = (),
        reference_ids: Sequence[tuple[Hashable, int]] = (),
        fix: str | None = None,
    ):
        super().__init__(message, fix=fix)
        self.candidate_ids = list(candidate_ids)
        self.reference_ids = list(reference_ids)


def _check_text(text: Any, what: str, allow_empty: bool = False) -> str:
    if not isinstance(text, str):
        raise CaptionInputError(f"{what} is a {type(text).__name__}, not a string: {text!r:.80}")
    if not allow_empty and not text.strip():
        raise CaptionInputError(f"{what} is empty")
    return text


def validate_inputs(
    references: References, candidates: Candidates, *, allow_empty: bool = False
) -> tuple[list[Hashable], list[list[str]], list[str]]:
    """Check inputs and return ``(ids, reference texts per id, candidate text per id)``.

    ``ids`` are the candidate ids in the candidates' order. Raises
    :class:`CaptionInputError` naming the first offending id. ``allow_empty`` lets blank
    captions through (callers then name them, as :func:`~kcca.captions.evaluate_captions`).

    Parameters
    ----------
    references : mapping of id to sequence of str
        Image id -> reference captions.
    candidates : mapping of id to str or sequence of str
        Image id -> one caption (a string or a list holding exactly one).
    allow_empty : bool, default=False
        Let blank captions through.

    Returns
    -------
    ids : list
        The candidate ids, in the candidates' order.
    references : list of list of str
        Each id's reference captions.
    candidates : list of str
        Each id's candidate caption.

    Raises
    ------
    CaptionInputError
        Naming the first offending id (module docstring's input rules).

    Examples
    --------
    >>> from kcca.captions import validate_inputs
    >>> validate_inputs({7: ["a dog runs", "a brown dog"], 8: ["a red car"]}, {7: ["a dog"]})
    ([7], [['a dog runs', 'a brown dog']], ['a dog'])
    >>> validate_inputs({7: ["a dog runs"]}, {9: "a cat"})
    Traceback (most recent call last):
    ...
    kcca.captions._scorer.CaptionInputError: ...9...
    """
    if not isinstance(references, Mapping):
        raise CaptionInputError(
            f"references must be a dict id -> list of captions, not {type(references).__name__}"
        )
    if not isinstance(candidates, Mapping):
        raise CaptionInputError(
            f"candidates must be a dict id -> caption, not {type(candidates).__name__}"
        )
    if not candidates:
        raise CaptionInputError("no candidates to score")
    ids: list[Hashable] = []
    refs_out: list[list[str]] = []
    cands_out: list[str] = []
    for cid, cand in candidates.items():
        refs_out.append(_checked_references(references, cid, allow_empty))
        cands_out.append(_checked_candidate(cand, cid, allow_empty))
        ids.append(cid)
    return ids, refs_out, cands_out


def _checked_references(references: References, cid: Hashable, allow_empty: bool) -> list[str]:
    """The reference captions of candidate id ``cid`` (:class:`CaptionInputError` if none)."""
    if cid not in references:
        raise CaptionInputError(
            f"candidate for image id {cid!r} has no entry in the references "
            f"(unknown image id; references hold {len(references)} images)"
        )
    refs = references[cid]
    if isinstance(refs, str) or not isinstance(refs, Sequence):
        raise CaptionInputError(
            f"references of image id {cid!r} must be a list of strings, not {type(refs).__name__}"
        )
    if len(refs) == 0:
        raise CaptionInputError(f"image id {cid!r} has no reference captions")
    return [
        _check_text(r, f"reference caption {j} of image id {cid!r}", allow_empty)
        for j, r in enumerate(refs)
    ]


def _checked_candidate(cand: Any, cid: Hashable, allow_empty: bool) -> str:
    """The one candidate caption of ``cid`` (a string, or a list holding exactly one)."""
    if not isinstance(cand, str):
        if not isinstance(cand, Sequence) or len(cand) != 1:
            n = len(cand) if isinstance(cand, Sequence) else "?"
            raise CaptionInputError(
                f"candidate of image id {cid!r} must be one caption (a string or a list of "
                f"exactly one string), got {type(cand).__name__} of length {n}"
            )
        cand = cand[0]
    return _check_text(cand, f"candidate caption of image id {cid!r}", allow_empty)


def unscored_reference_ids(references: References, candidates: Candidates) -> list[Hashable]:
    """Reference image ids that have no candidate (they are not scored)."""
    return [i for i in references if i not in candidates]


def split_tokens(text: str) -> Tokens:
    """Whitespace tokens of already tokenised text (pycocoevalcap's BLEU and CIDEr:
    ``str.split()``, which also splits at U+00A0 and the other Unicode white space)."""
    return text.split()


def split_at_spaces(text: str) -> Tokens:
    """Tokens of already tokenised text split at the space character only (pycocoevalcap's
    ROUGE-L: ``str.split(" ")``; a token holding U+00A0, as the tokeniser makes of ``2 1/2``,
    stays one token, and an empty text is one empty token)."""
    return text.split(" ")


def token_tuples(
    split: Callable[[str], Tokens], references: Sequence[Sequence[str]], candidates: Sequence[str]
) -> tuple[tuple, tuple]:
    """``(references, candidates)`` as ``split`` reads them, tuples all the way down: immutable,
    so metrics that read them alike (BLEU, CIDEr) can share their n-gram counts."""
    return (
        tuple(tuple(tuple(split(r)) for r in rs) for rs in references),
        tuple(tuple(split(c)) for c in candidates),
    )


class CaptionScorer(ABC):
    """Base class of every caption metric.

    Subclasses set ``name`` (registry key and report name), ``labels`` (one label per output
    row, e.g. ``("BLEU-1", ..., "BLEU-4")``) and implement :meth:`score_tokens`; registered
    with :func:`~kcca.captions.register_scorer`, a metric is available to
    :func:`~kcca.captions.evaluate_captions` and ``kcca score-captions`` by name.

    Attributes
    ----------
    name : str
        Registry key and report name.
    labels : tuple of str
        One label per output row.
    params : dict
        The parameters that define the scorer (for reports and cache keys).

    Examples
    --------
    A metric scoring the fraction of candidate tokens found in some reference:

    >>> import numpy as np
    >>> from kcca.captions import CaptionScorer
    >>> class WordRecall(CaptionScorer):
    ...     name, labels = "word_recall", ("word-recall",)
    ...     def score_tokens(self, references, candidates):
    ...         seen = [set().union(*map(set, refs)) for refs in references]
    ...         scores = np.array([np.mean([t in s for t in c]) if c else 0.0
    ...                            for s, c in zip(seen, candidates)])
    ...         return float(scores.mean()), scores
    >>> WordRecall().compute_score({1: ["a dog runs"], 2: ["a red car"]},
    ...                            {1: "a dog sits", 2: "a red car"})
    (0.8333333333333333, array([0.66666667, 1.        ]))
    """

    name: str = ""
    labels: tuple[str, ...] = ()

    @staticmethod
    def split(text: str) -> Tokens:
        """The tokens this metric reads in a tokenised caption (space-joined tokens).

        pycocoevalcap's metrics disagree on this: BLEU and CIDEr split with ``str.split()``
        (the default here), ROUGE-L and METEOR at spaces only (:func:`split_at_spaces`), so a
        token the tokeniser joined with U+00A0 (``2\u00a01/2``) is two tokens to the former
        and one to the latter."""
        return split_tokens(text)

    def compute_score(
        self, references: References, candidates: Candidates
    ) -> tuple[float | list[float], np.ndarray]:
        """Score tokenised candidates against tokenised references (see module docstring)."""
        ids, refs, cands = validate_inputs(references, candidates)
        ref_tokens = [[self.split(r) for r in rs] for rs in refs]
        cand_tokens = [self.split(c) for c in cands]
        return self.score_tokens(ref_tokens, cand_tokens)

    @abstractmethod
    def score_tokens(
        self, references: Sequence[Sequence[Tokens]], candidates: Sequence[Tokens]
    ) -> tuple[float | list[float], np.ndarray]:
        """Score token lists: ``references[i]`` are the references of ``candidates[i]``.

        Inputs are assumed valid (``compute_score`` checks them); token lists may be empty
        (a caption made only of punctuation tokenises to nothing).
        """

    def prepare(self) -> None:
        """Load what the first score needs (files, compiled code) ahead of it; callers may
        run it in a background thread while they do other work. Nothing by default."""

    @property
    def params(self) -> dict[str, Any]:
        """Parameters that define the scorer (for reports and cache keys)."""
        return {}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}({args})"
