"""``kcca evaluate --ties first|mean|last``: the original item's place among equal scores.

Scores of one pool: query 0's original ties with every candidate (all score 0), query 1's is
strictly best, the other queries' originals tie with every candidate (all 0.5). Every table's
rule puts the original last among ties; ``first`` and ``mean`` move it to the front or the
middle of its tie, from the tie counts recorded in the rankings file.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from kcca._cli import main
from kcca.data._errors import DataError
from kcca._evaluate.compact import from_rankings, read_compact, write_compact
from kcca._evaluate.original import (gold_ties_from_scores, original_item_metrics,
                                    original_ranks_from_scores, rankings_from_scores)
from kcca._evaluate.rankings_io import read_rankings, write_rankings
from kcca._evaluate.system import EvaluationContext, evaluate_compact, evaluate_system

N = 12
POOL = [(f"img{i}.jpg", f"img{i}.jpg#2", f"caption {i}") for i in range(N)]


def _ctx() -> EvaluationContext:
    return EvaluationContext(None, with_bleu_rouge=False)


def _scores() -> np.ndarray:
    scores = np.array([[0.0] * N, [0.0] * N] + [[0.5] * N] * (N - 2))
    scores[1, 1] = 2.0
    return scores


@pytest.fixture()
def tied_file(tmp_path):
    s = _scores()
    r = rankings_from_scores(s)
    ties = gold_ties_from_scores(s)
    return write_rankings(tmp_path / "nn.json", POOL, {"annotation": r, "search": r},
                          system="NN", corpus="demo",
                          gold_ties={"annotation": ties, "search": ties})


@pytest.mark.parametrize("rule", ["last", "first", "mean"])
def test_rankings_file_gives_the_figures_of_the_scores_under_each_rule(tied_file, rule):
    expected = {k: v.aggregate for k, v in
                original_item_metrics(original_ranks_from_scores(_scores(), ties=rule)).items()}
    rankings = read_rankings(tied_file, POOL)
    got = evaluate_system(rankings, _ctx(), ties=rule).table()["search"]
    assert got == expected
    compact = from_rankings(rankings, POOL, corpus="demo")
    path = write_compact(tied_file.with_name("nn.ranks.npz"), compact)
    got = evaluate_compact(read_compact(path), _ctx(), ties=rule).table()
    assert got["annotation"] == expected


def test_the_figures_move_only_where_the_original_ties(tied_file):
    rankings = read_rankings(tied_file, POOL)
    last, first, mean = (evaluate_system(rankings, _ctx(), ties=t)
                         .table()["annotation"] for t in ("last", "first", "mean"))
    assert last["median rank"] == 12.0 and first["median rank"] == 1.0
    assert mean["median rank"] == 6.5
    assert last["R@1"] < first["R@1"] == 100.0
    doc = json.loads(tied_file.read_text())
    assert "img1.jpg#2" not in doc["tasks"]["search"]["gold_ties"]  # no tie: not listed
    assert doc["tasks"]["search"]["gold_ties"]["img0.jpg#2"] == N - 1


def test_rankings_without_a_record_of_ties_are_refused_by_name(tmp_path):
    r = rankings_from_scores(_scores())
    path = write_rankings(tmp_path / "old.json", POOL, {"annotation": r}, system="old")
    rankings = read_rankings(path, POOL)
    assert evaluate_system(rankings, _ctx()).table()  # the default rule
    with pytest.raises(DataError, match=r"old\.json: its annotation rankings hold no record"):
        evaluate_system(rankings, _ctx(), ties="first")


@pytest.mark.parametrize("value, message", [
    (12, "from 0 to 11"), (-1, "from 0 to 11"), (2.5, "from 0 to 11"), (True, "from 0 to 11")])
def test_a_bad_tie_count_names_the_query(tied_file, value, message):
    doc = json.loads(tied_file.read_text())
    doc["tasks"]["search"]["gold_ties"]["img0.jpg#2"] = value
    tied_file.write_text(json.dumps(doc))
    with pytest.raises(DataError, match=rf"search 'gold_ties' of query 'img0.jpg#2'.*{message}"):
        read_rankings(tied_file, POOL)


def test_an_unknown_query_in_the_tie_counts_is_named(tied_file):
    doc = json.loads(tied_file.read_text())
    doc["tasks"]["search"]["gold_ties"]["nowhere.jpg#2"] = 1
    tied_file.write_text(json.dumps(doc))
    with pytest.raises(DataError, match="'nowhere.jpg#2' is not in the pool"):
        read_rankings(tied_file, POOL)


def test_compact_file_with_a_tie_count_beyond_the_rank_is_refused(tied_file, tmp_path):
    compact = from_rankings(read_rankings(tied_file, POOL), POOL, corpus="demo")
    bad = dict(compact.gold_ties)
    bad["search"] = compact.gold_ties["search"] + 1
    from dataclasses import replace

    path = write_compact(tmp_path / "bad.ranks.npz", replace(compact, gold_ties=bad))
    with pytest.raises(DataError, match="gold_ties must be 12 counts"):
        read_compact(path)


def test_cli_ties_on_demo_rankings(tmp_path, capsys):
    """On the demo pool: `--ties first` moves the original to the front of its tie; a file
    without a record is exit 2 with a fix."""
    from kcca.data import load_corpus

    pool = load_corpus("demo", seed=0).pool("test")
    n = len(pool)
    scores = np.zeros((n, n))  # every candidate ties with the original
    r = rankings_from_scores(scores)
    ties = gold_ties_from_scores(scores)
    tied = write_rankings(tmp_path / "tied.json", pool, {"search": r}, system="tied",
                          corpus="demo", gold_ties={"search": ties})
    out = tmp_path / "out.json"
    rc = main(["evaluate", str(tied), "--corpus", "demo", "--no-bleu-rouge", "--ties", "first",
               "--format", "json", "-o", str(out)])
    assert rc == 0
    assert json.loads(out.read_text())["systems"][0]["aggregates"]["search"]["R@1"] == 100.0
    assert "original item first among candidates of equal score" in capsys.readouterr().err
    plain = write_rankings(tmp_path / "plain.json", pool, {"search": r}, system="plain",
                           corpus="demo")
    rc = main(["evaluate", str(plain), "--corpus", "demo", "--no-bleu-rouge", "--ties", "mean"])
    err = capsys.readouterr().err
    assert rc == 2 and "plain.json: its search rankings hold no record" in err
    assert "fix: leave out --ties" in err


def test_tie_counts_of_nan_scores_are_refused():
    """A NaN score has no tie count (NaN equals nothing, not even the gold item's own score);
    it is the same error as for the ranks, naming the query."""
    s = _scores()
    s[3, 0] = np.nan
    with pytest.raises(DataError, match="query 3: scores contain NaN"):
        gold_ties_from_scores(s)
