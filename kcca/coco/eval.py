"""pycocoevalcap's ``COCOEvalCap``: the COCO caption evaluation of a result set (Chen et al.
2015, Section 3), BLEU-1..4, METEOR, ROUGE-L and CIDEr-D, without Java."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any, Hashable

from kcca.coco.bleu.bleu import Bleu
from kcca.coco.cider.cider import Cider
from kcca.coco.meteor.meteor import Meteor
from kcca.coco.rouge.rouge import Rouge
from kcca.coco.tokenizer.ptbtokenizer import PTBTokenizer

SPICE_LEFT_OUT = (
    "SPICE is left out: it needs Java and the Stanford CoreNLP models (compute it with "
    "pycocoevalcap's Spice); every other metric is computed"
)


class _Annotations:
    """The two things COCOEvalCap reads of a ``COCO`` object: ``getImgIds()`` and
    ``imgToAnns``, from a pycocotools ``COCO`` object or a plain dict."""

    def __init__(self, source: Any, what: str):
        if hasattr(source, "imgToAnns") and hasattr(source, "getImgIds"):
            self.img_ids = list(source.getImgIds())
            self.imgToAnns = source.imgToAnns
            return
        self.img_ids, self.imgToAnns = _from_plain(source, what)

    def getImgIds(self) -> list[Hashable]:  # pycocotools' name
        return list(self.img_ids)


def _from_plain(source: Any, what: str) -> tuple[list[Hashable], dict[Hashable, list[dict]]]:
    """Image ids and their annotations from a COCO annotation dict (``{"images": [...],
    "annotations": [...]}``), a list of ``{"image_id", "caption"}``, or a dict image id ->
    caption(s) (strings or ``{"caption": ...}`` dicts)."""
    from kcca.coco._compat import CocoInputError

    anns: dict[Hashable, list[dict]] = {}
    ids: list[Hashable] = []
    if isinstance(source, Mapping) and "annotations" in source:
        ids = [img["id"] for img in source.get("images", [])]
        entries = source["annotations"]
    elif isinstance(source, list):
        entries = source
    elif isinstance(source, Mapping):
        for iid, caps in source.items():
            caps = [caps] if isinstance(caps, (str, Mapping)) else caps
            anns[iid] = [
                dict(c, image_id=iid) if isinstance(c, Mapping) else {"image_id": iid, "caption": c}
                for c in caps
            ]
        return list(anns), anns
    else:
        raise CocoInputError(
            f"{what} must be a pycocotools COCO object, a COCO annotation dict, a list of "
            f"{{'image_id', 'caption'}} or a dict image id -> captions, not "
            f"{type(source).__name__}"
        )
    for n, ann in enumerate(entries):
        if not isinstance(ann, Mapping) or "image_id" not in ann or "caption" not in ann:
            raise CocoInputError(f"{what}: annotation {n} needs an 'image_id' and a 'caption'")
        anns.setdefault(ann["image_id"], []).append(dict(ann))
    seen = set(ids)
    ids += [i for i in anns if i not in seen]
    return ids, anns


class COCOEvalCap:
    """``COCOEvalCap(coco, cocoRes)``; ``evaluate()`` fills ``eval`` (metric -> corpus score),
    ``imgToEval`` and ``evalImgs`` (per image) exactly as pycocoevalcap does, SPICE left out
    with a warning. ``params["image_id"]`` selects the images (default: all of ``coco``).

    A drop-in for pycocoevalcap's ``pycocoevalcap.eval.COCOEvalCap`` (see its documentation
    for the interface).

    Parameters
    ----------
    coco, cocoRes : pycocotools COCO, dict or list
        The references and the results: pycocotools ``COCO`` objects
        (``coco.loadRes(file)`` for the results) or plain data: a COCO annotation dict, a
        list of ``{"image_id", "caption"}``, or a dict image id -> caption(s).
    meteor_engine : {"python", "java"}, default="python"
        METEOR's engine (``"python"``: no Java).

    Attributes
    ----------
    eval : dict
        Metric (``"Bleu_1"`` ... ``"CIDEr"``) -> corpus score, after :meth:`evaluate`.
    imgToEval : dict
        Image id -> ``{"image_id": id, metric: score, ...}``.
    evalImgs : list of dict
        The values of ``imgToEval``, in the images' order.
    params : dict
        ``{"image_id": [ids evaluated]}``.

    Examples
    --------
    The evaluation runs METEOR, whose resources take seconds to load, so it is skipped here:

    >>> from kcca.coco.eval import COCOEvalCap
    >>> coco = {1: ["A dog runs on the grass.", "A brown dog is running."]}
    >>> evaluation = COCOEvalCap(coco, [{"image_id": 1, "caption": "A dog runs."}])
    >>> evaluation.params
    {'image_id': [1]}
    >>> evaluation.evaluate()  # doctest: +SKIP
    tokenization...
    ...
    >>> sorted(evaluation.eval)  # doctest: +SKIP
    ['Bleu_1', 'Bleu_2', 'Bleu_3', 'Bleu_4', 'CIDEr', 'METEOR', 'ROUGE_L']
    """

    def __init__(self, coco: Any, cocoRes: Any, meteor_engine: str = "python"):
        self.evalImgs: list[dict] = []
        self.eval: dict[str, Any] = {}
        self.imgToEval: dict[Hashable, dict] = {}
        self.coco: Any = coco if hasattr(coco, "imgToAnns") else _Annotations(coco, "coco")
        self.cocoRes: Any = (
            cocoRes if hasattr(cocoRes, "imgToAnns") else _Annotations(cocoRes, "cocoRes")
        )
        self.params = {"image_id": self.coco.getImgIds()}
        self.meteor_engine = meteor_engine

    def evaluate(self) -> None:
        img_ids = self.params["image_id"]
        gts = {i: self.coco.imgToAnns.get(i, []) for i in img_ids}
        res = {i: self.cocoRes.imgToAnns.get(i, []) for i in img_ids}
        print("tokenization...")
        tokenizer = PTBTokenizer()
        gts = tokenizer.tokenize(gts)
        res = tokenizer.tokenize(res)
        print("setting up scorers...")
        scorers: list[tuple[Any, Any]] = [
            (Bleu(4), ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4"]),
            (Meteor(engine=self.meteor_engine), "METEOR"),
            (Rouge(), "ROUGE_L"),
            (Cider(), "CIDEr"),
        ]
        for scorer, method in scorers:
            print(f"computing {scorer.method()} score...")
            score, scores = scorer.compute_score(gts, res)
            if isinstance(method, list):
                for sc, scs, m in zip(score, scores, method):
                    self.setEval(sc, m)
                    self.setImgToEvalImgs(scs, gts.keys(), m)
                    print("%s: %0.3f" % (m, sc))
            else:
                self.setEval(score, method)
                self.setImgToEvalImgs(scores, gts.keys(), method)
                print("%s: %0.3f" % (method, score))
        warnings.warn(SPICE_LEFT_OUT, stacklevel=2)
        self.setEvalImgs()

    def setEval(self, score: Any, method: str) -> None:  # pycocoevalcap's names
        self.eval[method] = score

    def setImgToEvalImgs(self, scores, imgIds, method: str) -> None:
        for img_id, score in zip(imgIds, scores):
            if img_id not in self.imgToEval:
                self.imgToEval[img_id] = {"image_id": img_id}
            self.imgToEval[img_id][method] = score

    def setEvalImgs(self) -> None:
        self.evalImgs = [ev for _, ev in self.imgToEval.items()]
