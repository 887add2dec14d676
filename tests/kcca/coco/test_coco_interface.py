"""The inventory of pycocoevalcap 1.2's public interface, walked from its modules: every
class, function, method and constant is either provided by kcca.coco under the same module
path, with the same parameters, and tested equal to pycocoevalcap on outside captions here,
or listed in NOT_PROVIDED with the reason."""

from __future__ import annotations

import gzip
import importlib
import importlib.util
import inspect
import json
from pathlib import Path

import numpy as np
import pytest

from tests.support.optional_tools import skip_unless

OUTSIDE = Path(__file__).parents[1] / "captions" / "data" / "coco_outside_captions.json.gz"
TOL = 1e-12

#: private methods that public code calls (per-sentence METEOR)
USED_PRIVATE = {"_stat", "_score"}
#: special methods that are part of the interface
USED_SPECIAL = {"__iadd__"}

_DOWNLOAD = ("downloads the Stanford CoreNLP models into pycocoevalcap's own folder; "
             "kcca.coco downloads nothing: run pycocoevalcap's (SpiceUnavailable's message "
             "gives the command)")
_INSIDE_CIDER = ("a step inside pycocoevalcap's compute_score; kcca.captions.CiderD computes "
                 "the idf weights and every item's score in one pass")
_BROKEN_RATIO = ("raises AttributeError in pycocoevalcap 1.2 (compute_score never sets _ratio; "
                 "fscore is not defined), so no working code calls it")

NOT_PROVIDED = {
    "spice.get_stanford_models.get_stanford_models": _DOWNLOAD,
    "spice.get_stanford_models.print_progress": _DOWNLOAD,
    "spice.get_stanford_models.CORENLP": _DOWNLOAD,
    "spice.get_stanford_models.SPICELIB": _DOWNLOAD,
    "spice.get_stanford_models.JAR": _DOWNLOAD,
    "spice.get_stanford_models.SPICEDIR": _DOWNLOAD,
    "spice.spice.get_stanford_models": _DOWNLOAD,
    "bleu.bleu_scorer.BleuScorer.ratio": _BROKEN_RATIO,
    "bleu.bleu_scorer.BleuScorer.score_ratio": _BROKEN_RATIO,
    "bleu.bleu_scorer.BleuScorer.score_ratio_str": _BROKEN_RATIO,
    "cider.cider_scorer.CiderScorer.compute_doc_freq": _INSIDE_CIDER,
    "cider.cider_scorer.CiderScorer.compute_cider": _INSIDE_CIDER,
}


def _pycocoevalcap_modules() -> list[str]:
    spec = importlib.util.find_spec("pycocoevalcap")
    skip_unless(spec is not None, "pycocoevalcap (extra 'coco') absent")
    root = Path(list(spec.submodule_search_locations)[0])
    # its folders are namespace packages (no __init__.py): walk the files
    names = [".".join(("pycocoevalcap", *p.relative_to(root).with_suffix("").parts))
             for p in root.rglob("*.py") if p.name != "__init__.py"]
    return sorted(n for n in names if not n.startswith("pycocoevalcap.example"))


def _public_names(module) -> dict[str, object]:
    """Classes and functions of pycocoevalcap, and constants, that ``module`` holds."""
    out = {}
    for name, obj in vars(module).items():
        if name.startswith("_") or inspect.ismodule(obj):
            continue
        if inspect.isclass(obj) or inspect.isfunction(obj):
            if obj.__module__.startswith("pycocoevalcap"):
                out[name] = obj
        elif isinstance(obj, (str, int, float, list, tuple)):
            out[name] = obj
    return out


def _inventory() -> dict[str, object]:
    """``"module.path.Name[.method]" -> pycocoevalcap's object``, module paths relative."""
    found = {}
    for module_name in _pycocoevalcap_modules():
        module = importlib.import_module(module_name)
        rel = module_name.removeprefix("pycocoevalcap.")
        for name, obj in _public_names(module).items():
            found[f"{rel}.{name}"] = obj
            if inspect.isclass(obj) and obj.__module__ == module_name:  # members once
                for attr, member in vars(obj).items():
                    public = not attr.startswith("_") or attr in USED_PRIVATE | USED_SPECIAL
                    if public and inspect.isfunction(member):
                        found[f"{rel}.{name}.{attr}"] = member
    return found


def _ours(path: str):
    """kcca.coco's object at pycocoevalcap's relative ``path``, or None."""
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module("kcca.coco." + ".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr, None)
            if obj is None:
                return None
        return obj
    return None


def _parameters(obj) -> list[tuple[str, object, object]]:
    params = inspect.signature(obj).parameters.values()
    return [(p.name, p.kind, p.default) for p in params]


def test_every_public_name_of_pycocoevalcap_is_provided_or_listed_with_a_reason():
    inventory = _inventory()
    assert len(inventory) > 60  # the walk found the modules
    assert not set(NOT_PROVIDED) - set(inventory), "stale NOT_PROVIDED entries"
    missing, different = [], []
    for path, theirs in sorted(inventory.items()):
        if path in NOT_PROVIDED:
            continue
        ours = _ours(path)
        if ours is None:
            missing.append(path)
        elif callable(theirs):
            mine = _parameters(ours)
            # same parameters, in order; kcca.coco may add keyword arguments after them
            if mine[: len(_parameters(theirs))] != _parameters(theirs):
                different.append((path, _parameters(theirs), mine))
        elif path.endswith("PUNCTUATIONS"):
            assert sorted(ours) == sorted(theirs)
        else:
            assert ours == theirs, path
    assert not missing, f"neither provided nor listed in NOT_PROVIDED: {missing}"
    assert not different, different


# ------------------------------------------------------------------------------------------
# the provided parts, equal to pycocoevalcap on outside captions


@pytest.fixture(scope="module")
def outside():
    """Tokenised references and candidates of 300 outside items (two published systems'
    COCO captions and VizWiz's), as both sides' scorers take them."""
    skip_unless(importlib.util.find_spec("pycocoevalcap") is not None,
                "pycocoevalcap (extra 'coco') absent")
    from kcca.coco.tokenizer.ptbtokenizer import PTBTokenizer

    with gzip.open(OUTSIDE, "rt", encoding="utf-8") as f:
        sources = {s["name"]: s["items"] for s in json.load(f)["sources"]}
    items = sources["coco_karpathy_test_models"][:200] + sources["vizwiz_val_captions"][:100]
    gts = PTBTokenizer().tokenize({k: it["references"] for k, it in enumerate(items)})
    res = PTBTokenizer().tokenize({k: [it["candidate"]] for k, it in enumerate(items)})
    return gts, res


def _filled(cls, gts, res, **kwargs):
    scorer = cls(**kwargs)
    for k in gts:
        scorer += (res[k][0], gts[k])
    return scorer


@pytest.mark.parametrize("option", ["closest", "average", "shortest", None])
@pytest.mark.parametrize("n", [4, 2])
def test_bleu_scorer_equals_pycocoevalcap_s(outside, option, n):
    from pycocoevalcap.bleu.bleu_scorer import BleuScorer as Theirs

    from kcca.coco.bleu.bleu_scorer import BleuScorer

    gts, res = outside
    theirs, ours = _filled(Theirs, gts, res, n=n), _filled(BleuScorer, gts, res, n=n)
    assert ours.size() == theirs.size() == len(gts)
    assert ours.crefs == theirs.crefs and ours.ctest == theirs.ctest
    (score_t, scores_t), (score_o, scores_o) = (theirs.compute_score(option=option),
                                                ours.compute_score(option=option))
    assert score_o == score_t and all(type(s) is float for s in score_o)
    assert type(scores_o) is list and type(scores_o[0]) is list
    assert np.abs(np.array(scores_o) - np.array(scores_t)).max() <= TOL
    assert ours.compute_score() == theirs.compute_score()  # the cached corpus list alone
    assert ours.reflen() == theirs.reflen() and ours.testlen() == theirs.testlen()


def test_bleu_scorer_one_item_copy_retest_and_verbose(outside, capsys):
    from pycocoevalcap.bleu import bleu_scorer as theirs_module

    from kcca.coco.bleu import bleu_scorer as ours_module

    gts, res = outside
    results = []
    for module in (theirs_module, ours_module):
        one = module.BleuScorer(res[0][0], gts[0], n=4)
        assert one.single_reflen() == one.single_reflen("average")
        both = one.copy()
        both += module.BleuScorer(res[1][0], gts[1])
        both.retest([res[1][0], res[0][0]])
        results.append((one.compute_score(verbose=2),
                         both.compute_score(option="closest", verbose=1),
                         both.size(), one.compatible(both)))
    out = capsys.readouterr().out.splitlines()
    assert out[: len(out) // 2] == out[len(out) // 2:]  # what verbose prints
    theirs, ours = results
    assert ours[2:] == theirs[2:]
    for (score_t, scores_t), (score_o, scores_o) in zip(theirs[:2], ours[:2]):
        assert score_o == score_t
        assert np.abs(np.array(scores_o) - np.array(scores_t)).max() <= TOL
    for test, refs in ((res[3][0], gts[3]), (res[4][0], gts[4])):
        cooked = theirs_module.cook_refs(refs)
        assert ours_module.cook_refs(refs) == cooked
        assert ours_module.cook_refs(refs, "average") == theirs_module.cook_refs(refs, "average")
        assert ours_module.cook_test(test, cooked, "closest") == theirs_module.cook_test(
            test, cooked, "closest")
        assert ours_module.precook(test, 3) == theirs_module.precook(test, 3)


def test_cider_scorer_equals_pycocoevalcap_s(outside):
    from pycocoevalcap.cider import cider_scorer as theirs_module

    from kcca.coco.cider import cider_scorer as ours_module

    gts, res = outside
    for sigma in (6.0, 3.0):
        theirs = _filled(theirs_module.CiderScorer, gts, res, n=4, sigma=sigma)
        ours = _filled(ours_module.CiderScorer, gts, res, n=4, sigma=sigma)
        assert ours.size() == theirs.size()
        assert ours.crefs == theirs.crefs and ours.ctest == theirs.ctest
        (score_t, scores_t), (score_o, scores_o) = theirs.compute_score(), ours.compute_score()
        assert type(score_o) is type(score_t) and type(scores_o) is np.ndarray
        assert abs(score_o - score_t) <= TOL and np.abs(scores_o - scores_t).max() <= TOL
    half = ours_module.CiderScorer(res[0][0], gts[0]).copy()
    half += ours_module.CiderScorer(res[1][0], gts[1])
    theirs_half = theirs_module.CiderScorer(res[0][0], gts[0]).copy()
    theirs_half += theirs_module.CiderScorer(res[1][0], gts[1])
    assert np.abs(half.compute_score()[1] - theirs_half.compute_score()[1]).max() <= TOL


def test_rouge_calc_score_and_lcs_equal_pycocoevalcap_s(outside):
    from pycocoevalcap.rouge.rouge import Rouge as Theirs
    from pycocoevalcap.rouge.rouge import my_lcs as their_lcs

    from kcca.coco.rouge.rouge import Rouge, my_lcs

    gts, res = outside
    for k in gts:
        mine, theirs = Rouge().calc_score(res[k], gts[k]), Theirs().calc_score(res[k], gts[k])
        assert type(mine) is type(theirs) and abs(mine - theirs) <= TOL
        cand = res[k][0].split(" ")
        for ref in gts[k]:
            assert my_lcs(ref.split(" "), cand) == their_lcs(ref.split(" "), cand)


@pytest.mark.slow
@pytest.mark.outside_parity
def test_meteor_per_sentence_equals_the_jar_s(outside, pycocoevalcap_meteor):
    """``_stat`` is the jar's statistics line; ``_score`` what the jar answers to ``EVAL`` of
    it (pycocoevalcap 1.2's own ``_score`` writes text to a binary pipe and fails, so its
    answer is read through ``_stat`` here). Every line written to the jar is answered before
    anything is asserted, so the worker's jar process stays in step for later tests."""
    from kcca.coco.meteor.meteor import Meteor

    gts, res = outside
    theirs, ours = pycocoevalcap_meteor, Meteor()
    for k in list(gts)[::10]:
        stat = theirs._stat(res[k][0], gts[k])
        theirs.meteor_p.stdin.write(f"EVAL ||| {stat}\n".encode())
        theirs.meteor_p.stdin.flush()
        theirs.meteor_p.stdout.readline()
        score = theirs.meteor_p.stdout.readline().strip()
        assert ours._stat(res[k][0], gts[k]) == stat
        assert ours._score(res[k][0], gts[k]) == float(score)
