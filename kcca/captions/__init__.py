"""Caption evaluation: the COCO caption metrics in pure Python (METEOR included), human
agreement (Chen et al. 2015, "Microsoft COCO Captions: Data Collection and Evaluation Server").

Every metric is a :class:`~kcca.captions._scorer.CaptionScorer` with the pycocoevalcap-like
``compute_score(references, candidates) -> (corpus_score, per_item_scores)`` on tokenised
text; :func:`evaluate_captions` tokenises raw captions once (PTB-style, in batches, as the COCO
code) and runs several metrics, returning per-item arrays for paired significance tests.
:mod:`kcca.coco` offers the same metrics under pycocoevalcap's class names and module paths.

Registered metrics: ``bleu`` (BLEU-1..4), ``rouge_l`` (ROUGE-L), ``cider_d`` (CIDEr-D, the
COCO code's "CIDEr"), ``cider`` (plain CIDEr of Vedantam et al.), ``meteor`` (Meteor 1.5:
:mod:`kcca.captions._meteor_engine` in Python, or the jar through Java; the resources come from
pycocoevalcap).
"""

from kcca.captions._scorer import (
    CaptionInputError,
    CaptionScorer,
    EmptyCaptionError,
    validate_inputs,
)
from kcca.captions._bleu import Bleu, sentence_bleu
from kcca.captions._rouge import RougeL
from kcca.captions._cider import Cider, CiderD
from kcca.captions._meteor import Meteor, MeteorUnavailable, meteor_available
from kcca.captions._tokenizer import PTBTokenizer, tokenize, tokenize_captions
from kcca.captions._registry import available_scorers, register_scorer
from kcca.captions._evaluate import CaptionEvaluation, evaluate_captions

__all__ = [
    "Bleu",
    "CaptionEvaluation",
    "CaptionInputError",
    "CaptionScorer",
    "Cider",
    "CiderD",
    "EmptyCaptionError",
    "Meteor",
    "MeteorUnavailable",
    "PTBTokenizer",
    "RougeL",
    "available_scorers",
    "evaluate_captions",
    "meteor_available",
    "register_scorer",
    "sentence_bleu",
    "tokenize",
    "tokenize_captions",
    "validate_inputs",
]
