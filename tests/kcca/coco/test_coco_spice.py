"""SPICE in kcca.coco: pycocoevalcap's SPICE where it can run, else one clear error at the
point of use (``Spice()``, or reading ``"SPICE"`` after ``evaluate()``) naming what is missing
and both ways out. METEOR is stubbed here: these tests are about SPICE."""

from __future__ import annotations

import json
import pickle
import warnings

import pytest

import kcca.coco.eval as coco_eval
import kcca.coco.spice.spice as coco_spice
from kcca.coco import SpiceNotComputed, SpiceUnavailable
from kcca.coco.eval import COCOEvalCap, Spice  # pycocoevalcap's eval module exports both

REFS = {2: ["a dog runs on the grass", "a brown dog"], 1: ["two cats sleep", "cats on a bed"]}
CANDS = {1: "two cats on a bed", 2: "a dog"}


class _Meteor:
    def __init__(self, engine="python"):
        pass

    def method(self):
        return "METEOR"

    def compute_score(self, gts, res):
        return 0.0, [0.0] * len(gts)


@pytest.fixture
def no_meteor(monkeypatch):
    monkeypatch.setattr(coco_eval, "Meteor", _Meteor)


@pytest.fixture
def no_java(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no java on the PATH


def test_spice_is_exported_by_the_eval_module_as_pycocoevalcap_s():
    assert Spice is coco_spice.Spice
    assert {"COCOEvalCap", "PTBTokenizer", "Bleu", "Meteor", "Rouge", "Cider",
            "Spice"} <= set(coco_eval.__all__)


def test_spice_without_java_names_java_and_both_ways_out(no_java):
    with pytest.raises(SpiceUnavailable) as err:
        Spice()
    message = str(err.value)
    assert message.startswith("SPICE needs Java, which is not on the PATH")
    assert "get_stanford_models()" in message  # installing the models
    assert "COCOEvalCap(coco, cocoRes, spice=False)" in message  # leaving SPICE out


def test_spice_without_pycocoevalcap_names_it(monkeypatch):
    monkeypatch.setattr(coco_spice, "_pycocoevalcap_spice_dir", lambda: None)
    with pytest.raises(SpiceUnavailable, match="pycocoevalcap 1.2, which is not installed"):
        Spice()


def test_spice_without_the_models_names_the_jar_paths(monkeypatch, tmp_path):
    (tmp_path / "spice-1.0.jar").write_bytes(b"")
    monkeypatch.setattr(coco_spice, "_pycocoevalcap_spice_dir", lambda: tmp_path)
    if coco_spice.shutil.which("java") is None:
        monkeypatch.setattr(coco_spice.shutil, "which", lambda name: "/usr/bin/java")
    with pytest.raises(SpiceUnavailable) as err:
        Spice()
    assert str(tmp_path / "lib" / "stanford-corenlp-3.6.0-models.jar") in str(err.value)


def test_evaluate_without_spice_warns_once_and_names_it_when_read(no_meteor, no_java, capsys):
    ev = COCOEvalCap(REFS, CANDS)
    with pytest.warns(UserWarning, match="SPICE is left out") as caught:
        ev.evaluate()
    assert len([w for w in caught if "SPICE" in str(w.message)]) == 1
    assert "Java, which is not on the PATH" in str(caught[0].message)
    assert list(ev.eval) == ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L",
                             "CIDEr"]
    for scores in (ev.eval, ev.imgToEval[1], ev.evalImgs[0]):
        with pytest.raises(KeyError) as err:
            scores["SPICE"]
        assert isinstance(err.value, SpiceNotComputed)
        assert "Java, which is not on the PATH" in str(err.value)
        assert "spice=False" in str(err.value)
        assert scores.get("SPICE") is None and "SPICE" not in scores
        with pytest.raises(KeyError) as other:
            scores["Bleu_5"]
        assert not isinstance(other.value, SpiceNotComputed)
    # still plain data for the scripts that save it
    assert json.loads(json.dumps(ev.evalImgs))[0]["image_id"] == 2
    assert type(pickle.loads(pickle.dumps(ev.imgToEval))[1]) is dict


def test_spice_false_leaves_it_out_without_a_warning(no_meteor, no_java):
    ev = COCOEvalCap(REFS, CANDS, spice=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ev.evaluate()
    with pytest.raises(SpiceNotComputed, match="spice=False"):
        ev.imgToEval[2]["SPICE"]


def test_spice_true_makes_it_required(no_meteor, no_java):
    with pytest.raises(SpiceUnavailable, match="Java"):
        COCOEvalCap(REFS, CANDS, spice=True).evaluate()


class _TheirSpice:
    """pycocoevalcap's Spice's return values (mean, a dict per image in sorted id order)."""

    def compute_score(self, gts, res):
        ids = sorted(gts)
        scores = [{"All": {"f": 0.1 * i, "pr": 0.5, "re": 0.25}} for i in ids]
        return sum(s["All"]["f"] for s in scores) / len(ids), scores

    def float_convert(self, obj):
        return float(obj)


def test_where_spice_can_run_it_is_pycocoevalcap_s(no_meteor, monkeypatch):
    """Where pycocoevalcap's SPICE can run, ``Spice`` is it: its numbers, its order."""
    import importlib.util

    if importlib.util.find_spec("pycocoevalcap") is None:
        pytest.skip("pycocoevalcap (extra 'coco') absent")
    import pycocoevalcap.spice.spice

    monkeypatch.setattr(coco_spice, "spice_missing", lambda: None)
    monkeypatch.setattr(pycocoevalcap.spice.spice, "Spice", _TheirSpice)
    ev = COCOEvalCap(REFS, CANDS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ev.evaluate()
    theirs = _TheirSpice().compute_score({2: [], 1: []}, {})
    assert ev.eval["SPICE"] == theirs[0]
    # pycocoevalcap pairs its sorted scores with gts's order: kept as it is
    assert [ev.imgToEval[i]["SPICE"] for i in (2, 1)] == theirs[1]
    assert Spice().float_convert("0.5") == 0.5
