"""The files of a rankings folder: the one finder of results files (and the choice of one per
system that the paper's report makes from it), and the run details beside them."""

import json
import os

import numpy as np
import pytest

from kcca.data._errors import DataError
from kcca._evaluate.compact import compact_path, from_rankings, write_compact
from kcca._evaluate.paper_systems import SECTION4_NAMES, SYSTEMS, paper_name
from kcca._evaluate.rankings_io import Rankings, write_rankings
from kcca._evaluate.results_files import (DETAILS_FILE, RANKINGS_FOLDER, chosen_text,
                                         find_results, merge_details, read_details)
from kcca._paper.evaluated_systems import results_by_system
from kcca._report.rundir import scan_run_folder

N = 6


def _pool():
    """A pool of N images with one caption each: (image id, caption id, caption)."""
    return [(f"img{i}.jpg", f"img{i}.jpg#0", f"caption {i}") for i in range(N)]


def _tasks(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {t: np.argsort(rng.random((N, N)), axis=1) for t in ("annotation", "search")}


def _rankings(path, system: str, seed: int = 0):
    return write_rankings(path, _pool(), _tasks(seed), system=system, corpus="demo")


def _compact(path, system: str, seed: int = 0):
    rankings = Rankings(system, "test", _tasks(seed), str(path))
    return write_compact(path, from_rankings(rankings, _pool(), corpus="demo"))


@pytest.fixture
def run_folder(tmp_path):
    """A run folder: a demo-style rankings file at its top, rankings files in ``rankings/``
    (one with its compact file beside it, one system with a compact file only), and files that
    are not results (details.json, another JSON)."""
    ranks = tmp_path / RANKINGS_FOLDER
    ranks.mkdir()
    _rankings(tmp_path / "rankings_BoW1.json", "BoW1")
    _rankings(ranks / "TRI5.json", "TRI5")
    _compact(compact_path(ranks / "TRI5.json"), "TRI5")
    _rankings(ranks / "BoW5.json", "BoW5")
    _compact(ranks / "TAGRANK.ranks.npz", "TAGRANK")
    merge_details(ranks, [{"system": "BoW5", "chosen": {"p": 2.0, "d": 3.0}}])
    (ranks / "notes.json").write_text(json.dumps({"format": "something else"}))
    return tmp_path


def test_find_results_lists_each_folder_in_turn_sorted_by_path(run_folder):
    ranks = run_folder / RANKINGS_FOLDER
    found = find_results(run_folder, ranks)
    assert [f.path for f in found] == [run_folder / "rankings_BoW1.json", ranks / "BoW5.json",
                                       ranks / "TAGRANK.ranks.npz", ranks / "TRI5.json"]
    assert [f.system for f in found] == ["BoW1", "BoW5", "TAGRANK", "TRI5"]
    assert [f.is_compact for f in found] == [False, False, True, False]
    # a rankings file's compact file is kept beside it, not listed on its own
    assert found[3].compact == ranks / "TRI5.ranks.npz"
    assert {f.corpus for f in found} == {"demo"} and {f.split for f in found} == {"test"}
    # one folder at a time: the top folder alone, the rankings folder alone
    assert find_results(run_folder) == found[:1]
    assert find_results(ranks) == found[1:]
    assert find_results() == []


def test_the_run_folder_scan_uses_the_same_finder(run_folder):
    assert scan_run_folder(run_folder).rankings == find_results(
        run_folder, run_folder / RANKINGS_FOLDER)


def test_a_damaged_compact_file_is_an_error_unless_tolerant(run_folder):
    ranks = run_folder / RANKINGS_FOLDER
    (ranks / "BoW1.ranks.npz").write_bytes(b"not a zip file")
    with pytest.raises(DataError, match="BoW1.ranks.npz"):
        find_results(ranks)
    damaged = [f for f in find_results(ranks, tolerant=True) if f.path.name == "BoW1.ranks.npz"]
    assert [(f.system, f.corpus, f.split, f.is_compact) for f in damaged] == [
        ("BoW1", "flickr8k", "test", True)]


def test_the_report_takes_one_results_file_per_system(run_folder):
    ranks = run_folder / RANKINGS_FOLDER
    assert results_by_system(ranks) == {"BoW5": ranks / "BoW5.json",
                                        "TAGRANK": ranks / "TAGRANK.ranks.npz",
                                        "TRI5": ranks / "TRI5.json"}


def test_the_newer_of_two_rankings_files_of_one_system_wins(tmp_path):
    older = _rankings(tmp_path / "a_sem.json", "TRI5SEM")
    newer = _rankings(tmp_path / "b_sem.json", SECTION4_NAMES["TRI5SEM"], seed=1)
    os.utime(older, (1_000_000, 1_000_000))
    _compact(tmp_path / "c_sem.ranks.npz", "TRI5SEM")  # a rankings file is there: not used
    assert results_by_system(tmp_path) == {SECTION4_NAMES["TRI5SEM"]: newer}
    os.utime(older, None)
    os.utime(newer, (1_000_000, 1_000_000))
    assert results_by_system(tmp_path) == {SECTION4_NAMES["TRI5SEM"]: older}


def test_merged_details_replace_by_system_in_the_papers_order(tmp_path):
    merge_details(tmp_path, [{"system": "mine", "chosen": {"p": 1.0, "d": 1.0}},
                             {"system": "TRI5", "chosen": {"p": 3.0, "d": 1.0}},
                             {"system": "NN", "chosen": {"text_kernel": {"name": "bow"}}}])
    merge_details(tmp_path, [{"system": "TRI5", "chosen": {"p": 2.0, "d": 8.0}},
                             {"system": "BoW1", "chosen": {"p": 2.0, "d": 1.0}},
                             {"system": "another", "chosen": {}}])
    data = json.loads((tmp_path / DETAILS_FILE).read_text())
    assert [d["system"] for d in data] == ["NN", "BoW1", "TRI5", "another", "mine"]
    assert [SYSTEMS.index(paper_name(d["system"])) for d in data[:3]] == sorted(
        SYSTEMS.index(paper_name(d["system"])) for d in data[:3])
    details = read_details(tmp_path)
    assert set(details) == {"NN5_F1^idf", "BoW1", "TRI5", "another", "mine"}
    assert details["TRI5"]["chosen"] == {"p": 2.0, "d": 8.0}
    assert not list(tmp_path.glob("*.tmp"))


def test_unreadable_or_absent_details_read_as_none(tmp_path):
    assert read_details(tmp_path) == {}
    (tmp_path / DETAILS_FILE).write_text("[{")
    assert read_details(tmp_path) == {}
    (tmp_path / DETAILS_FILE).write_text(json.dumps({"system": "BoW5"}))  # not a list
    assert read_details(tmp_path) == {}


def test_chosen_text_names_the_settings_chosen_on_dev():
    assert chosen_text({"p": 2.0, "d": 3.0}) == "p=2, d=3"
    assert chosen_text({"text_kernel": {"name": "nn-f1", "params": {"idf": True}}}) == (
        "NN, text kernel nn-f1 {'idf': True}")
    assert chosen_text({"text_kernel": {"name": "bow"}}) == "NN, text kernel bow"
    assert chosen_text(None) == chosen_text({}) == ""
