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
an ``AssertionError`` too. SPICE needs Java and the Stanford CoreNLP models:
:class:`kcca.coco.spice.spice.Spice` raises :class:`SpiceUnavailable`, and
:meth:`COCOEvalCap.evaluate` computes every other metric and warns that SPICE is left out.

``kcca score-captions`` and :func:`kcca.captions.evaluate_captions` are the stricter front
ends of the same scorers (empty captions are an error there unless allowed).
"""

from kcca.coco._compat import CocoInputError, SpiceUnavailable

__all__ = ["CocoInputError", "SpiceUnavailable"]
