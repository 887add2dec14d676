"""pycocoevalcap's ``COCOEvalCap``: the COCO caption evaluation of a result set (Chen et al.
2015, Section 3), BLEU-1..4, METEOR, ROUGE-L and CIDEr-D without Java, and SPICE through
pycocoevalcap where it can run (:mod:`kcca.coco.spice.spice`).

The module's names are pycocoevalcap's ``eval`` module's: ``COCOEvalCap`` and the scorers it
imports (``from kcca.coco.eval import COCOEvalCap, Spice`` works as with pycocoevalcap)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any, Hashable

from kcca.coco._compat import (
    CocoInputError,
    CocoKeyError,
    CocoTypeError,
    SpiceNotComputed,
    SpiceUnavailable,
)
from kcca.coco.bleu.bleu import Bleu
from kcca.coco.cider.cider import Cider
from kcca.coco.meteor.meteor import Meteor
from kcca.coco.rouge.rouge import Rouge
from kcca.coco.spice.spice import Spice
from kcca.coco.tokenizer.ptbtokenizer import PTBTokenizer

__all__ = ["COCOEvalCap", "PTBTokenizer", "Bleu", "Meteor", "Rouge", "Cider", "Spice"]

#: the start of the warning :meth:`COCOEvalCap.evaluate` gives when SPICE cannot run
SPICE_LEFT_OUT = "SPICE is left out; every other metric is computed"


class _Scores(dict):
    """A dict of scores whose missing ``"SPICE"`` raises :class:`SpiceNotComputed` saying
    why SPICE was left out (a ``KeyError`` still); equal to, and serialised as, a dict."""

    def __init__(self, scores: Mapping, why: str):
        super().__init__(scores)
        self.why = why

    def __missing__(self, key: Any) -> Any:
        if key == "SPICE":
            raise SpiceNotComputed(f"'SPICE' was not computed: {self.why}")
        raise KeyError(key)

    def __reduce__(self):  # pickles and copies as the plain dict it holds
        return (dict, (dict(self),))


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


def _image_ids(images: Any, what: str) -> list[Hashable]:
    """The ``id`` of every entry of a COCO annotation dict's ``images`` list."""
    if not isinstance(images, list):
        raise CocoTypeError(f"{what}['images'] must be a list, not {type(images).__name__}")
    for n, img in enumerate(images):
        if not isinstance(img, Mapping) or "id" not in img:
            raise CocoKeyError(f"{what}: image {n} of 'images' needs an 'id': {img!r:.60}")
    return [img["id"] for img in images]


def _from_plain(source: Any, what: str) -> tuple[list[Hashable], dict[Hashable, list[dict]]]:
    """Image ids and their annotations from a COCO annotation dict (``{"images": [...],
    "annotations": [...]}``), a list of ``{"image_id", "caption"}``, or a dict image id ->
    caption(s) (strings or ``{"caption": ...}`` dicts)."""
    anns: dict[Hashable, list[dict]] = {}
    ids: list[Hashable] = []
    if isinstance(source, Mapping) and "annotations" in source:
        ids = _image_ids(source.get("images", []), what)
        entries = source["annotations"]
        if not isinstance(entries, list):
            raise CocoTypeError(
                f"{what}['annotations'] must be a list, not {type(entries).__name__}"
            )
    elif isinstance(source, list):
        entries = source
    elif isinstance(source, Mapping):
        for iid, caps in source.items():
            caps = [caps] if isinstance(caps, (str, Mapping)) else caps
            if not isinstance(caps, (list, tuple)):
                raise CocoTypeError(
                    f"{what}: image id {iid!r} has {type(caps).__name__} {caps!r:.60}, not "
                    "a caption or a list of captions"
                )
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
            raise CocoKeyError(f"{what}: annotation {n} needs an 'image_id' and a 'caption'")
        if not isinstance(ann["image_id"], Hashable):
            raise CocoTypeError(
                f"{what}: annotation {n} has an image_id that is a "
                f"{type(ann['image_id']).__name__}: {ann['image_id']!r:.60}"
            )
        anns.setdefault(ann["image_id"], []).append(dict(ann))
    seen = set(ids)
    ids += [i for i in anns if i not in seen]
    return ids, anns


def _check_results_have_references(coco: Any, cocoRes: Any) -> None:
    """Refuse result images that ``coco`` has no references for (pycocotools' ``loadRes``
    asserts the same: "Results do not correspond to current coco set")."""
    known = set(coco.getImgIds())
    extra = [i for i in cocoRes.getImgIds() if i not in known]
    if extra:
        raise CocoInputError(
            f"cocoRes has captions of {len(extra)} image(s) that coco has no references "
            f"for: image id(s) {extra[:5]}",
            fix="give coco the references of those images, or leave them out of the "
            "results (pycocotools' loadRes refuses them too)",
        )


class COCOEvalCap:
    """``COCOEvalCap(coco, cocoRes)``; ``evaluate()`` fills ``eval`` (metric -> corpus score),
    ``imgToEval`` and ``evalImgs`` (per image) exactly as pycocoevalcap does.
    ``params["image_id"]`` selects the images (default: all of ``coco``).

    A drop-in for pycocoevalcap's ``pycocoevalcap.eval.COCOEvalCap`` (see its documentation
    for the interface). SPICE runs through pycocoevalcap's ``Spice`` where it can run
    (pycocoevalcap, Java on the PATH and its Stanford CoreNLP models:
    :func:`kcca.coco.spice.spice.spice_missing`). Where it cannot, ``evaluate()`` warns once
    that SPICE is left out (the warning names what is missing and the ways out), computes
    every other metric, and reading ``"SPICE"`` from ``eval`` or an entry of ``imgToEval``
    raises :class:`~kcca.coco.SpiceNotComputed` (a ``KeyError``) with the same words.
    ``spice=False`` leaves SPICE out without a warning; ``spice=True`` makes it required
    (``evaluate()`` raises :class:`~kcca.coco.SpiceUnavailable` where it cannot run).

    Parameters
    ----------
    coco, cocoRes : pycocotools COCO, dict or list
        The references and the results: pycocotools ``COCO`` objects
        (``coco.loadRes(file)`` for the results) or plain data: a COCO annotation dict, a
        list of ``{"image_id", "caption"}``, or a dict image id -> caption(s). Every image
        of ``cocoRes`` must have references in ``coco`` (pycocotools' ``loadRes`` asserts
        it too), else :class:`~kcca.coco.CocoInputError` names the images.
    meteor_engine : {"python", "java"}, default="python"
        METEOR's engine (``"python"``: no Java).
    spice : bool or None, default=None
        SPICE: ``None`` where it can run (else left out with a warning), ``True`` always
        (an error where it cannot run), ``False`` never.

    Attributes
    ----------
    eval : dict
        Metric (``"Bleu_1"`` ... ``"CIDEr"``, ``"SPICE"``) -> corpus score, after
        :meth:`evaluate`.
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

    def __init__(
        self, coco: Any, cocoRes: Any, meteor_engine: str = "python", spice: bool | None = None
    ):
        self.evalImgs: list[dict] = []
        self.eval: dict[str, Any] = {}
        self.imgToEval: dict[Hashable, dict] = {}
        self.coco: Any = coco if hasattr(coco, "imgToAnns") else _Annotations(coco, "coco")
        self.cocoRes: Any = (
            cocoRes if hasattr(cocoRes, "imgToAnns") else _Annotations(cocoRes, "cocoRes")
        )
        self.params = {"image_id": self.coco.getImgIds()}
        self.meteor_engine = meteor_engine
        self.spice = spice
        _check_results_have_references(self.coco, self.cocoRes)

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
        spice, left_out = self._spice_scorer()
        if spice is not None:
            scorers.append((spice, "SPICE"))
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
        if left_out is not None:
            self.eval = _Scores(self.eval, left_out)
            self.imgToEval = {i: _Scores(ev, left_out) for i, ev in self.imgToEval.items()}
        self.setEvalImgs()

    def _spice_scorer(self) -> tuple[Any, str | None]:
        """``(Spice(), None)`` where SPICE runs, else ``(None, why it was left out)`` (and
        the warning, unless ``spice=False``)."""
        if self.spice is False:
            return None, "SPICE was left out (COCOEvalCap(..., spice=False))"
        try:
            return Spice(), None
        except SpiceUnavailable as exc:
            if self.spice:
                raise
            warnings.warn(f"{SPICE_LEFT_OUT}: {exc}", stacklevel=3)
            return None, str(exc)

    def setEval(self, score: Any, method: str) -> None:  # pycocoevalcap's names
        self.eval[method] = score

    def setImgToEvalImgs(self, scores, imgIds, method: str) -> None:
        for img_id, score in zip(imgIds, scores):
            if img_id not in self.imgToEval:
                self.imgToEval[img_id] = {"image_id": img_id}
            self.imgToEval[img_id][method] = score

    def setEvalImgs(self) -> None:
        self.evalImgs = [ev for _, ev in self.imgToEval.items()]
