"""Evaluation code of public captioning projects (tests/kcca/coco/scripts/, with their
licences), run twice on outside captions: as published, on pycocoevalcap 1.2 with Java, and
with only ``pycocoevalcap`` switched to ``kcca.coco`` in its text and Java hidden from the
PATH. Every number must agree (per-item BLEU within 1e-12, as the outside parity tests: one
ulp of ``np.exp`` against ``math.exp``; the rest exactly or within that). SPICE is stubbed the
same way on both sides (pycocoevalcap's needs the Stanford models, which are not here)."""

from __future__ import annotations

import gzip
import json
import math
import os
import runpy
from pathlib import Path

import numpy as np
import pytest


SCRIPTS = Path(__file__).parent / "scripts"
OUTSIDE = Path(__file__).parents[1] / "captions" / "data" / "coco_outside_captions.json.gz"
TOL = 1e-12

pytestmark = [pytest.mark.slow, pytest.mark.outside_parity]


def _sources() -> dict[str, list[dict]]:
    with gzip.open(OUTSIDE, "rt", encoding="utf-8") as f:
        return {s["name"]: s["items"] for s in json.load(f)["sources"]}


def _coco_files(folder: Path) -> tuple[Path, list[dict]]:
    """A COCO annotation file of pycocoevalcap's example model's images (real COCO val2014
    ids and references) in ``folder``, and that model's captions as results."""
    items = _sources()["coco_val2014_fakecap"]
    images = [{"id": it["id"]} for it in reversed(items)]
    anns = [{"image_id": it["id"], "id": n, "caption": c}
            for n, (it, c) in enumerate((it, c) for it in items for c in it["references"])]
    path = folder / "coco-caption" / "annotations" / "captions_val2014.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"images": images, "annotations": anns}), encoding="utf-8")
    return path, [{"image_id": it["id"], "caption": it["candidate"]} for it in items]


class _StubSpice:
    """The same stand-in for SPICE on both sides: pycocoevalcap's return values (a dict of
    categories per image, sorted ids), numbers drawn from the captions."""

    def method(self):
        return "SPICE"

    def compute_score(self, gts, res):
        ids = sorted(gts)
        scores = [{"All": {"f": len(res[i][0]) / 100, "pr": 0.5, "re": 0.25},
                   "Object": {"f": len(gts[i]) / 10, "pr": 0.5, "re": 0.25},
                   "Color": {"f": float("nan"), "pr": 0.0, "re": 0.0}} for i in ids]
        return float(np.mean([s["All"]["f"] for s in scores])), scores


@pytest.fixture
def both_sides(monkeypatch, tmp_path, pycocoevalcap_meteor):
    """``run(script, side, body)``: ``body(the script's globals)``, the script run as
    published (``side`` "pycocoevalcap", its ``Meteor()`` the worker's one jar process) or
    with its imports switched to kcca.coco and Java hidden from the PATH for the whole run
    (``side`` "kcca")."""
    import pycocoevalcap.eval
    import pycocoevalcap.meteor.meteor
    import pycocoevalcap.spice.spice

    import kcca.coco.eval
    import kcca.coco.spice.spice

    for module in (pycocoevalcap.eval, kcca.coco.eval, pycocoevalcap.spice.spice,
                   kcca.coco.spice.spice):
        monkeypatch.setattr(module, "Spice", _StubSpice)
    for module in (pycocoevalcap.eval, pycocoevalcap.meteor.meteor):
        monkeypatch.setattr(module, "Meteor", lambda: pycocoevalcap_meteor)
    monkeypatch.chdir(tmp_path)
    no_java = tmp_path / "no-java-bin"
    no_java.mkdir()
    java_path = os.environ["PATH"]

    def run(name: str, side: str, body):
        text = (SCRIPTS / name).read_text(encoding="utf-8")
        assert "pycocoevalcap" in text
        if side == "kcca":
            text = text.replace("pycocoevalcap", "kcca.coco")
            monkeypatch.setenv("PATH", str(no_java))
        path = tmp_path / f"{side}_{name.removesuffix('.txt')}"
        path.write_text(text, encoding="utf-8")
        try:
            return body(runpy.run_path(str(path)))
        finally:
            monkeypatch.setenv("PATH", java_path)

    return run


def _assert_same(ours, theirs, where="") -> None:
    """Equal structure; numbers equal (NaN equal to NaN) within TOL."""
    if isinstance(theirs, np.ndarray):
        theirs, ours = theirs.tolist(), np.asarray(ours).tolist()
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and list(ours) == list(theirs), where
        for key in theirs:
            _assert_same(ours[key], theirs[key], f"{where}[{key!r}]")
    elif isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs), where
        for k, (a, b) in enumerate(zip(ours, theirs)):
            _assert_same(a, b, f"{where}[{k}]")
    elif isinstance(theirs, float) or isinstance(ours, float):
        if math.isnan(theirs):
            assert math.isnan(ours), where
        else:
            assert abs(ours - theirs) <= TOL, (where, ours, theirs)
    else:
        assert ours == theirs, where


def test_self_critical_language_eval(both_sides, tmp_path):
    """ruotianluo/self-critical.pytorch: COCOEvalCap on pycocotools objects, then the SPICE
    subcategories read from imgToEval, and imgToEval written as JSON."""
    _, results = _coco_files(tmp_path)
    preds = [dict(p, perplexity=1.5 + k / 7, entropy=2.0 - k / 9) for k, p in enumerate(results)]
    (tmp_path / "eval_results").mkdir()
    outs, saved = {}, {}
    for side in ("pycocoevalcap", "kcca"):
        outs[side] = both_sides("self_critical_eval_utils.py.txt", side, lambda script: script[
            "language_eval"]("coco", preds, [], {"id": side}, "test"))
        saved[side] = json.loads((tmp_path / "eval_results" / f"{side}_test.json").read_text())
    assert {"Bleu_4", "METEOR", "ROUGE_L", "CIDEr", "SPICE", "SPICE_Object"} <= set(outs["kcca"])
    _assert_same(outs["kcca"], outs["pycocoevalcap"], "out")
    _assert_same(saved["kcca"]["overall"], saved["pycocoevalcap"]["overall"], "overall")
    _assert_same(saved["kcca"]["imgToEval"], saved["pycocoevalcap"]["imgToEval"], "imgToEval")


def test_vlmevalkit_caption_scorer(both_sides):
    """open-compass/VLMEvalKit: BLEU, ROUGE-L and CIDEr-D on raw caption dicts."""
    sources = _sources()
    items = sources["coco_karpathy_test_models"][:250] + sources["vizwiz_val_captions"][:150]
    gt = {str(k): it["references"] for k, it in enumerate(items)}
    ref = {str(k): [it["candidate"]] for k, it in enumerate(items)}
    scores = {}
    for side in ("pycocoevalcap", "kcca"):
        scores[side] = both_sides("vlmevalkit_image_caption.py.txt", side, lambda script: script[
            "COCO_Caption_Scorer"](ref, gt).compute_scores())
    assert list(scores["kcca"]) == ["Bleu", "ROUGE_L", "CIDEr"]
    _assert_same(scores["kcca"], scores["pycocoevalcap"], "total_scores")


def test_visionmetrics_caption_evaluators(both_sides):
    """microsoft/visionmetrics: a COCOEvalCap subclass with its own evaluate() and one scorer
    per metric, on a pycocotools COCO subclass, as ImageCaptionEvaluatorBase.compute runs it."""
    items = _sources()["coco_karpathy_test_human"][:200]
    predictions = [it["candidate"] for it in items]
    targets = [it["references"] for it in items]
    def evaluate_all(module) -> dict:
        evals = {}
        for metric in ("Bleu", "METEOR", "ROUGE_L", "CIDEr"):
            # visionmetrics/caption/caption_eval_base.py, ImageCaptionEvaluatorBase.compute
            imcap_predictions, imcap_targets = module["ImageCaptionWrapper"].convert(
                predictions, targets)
            coco = module["ImageCaptionCOCO"](imcap_targets)
            cocoRes = coco.loadRes(imcap_predictions)
            cocoEval = module["ImageCaptionCOCOEval"](coco, cocoRes, metric)
            cocoEval.params['image_id'] = cocoRes.getImgIds()
            cocoEval.evaluate()
            evals[metric] = (cocoEval.eval, cocoEval.imgToEval, cocoEval.evalImgs)
        return evals

    evals = {side: both_sides("visionmetrics_coco_evalcap_utils.py.txt", side, evaluate_all)
             for side in ("pycocoevalcap", "kcca")}
    _assert_same(evals["kcca"], evals["pycocoevalcap"], "evaluators")


def test_clipscore_generation_eval_utils(both_sides):
    """jmhessel/clipscore: PTBTokenizer on dicts keyed by list position, then each scorer's
    compute_score in a loop (SPICE imported from its module), as clipscore.py calls it (overall
    scores) and flickr8k_example/compute_metrics.py (per caption)."""
    items = _sources()["flickr30k_test_models"][:200]
    refs = [it["references"] for it in items]
    cands = [it["candidate"] for it in items]

    def both_calls(script) -> tuple[dict, dict]:
        return (script["get_all_metrics"](refs, cands),
                script["get_all_metrics"](refs, cands, return_per_cap=True))

    metrics = {side: both_sides("clipscore_generation_eval_utils.py.txt", side, both_calls)
               for side in ("pycocoevalcap", "kcca")}
    assert list(metrics["kcca"][0]) == ["bleu", "meteor", "rouge", "cider", "spice"]
    assert len(metrics["kcca"][1]["meteor"]) == len(items)
    _assert_same(metrics["kcca"], metrics["pycocoevalcap"], "metrics")
