"""What the pycocoevalcap-compatible scorers share: pycocoevalcap's input checks and order."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Hashable

import numpy as np

from kcca.captions.scorer import CaptionInputError, CaptionScorer


class CocoInputError(CaptionInputError, AssertionError):
    """Input pycocoevalcap refuses with a failed ``assert`` (different image ids in ``gts``
    and ``res``, a candidate list that is not one caption, an image without references);
    also an ``AssertionError``, so code written for pycocoevalcap catches it alike."""


class SpiceUnavailable(RuntimeError):
    """SPICE is not part of :mod:`kcca.coco`: it needs Java and Stanford CoreNLP's models."""


def ordered_inputs(
    gts: Mapping[Hashable, Sequence[str]], res: Mapping[Hashable, Sequence[str]]
) -> tuple[list[Hashable], list[list[str]], list[str]]:
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
    refs: list[list[str]] = []
    cands: list[str] = []
    for i in ids:
        hypo, ref = res[i], gts[i]
        if not isinstance(hypo, list) or len(hypo) != 1:
            raise CocoInputError(f"res[{i!r}] must be a list holding one caption, not {hypo!r:.80}")
        if not isinstance(ref, list) or len(ref) == 0:
            raise CocoInputError(
                f"gts[{i!r}] must be a non-empty list of captions, not {ref!r:.80}"
            )
        for text in (*ref, hypo[0]):
            if not isinstance(text, str):
                raise CocoInputError(f"a caption of image id {i!r} is not a string: {text!r:.80}")
        refs.append(list(ref))
        cands.append(hypo[0])
    return ids, refs, cands


def score(scorer: CaptionScorer, gts: Mapping, res: Mapping) -> tuple[Any, np.ndarray]:
    """``scorer`` on pycocoevalcap-style dicts of tokenised captions, items in gts's order."""
    _, refs, cands = ordered_inputs(gts, res)
    ref_tokens = [[scorer.split(r) for r in rs] for rs in refs]
    cand_tokens = [scorer.split(c) for c in cands]
    return scorer.score_tokens(ref_tokens, cand_tokens)
