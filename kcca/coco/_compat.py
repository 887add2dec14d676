"""What the pycocoevalcap-compatible scorers share: pycocoevalcap's input checks and order."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Hashable

import numpy as np

from kcca.captions._scorer import CaptionInputError, CaptionScorer, token_tuples


class CocoInputError(CaptionInputError, AssertionError):
    """Input pycocoevalcap refuses with a failed ``assert`` (different image ids in ``gts``
    and ``res``, a candidate list that is not one caption, an image without references);
    also an ``AssertionError``, so code written for pycocoevalcap catches it alike."""


class CocoTypeError(CocoInputError, TypeError):
    """Input of a wrong type where pycocoevalcap fails with a ``TypeError`` (a caption list
    that is a string or ``None``); also a ``TypeError``."""


class CocoKeyError(CocoInputError, KeyError):
    """A caption entry without its ``'caption'`` key, where pycocoevalcap fails with a
    ``KeyError``; also a ``KeyError``."""


class CocoAttributeError(CocoInputError, AttributeError):
    """Input that is not a dict, or a caption that is not a string, where pycocoevalcap fails
    with an ``AttributeError``; also an ``AttributeError``."""


class SpiceUnavailable(RuntimeError):
    """pycocoevalcap's SPICE cannot run here (it needs pycocoevalcap, Java and Stanford
    CoreNLP's models): the message names what is missing and the ways out."""


class SpiceNotComputed(SpiceUnavailable, KeyError):
    """``'SPICE'`` read from a result of :meth:`kcca.coco.eval.COCOEvalCap.evaluate` that left
    SPICE out; also a ``KeyError``, as reading a missing key of a dict is."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def ordered_inputs(
    gts: Mapping[Hashable, Sequence[str]], res: Mapping[Hashable, Sequence[str]]
) -> tuple[list[Hashable], list[tuple[str, ...]], list[str]]:
    """``(image ids in gts's order, references, candidates)``, checked as pycocoevalcap
    checks them (``gts.keys() == res.keys()``, one candidate a list, references a non-empty
    list of strings). Empty captions are allowed."""
    if not isinstance(gts, Mapping) or not isinstance(res, Mapping):
        raise CocoInputError("gts and res must be dicts: image id -> list of tokenised captions")
    if gts.keys() != res.keys():
        only_gts = [k for k in gts if k not in res][:3]
        only_res = [k for k in res if k not in gts][:3]
        raise CocoInputError(
            "gts and res must have the same image ids "
            f"(only in gts: {only_gts}; only in res: {only_res})"
        )
    ids = list(gts)
    refs: list[tuple[str, ...]] = []
    cands: list[str] = []
    for i in ids:
        hypo, ref = res[i], gts[i]
        if isinstance(hypo, list) and not hypo:
            raise CocoInputError(
                f"image id {i!r} has no candidate caption (res[{i!r}] is empty)",
                fix="score only the images of the result: with COCOEvalCap, set "
                "params['image_id'] = cocoRes.getImgIds() before evaluate()",
            )
        if not isinstance(hypo, list) or len(hypo) != 1:
            raise CocoInputError(f"res[{i!r}] must be a list holding one caption, not {hypo!r:.80}")
        if not isinstance(ref, list) or len(ref) == 0:
            raise CocoInputError(
                f"gts[{i!r}] must be a non-empty list of captions, not {ref!r:.80}"
            )
        for text in (*ref, hypo[0]):
            if not isinstance(text, str):
                raise CocoInputError(f"a caption of image id {i!r} is not a string: {text!r:.80}")
        refs.append(tuple(ref))  # immutable: the collector stops tracking it
        cands.append(hypo[0])
    return ids, refs, cands


#: The token tuples of the last inputs, per way of splitting: ``split -> (refs, cands,
#: ref tuples, cand tuples)``. COCOEvalCap hands the same dicts to every scorer; the same
#: tuple objects let BLEU and CIDEr-D count the n-grams once (``_ngrams.count_items``).
_LAST_TOKENS: dict[Callable, tuple] = {}


def tokens(
    split: Callable[[str], Sequence[str]], refs: Sequence[Sequence[str]], cands: list[str]
) -> tuple[tuple, tuple]:
    """``(reference token tuples, candidate token tuples)`` as ``split`` reads the captions,
    the same objects as last time when the captions are equal to last time's."""
    last = _LAST_TOKENS.get(split)
    if last is not None and last[0] == refs and last[1] == cands:
        return last[2], last[3]
    ref_tokens, cand_tokens = token_tuples(split, refs, cands)
    _LAST_TOKENS[split] = (refs, cands, ref_tokens, cand_tokens)
    return ref_tokens, cand_tokens


def score(scorer: CaptionScorer, gts: Mapping, res: Mapping) -> tuple[Any, np.ndarray]:
    """``scorer`` on pycocoevalcap-style dicts of tokenised captions, items in gts's order."""
    _, refs, cands = ordered_inputs(gts, res)
    return scorer.score_tokens(*tokens(scorer.split, refs, cands))
