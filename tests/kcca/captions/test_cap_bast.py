"""BAST (Ellebracht et al. 2015): Flickr-ST reader, union sets, release scoring rules."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kcca.captions._bast import (
    COMPONENTS, BastInputError, BastScorer, GroundedTuple, LemmaGrounding, bast_sets,
    ground_tuple, score_flickr_st, set_prf,
)
from kcca.captions._flickr_st import (
    Span, load_flickr_st, parse_tuple_line, read_tuples, tuples_by_image,
)
from kcca.data._errors import DataError


def identity(text: str, role: str) -> str:
    return text.lower()


LINE = ("000126@0;FNAME;img1.jpg#0;PRED;(['6'], ['kneeling']);A0;(['2'], ['boy']);"
        "A1;([], None);LOC_HEAD;(['12'], ['net']);LOC_PREP;(['7-9'], ['in-front-of']);"
        "LOC_TYPE;('-', ['Object'])")


# ------------------------------------------------------------------ reader
def test_parse_line_fields():
    t = parse_tuple_line(Path("f.txt"), 3, LINE)
    assert t.image_id == "img1.jpg" and t.caption_index == 0
    assert t.predicate == (Span("6", "kneeling"),)
    assert t.agents == (Span("2", "boy"),) and t.patients == ()
    assert t.loc_heads == (Span("12", "net"),) and t.loc_preps[0].n_tokens == 3
    assert t.loc_types == ("Object",) and not t.predicate_tacit


def test_parse_tacit_and_multi_values():
    line = LINE.replace("(['6'], ['kneeling'])", "(['-'], ['TACIT'])").replace(
        "A0;(['2'], ['boy'])", "A0;(['2', '5'], ['boy', 'girl'])")
    t = parse_tuple_line(Path("f.txt"), 1, line)
    assert t.predicate == () and t.predicate_tacit
    assert [s.text for s in t.agents] == ["boy", "girl"]


@pytest.mark.parametrize("bad, message", [
    (LINE.replace(";A1;", ";AX;"), "f.txt:7: malformed line"),
    (LINE.replace("(['2'], ['boy'])", "(['2'], ['boy', 'x'])"), "f.txt:7: A0 has 1 positions"),
    (LINE.replace("img1.jpg#0", "img1.jpg"), "f.txt:7: caption id"),
    (LINE.replace("(['2'], ['boy'])", "(['2', ['boy'])"), "f.txt:7: malformed A0"),
    (LINE.replace("(['2'], ['boy'])", "(['x2'], ['boy'])"), "f.txt:7: A0 position"),
])
def test_parse_errors_name_file_and_line(bad, message):
    with pytest.raises(DataError, match=message.replace("[", r"\[")):
        parse_tuple_line(Path("f.txt"), 7, bad)


def test_release_defect_is_repaired_with_warning(caplog):
    line = LINE.replace("(['12'], ['net'])", "(['16'], [trunk]])")
    t = parse_tuple_line(Path("f.txt"), 60, line)
    assert t.loc_heads == (Span("16", "trunk"),)
    assert "f.txt:60: repaired" in caplog.text


def test_read_tuples_empty_and_missing(tmp_path):
    with pytest.raises(DataError, match="missing"):
        read_tuples(tmp_path / "nope.txt")
    (tmp_path / "e.txt").write_text("\n")
    with pytest.raises(DataError, match="no semantic tuples"):
        read_tuples(tmp_path / "e.txt")


# ------------------------------------------------------------- union sets
def test_figure2_bast_sets():
    """Figure 2: <SLIDE, MAN, NULL, DUNE>, <SLIDE, MAN, NULL, DAY>."""
    ts = [GroundedTuple(("slide",), ("man",), ("dune",)),
          GroundedTuple(("slide",), ("man",), ("day",))]
    s = bast_sets(ts)
    assert s["PA"] == {"man"} and s["PR"] == {"slide"} and s["LO"] == {"dune", "day"}
    assert s["PA+PR"] == {("slide", "man")}
    assert s["PA+LO"] == {("man", "dune"), ("man", "day")}
    assert s["PR+LO"] == {("slide", "dune"), ("slide", "day")}
    assert s["PA+PR+LO"] == {("slide", "man", "dune"), ("slide", "man", "day")}


def test_nulls_excluded_and_multi_values_expanded():
    # "A girl and a woman eat fruits in a park": PA = {girl, woman, fruit}; no predicate.
    s = bast_sets([GroundedTuple((), ("girl", "woman", "fruit"), ("park",)),
                   GroundedTuple(("eat",), ("girl",), ())])
    assert s["PA"] == {"girl", "woman", "fruit"} and s["PR"] == {"eat"}
    assert s["PA+LO"] == {("girl", "park"), ("woman", "park"), ("fruit", "park")}
    assert s["PA+PR"] == {("eat", "girl")}
    assert s["PR+LO"] == frozenset() and s["PA+PR+LO"] == frozenset()


@pytest.mark.slow
def test_grounding_lemmatises_spans(nltk_data_dir):
    g = LemmaGrounding()
    t = parse_tuple_line(Path("f"), 1, LINE.replace("['kneeling']", "['chasing-after']").replace(
        "(['6']", "(['6-7']").replace("['boy']", "['Girls']"))
    gt = ground_tuple(t, g)
    assert gt.predicates == ("chase-after",)
    assert gt.participants == ("girl",) and gt.locatives == ("net",)


# ----------------------------------------------------------------- scoring
def test_release_measure_conventions():
    assert set_prf(set(), {"a"}) == (1.0, 0.0, 0.0)           # no prediction: P = 1
    assert set_prf({"a"}, set()) == (0.0, 1.0, 0.0)           # no gold: R = 1
    assert set_prf({"a"}, {"b"}) == (0.0, 0.0, 0.0)           # P + R = 0: F = 0
    assert set_prf(set(), set()) == (1.0, 1.0, 1.0)
    p, r, f = set_prf({"a", "b", "c"}, {"a", "d"})
    assert (p, r) == (1 / 3, 1 / 2) and f == pytest.approx(0.4)


def test_scorer_hand_worked():
    gold = {"i1": [GroundedTuple(("slide",), ("man",), ("dune",)),
                   GroundedTuple(("slide",), ("man",), ("day",))],
            "i2": [GroundedTuple(("run",), ("dog",), ())],
            "i3": []}  # no gold tuples: not scored (release's nonZero)
    cand = {"i1": [GroundedTuple(("slide",), ("man", "dog"), ("day",))],
            "i2": [GroundedTuple(("walk",), ("dog",), ("park",))],
            "i3": [GroundedTuple(("x",), (), ())]}
    res = BastScorer(grounding=identity).score(gold, cand)
    assert res.image_ids == ["i1", "i2"] and res.skipped_empty_gold == ["i3"]
    # i1 PA: pred {man, dog} gold {man}: P = 1/2, R = 1, F = 2/3
    assert res.precision["PA"][0] == 0.5 and res.recall["PA"][0] == 1.0
    assert res.f1["PA"][0] == pytest.approx(2 / 3)
    # i1 LO: {day} vs {dune, day}: P = 1, R = 1/2; i2 LO: {park} vs {}: P = 0, R = 1, F = 0
    assert res.f1["LO"] == pytest.approx([2 / 3, 0.0])
    # i2 PR+LO: pred {(walk, park)}, gold {} -> P 0, R 1; PA+PR: {(walk,dog)} vs {(run,dog)} -> 0
    assert res.precision["PR+LO"][1] == 0.0 and res.recall["PR+LO"][1] == 1.0
    assert res.f1["PA+PR"][1] == 0.0
    # i1 triplet: {(slide,man,day),(slide,dog,day)} vs {(slide,man,dune),(slide,man,day)}
    assert res.f1["PA+PR+LO"][0] == pytest.approx(0.5)
    corpus, per = BastScorer(grounding=identity).compute_score(gold, cand)
    assert per.shape == (7, 2)
    assert corpus[COMPONENTS.index("PA")] == pytest.approx((2 / 3 + 1.0) / 2)


def test_scorer_bad_input():
    gold = {"i1": [GroundedTuple(("a",), ("b",), ())]}
    with pytest.raises(BastInputError, match="'zz'.*unknown image id"):
        BastScorer(grounding=identity).score(gold, {"zz": []})
    with pytest.raises(BastInputError, match="'i1' has no candidate"):
        BastScorer(grounding=identity).score(gold, {})
    res = BastScorer(grounding=identity, missing="empty").score(gold, {})
    assert res.precision["PA"][0] == 1.0 and res.recall["PA"][0] == 0.0
    with pytest.raises(BastInputError, match="not a semantic tuple"):
        BastScorer(grounding=identity).score(gold, {"i1": ["a b c"]})


# --------------------------------------------------------------- real data
@pytest.mark.real_data
def test_flickr_st_gold_counts_and_system_scores(data_dir, nltk_data_dir):
    folder = data_dir / "flickr-st"
    if not folder.is_dir():
        pytest.skip("flickr-st data absent")
    d = load_flickr_st(folder)
    assert d.summary() == {"images": 50, "captions": 250, "tuples": 273}
    assert set(d.systems) == {"model1", "model2"}
    assert all(len(v) == 50 for v in d.systems.values())
    all_ann = tuples_by_image(read_tuples(folder / "all_annotations.txt"))
    assert len(all_ann) == 506 and set(d.gold) <= set(all_ann)
    res = score_flickr_st(d)
    for r in res.values():
        f = r.mean("f1")
        assert len(r.image_ids) == 50
        # Paper, Sec. 7.2: predicates and locatives below 25% F1; participants easiest.
        assert f["PR"] < 0.25 and f["LO"] < 0.25
        assert f["PA"] > max(f["PR"], f["LO"])
        assert all(0 <= v <= 1 for v in f.values())
    assert np.isclose(res["model1"].mean("f1")["PA"], 0.350, atol=0.005)


@pytest.mark.real_data
def test_cli_bast_prints_table(data_dir, nltk_data_dir, capsys):
    import argparse

    from kcca._cli import caption_analysis_cmd
    from kcca._cli.common import finalize

    if not (data_dir / "flickr-st").is_dir():
        pytest.skip("flickr-st data absent")
    parser = argparse.ArgumentParser(prog="kcca")
    caption_analysis_cmd.add_parser(parser.add_subparsers(dest="command"))
    args = finalize(parser.parse_args(["caption-analysis", "bast", "--data-dir", str(data_dir)]))
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "50 images, 250 captions, 273 tuples" in " ".join(out.split())  # lines may wrap
    assert "PA+PR+LO" in out and "model2 F1" in out


def test_cli_bast_refuses_data_dir_beside_flickr_st(tmp_path, capsys):
    """--data-dir is not read when --flickr-st names the folder: named, with a fix that runs."""
    from kcca._cli import main

    rc = main(["caption-analysis", "bast", "--flickr-st", str(tmp_path / "st"),
               "--data-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2
    assert "error: --data-dir is not read when --flickr-st names the Flickr-ST folder" in err
    assert f"fix: kcca caption-analysis bast --flickr-st {tmp_path / 'st'}" in err
