"""pycocoevalcap 1.2's classes, same names and module paths, without Java.

A script written for pycocoevalcap (Chen et al. 2015, "Microsoft COCO Captions: Data
Collection and Evaluation Server", Section 3) switches by changing only its imports,
``pycocoevalcap`` -> ``kcca.coco``::

    from kcca.coco.eval import COCOEvalCap
    from kcca.coco.bleu.bleu import Bleu
    from kcca.coco.meteor.meteor import Meteor
    from kcca.coco.rouge.rouge import Rouge
    from kcca.coco.cider.cider import Cider          # CIDEr-D, as pycocoevalcap's "CIDEr"
    from kcca.coco.tokenizer.ptbtokenizer import PTBTokenizer

Each class keeps pycocoevalcap's signatures, return types (BLEU: lists; ROUGE-L and CIDEr-D:
numpy arrays), per-item order (that of ``gts``), ``method()`` names, printed lines and its
treatment of empty captions (an empty candidate scores 0); the numbers are pycocoevalcap's
(:mod:`kcca.captions` computes them, METEOR in Python unless ``Meteor(engine="java")``).
The input checks pycocoevalcap makes with ``assert`` raise :class:`CocoInputError`, which is
an ``AssertionError`` too; input on which pycocoevalcap fails with a ``TypeError``,
``KeyError`` or ``AttributeError`` (a caption list that is a string, an entry without
``'caption'``, a caption that is not a string, ...) raises :class:`CocoTypeError`,
:class:`CocoKeyError` or :class:`CocoAttributeError`, subclasses of :class:`CocoInputError`
and of that exception, naming the image id. A result image without references is refused.

SPICE needs Java and the Stanford CoreNLP models: where pycocoevalcap's SPICE can run
(:func:`kcca.coco.spice.spice.spice_missing`), :class:`kcca.coco.spice.spice.Spice` and
:meth:`COCOEvalCap.evaluate` run it, with pycocoevalcap's numbers. Where it cannot,
``Spice()`` raises :class:`SpiceUnavailable`, naming what is missing and the ways out
(install them, or leave SPICE out), and ``evaluate()`` computes every other metric, warns
once, and reading ``"SPICE"`` from its results raises :class:`SpiceNotComputed` (a
``KeyError``) with the same words; ``COCOEvalCap(..., spice=False)`` leaves SPICE out
without a warning.

``kcca score-captions`` and :func:`kcca.captions.evaluate_captions` are the stricter front
ends of the same scorers (empty captions are an error there unless allowed).
"""

from kcca.coco._compat import (
    CocoAttributeError,
    CocoInputError,
    CocoKeyError,
    CocoTypeError,
    SpiceNotComputed,
    SpiceUnavailable,
)

__all__ = [
    "CocoAttributeError",
    "CocoInputError",
    "CocoKeyError",
    "CocoTypeError",
    "SpiceNotComputed",
    "SpiceUnavailable",
]
