"""kcca.coco as a drop-in for pycocoevalcap 1.2: its names, signatures, return types, order,
printed lines and empty captions (no Java needed), and pycocoevalcap's own example script
run with only its imports changed, against the same script on pycocoevalcap."""

from __future__ import annotations

import gzip
import importlib.util
import json
import runpy
from pathlib import Path

import numpy as np
import pytest

from kcca.coco import CocoInputError, SpiceUnavailable
from kcca.coco.bleu.bleu import Bleu
from kcca.coco.cider.cider import Cider
from kcca.coco.eval import COCOEvalCap
from kcca.coco.rouge.rouge import Rouge
from kcca.coco.spice.spice import Spice
from kcca.coco.tokenizer.ptbtokenizer import PTBTokenizer
from tests.support.optional_tools import skip_unless

OUTSIDE = Path(__file__).parents[1] / "captions" / "data" / "coco_outside_captions.json.gz"
TOL = 1e-12

GTS = {"b": ["a dog runs on grass", "a brown dog"], "a": ["two cats sleep", "cats on a bed"]}
RES = {"a": ["two cats on a bed"], "b": ["a dog"]}


def test_method_names_and_return_types_are_pycocoevalcap_s():
    score, scores = Bleu(4).compute_score(GTS, RES, verbose=0)
    assert isinstance(score, list) and len(score) == 4 and isinstance(score[0], float)
    assert isinstance(scores, list) and len(scores) == 4 and isinstance(scores[0], list)
    assert isinstance(scores[0][0], float)
    for scorer in (Rouge(), Cider()):
        score, scores = scorer.compute_score(GTS, RES)
        assert isinstance(score, np.float64) and isinstance(scores, np.ndarray)
    assert [s.method() for s in (Bleu(), Rouge(), Cider())] == ["Bleu", "Rouge", "CIDEr"]


def test_per_item_scores_follow_the_order_of_gts():
    _, scores = Rouge().compute_score(GTS, RES)
    _, swapped = Rouge().compute_score({"a": GTS["a"], "b": GTS["b"]}, RES)
    assert scores.tolist() == swapped[::-1].tolist()
    _, bleu = Bleu(4).compute_score(GTS, RES, verbose=0)
    assert bleu[0][1] == pytest.approx(1.0)  # "two cats on a bed" is a reference of "a"


def test_an_empty_candidate_scores_zero():
    res = {"a": [""], "b": ["a dog"]}
    _, bleu = Bleu(4).compute_score(GTS, res, verbose=0)
    assert [row[1] for row in bleu] == [0.0] * 4
    assert Rouge().compute_score(GTS, res)[1][1] == 0.0
    assert Cider().compute_score(GTS, res)[1][1] == 0.0


def test_bleu_prints_its_counts_as_pycocoevalcap(capsys):
    Bleu(4).compute_score({1: ["a b c"]}, {1: ["a b"]})
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "{'testlen': 2, 'reflen': 3, 'guess': [2, 1, 0, 0], 'correct': [2, 1, 0, 0]}"
    assert out[1].startswith("ratio: 0.66666666")


def test_input_pycocoevalcap_asserts_on_is_an_assertion_error():
    with pytest.raises(AssertionError, match="same image ids"):
        Rouge().compute_score(GTS, {"a": ["x"]})
    with pytest.raises(CocoInputError, match="one caption"):
        Cider().compute_score(GTS, {"a": ["x", "y"], "b": ["z"]})


def test_an_image_without_a_candidate_is_named_with_the_fix():
    ev = COCOEvalCap({1: ["a dog"], 2: ["a cat"]}, {1: "a dog"})
    with pytest.raises(CocoInputError, match="image id 2 has no candidate") as err:
        ev.evaluate()
    assert "params['image_id'] = cocoRes.getImgIds()" in err.value.fix
    assert ev.cocoRes.getImgIds() == [1]  # what the fix sets params["image_id"] to


def test_spice_is_named_not_silently_missing():
    with pytest.raises(SpiceUnavailable, match="Java"):
        Spice()


def test_the_tokenizer_takes_caption_dicts():
    out = PTBTokenizer().tokenize({7: [{"caption": "A Dog."}, {"caption": "Two cats!"}]})
    assert out == {7: ["a dog", "two cats"]}


def test_cocoevalcap_on_plain_dicts(capsys):
    from kcca.captions import meteor_available

    ok, why = meteor_available("python")
    skip_unless(ok, why)
    refs = {1: ["A dog runs on the grass.", "A brown dog."],
            2: ["Two cats sleep.", "Cats on a bed"]}
    cands = {2: "Two cats on a bed.", 1: "A dog."}
    ev = COCOEvalCap(refs, cands)
    ev.params["image_id"] = [1, 2]
    with pytest.warns(UserWarning, match="SPICE is left out"):
        ev.evaluate()
    assert list(ev.eval) == ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L",
                             "CIDEr"]
    assert [e["image_id"] for e in ev.evalImgs] == [1, 2]
    assert "computing Bleu score..." in capsys.readouterr().out


# ------------------------------------------------------------------------------------------
# pycocoevalcap's example script, imports changed only


def _example_files(folder: Path) -> None:
    """The example's two files from outside captions: pycocoevalcap's example model captions
    of COCO val2014 images, with those images' COCO references (images listed in reverse,
    so that the evaluation's order is not the result file's)."""
    with gzip.open(OUTSIDE, "rt", encoding="utf-8") as f:
        sources = json.load(f)["sources"]
    items = next(s for s in sources if s["name"] == "coco_val2014_fakecap")["items"]
    images = [{"id": it["id"]} for it in reversed(items)]
    anns = [{"image_id": it["id"], "id": n, "caption": c}
            for n, (it, c) in enumerate((it, c) for it in items for c in it["references"])]
    (folder / "captions_val2014.json").write_text(
        json.dumps({"images": images, "annotations": anns}), encoding="utf-8")
    (folder / "captions_val2014_fakecap_results.json").write_text(
        json.dumps([{"image_id": it["id"], "caption": it["candidate"]} for it in items]),
        encoding="utf-8")


def _example_script() -> str:
    spec = importlib.util.find_spec("pycocoevalcap")
    skip_unless(spec is not None and spec.submodule_search_locations is not None,
                "pycocoevalcap (extra 'coco') absent")
    script = Path(list(spec.submodule_search_locations)[0]) / "example" / "coco_eval_example.py"
    skip_unless(script.is_file(), f"pycocoevalcap's example script {script} absent")
    return script.read_text(encoding="utf-8")


class _NoSpice:
    """Stands in for pycocoevalcap's Spice, which downloads Stanford models and needs Java."""

    def method(self):
        return "SPICE"

    def compute_score(self, gts, res):
        return 0.0, [0.0] * len(gts)


@pytest.mark.slow
@pytest.mark.outside_parity
def test_pycocoevalcap_example_script_runs_on_kcca_coco(tmp_path, monkeypatch):
    from tests.support.java_ptb import java_jar

    text = _example_script()
    assert "from pycocoevalcap.eval import COCOEvalCap" in text
    skip_unless(java_jar() is not None, "Java or pycocoevalcap (extra 'coco') absent")
    _example_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "theirs.py").write_text(text, encoding="utf-8")
    (tmp_path / "ours.py").write_text(text.replace("pycocoevalcap", "kcca.coco"),
                                      encoding="utf-8")
    import pycocoevalcap.eval

    monkeypatch.setattr(pycocoevalcap.eval, "Spice", _NoSpice)
    import kcca.coco.spice.spice

    # where pycocoevalcap's SPICE could run, kcca.coco would run it: left out here as before
    monkeypatch.setattr(kcca.coco.spice.spice, "spice_missing", lambda: "SPICE not wanted here")
    theirs = runpy.run_path(str(tmp_path / "theirs.py"))["coco_eval"]
    with pytest.warns(UserWarning, match="SPICE is left out"):
        ours = runpy.run_path(str(tmp_path / "ours.py"))["coco_eval"]
    del theirs.eval["SPICE"]
    for ev in theirs.evalImgs:
        del ev["SPICE"]
    assert list(ours.eval) == list(theirs.eval)
    for metric, value in theirs.eval.items():
        assert abs(ours.eval[metric] - value) <= TOL, metric
    assert len(ours.evalImgs) == len(theirs.evalImgs) == 129
    for mine, other in zip(ours.evalImgs, theirs.evalImgs):
        assert list(mine) == list(other)
        assert mine["image_id"] == other["image_id"]
        for metric in theirs.eval:
            assert abs(mine[metric] - other[metric]) <= TOL, (mine["image_id"], metric)
