"""An all-captions ranks file that disagrees with the rankings file beside it is refused by
``kcca evaluate --protocol all-captions`` and ``kcca report``, naming both files: every rank
set to 1 (before: rsum 600 printed), the file of another run, a forged system name. Both
files rank caption #2 of each test image against the same images, so its image search rank
must be the same in both (kcca._evaluate.protocol_agreement)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from kcca._cli import main
from kcca._evaluate.compact import from_rankings, write_compact
from kcca._evaluate.original import rankings_from_scores
from kcca._evaluate.protocol_ranks import (
    ProtocolRanks,
    protocol_ranks_path,
    read_protocol_ranks,
    write_protocol_ranks,
)
from kcca._evaluate.rankings_io import read_rankings, write_rankings
from kcca._evaluate.retrieval_protocol import annotation_ranks, search_ranks
from tests.support.named_errors import one_error
from tests.support.report_runs import tiny_corpus

DISAGREES = "disagrees with the results file beside it"


@pytest.fixture(scope="module")
def corpus():
    return tiny_corpus()


def write_system(folder: Path, corpus, system: str, seed: int) -> tuple[Path, Path]:
    """A run's two files of ``system`` from one random score matrix over every test image
    and its first five captions: the rankings file of the paper's pool (caption #2 of each
    image) and the all-captions ranks file beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    pool = corpus.pool("test")
    n = len(pool)
    rng = np.random.default_rng(seed)
    annotation = rng.normal(size=(n, 5 * n)) + 2.0 * np.repeat(np.eye(n), 5, axis=1)
    search = rng.normal(size=(5 * n, n)) + 2.0 * np.repeat(np.eye(n), 5, axis=0)
    tasks = {
        "annotation": rankings_from_scores(annotation[:, 2::5]),
        "search": rankings_from_scores(search[2::5]),
    }
    rankings = write_rankings(
        folder / f"{system}.json", pool, tasks, system=system, corpus=corpus.name
    )
    images = tuple(corpus.split("test"))
    ranks = ProtocolRanks(
        system, corpus.name, "test", images, 5, "reversed-argsort",
        {1: [(annotation_ranks(annotation), search_ranks(search))]},
    )
    return rankings, write_protocol_ranks(protocol_ranks_path(rankings), ranks)


def edit(path: Path, change) -> None:
    """Apply ``change`` to the JSON document in ``path``."""
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


def every_rank_one(doc: dict) -> None:
    for pool in doc["pools"]:
        for fold in pool["folds"]:
            fold["annotation"] = [1] * len(fold["annotation"])
            fold["search"] = [1] * len(fold["search"])


def evaluate(capsys, *files: Path) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["evaluate", "--protocol", "all-captions", "--format", "json", *map(str, files)])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_files_of_one_run_are_evaluated(tmp_path, corpus, capsys):
    rankings, ranks = write_system(tmp_path / "rankings", corpus, "BoW5", seed=0)
    for given in (rankings, ranks):
        code, out, err = evaluate(capsys, given)
        assert code == 0, err
        assert json.loads(out)["systems"][0]["rsum"] < 600


def test_every_rank_set_to_1_is_refused_naming_both_files(tmp_path, corpus, capsys):
    """Before: exit 0 and rsum 600."""
    rankings, ranks = write_system(tmp_path / "rankings", corpus, "BoW5", seed=0)
    edit(ranks, every_rank_one)
    for given in (rankings, ranks):
        code, out, err = evaluate(capsys, given)
        error, fix = one_error(err)
        assert code == 2 and not out
        assert error.startswith(f"{ranks} {DISAGREES}, {rankings}: caption '"), error
        assert "ranks its image 1 in the all-captions pool but" in error, error
        assert "--systems BoW5 --protocol all-captions" in fix, fix


def test_the_ranks_of_another_run_are_refused(tmp_path, corpus, capsys):
    """Another run of the same system on the same images (another score matrix): before,
    its figures were printed as this run's."""
    rankings, ranks = write_system(tmp_path / "rankings", corpus, "BoW5", seed=0)
    _, other = write_system(tmp_path / "other", corpus, "BoW5", seed=1)
    ranks.write_bytes(other.read_bytes())
    code, _, err = evaluate(capsys, rankings)
    error, _ = one_error(err)
    assert code == 2
    assert error.startswith(f"{ranks} {DISAGREES}, {rankings}: caption '"), error


def test_a_forged_system_name_is_refused(tmp_path, corpus, capsys):
    rankings, ranks = write_system(tmp_path / "rankings", corpus, "BoW5", seed=0)
    edit(ranks, lambda doc: doc.update(system="TRI5"))
    code, _, err = evaluate(capsys, ranks)
    error, _ = one_error(err)
    assert code == 2
    assert error == (
        f"{ranks} {DISAGREES}, {rankings}: the ranks are of system 'TRI5', the results of "
        "'BoW5'; the two come from different runs, or one was changed"
    )


def test_other_test_images_are_refused(tmp_path, corpus, capsys):
    rankings, ranks = write_system(tmp_path / "rankings", corpus, "BoW5", seed=0)
    edit(ranks, lambda doc: doc.update(images=doc["images"][::-1]))
    code, _, err = evaluate(capsys, rankings)
    error, _ = one_error(err)
    assert code == 2
    assert error.startswith(f"{ranks} {DISAGREES}, {rankings}: test image 1 of the pool is")


def test_a_compact_results_file_is_checked_as_the_rankings_file(tmp_path, corpus, capsys):
    rankings, ranks = write_system(tmp_path / "rankings", corpus, "BoW5", seed=0)
    pool = corpus.pool("test")
    compact = write_compact(
        rankings.with_name("BoW5.ranks.npz"),
        from_rankings(read_rankings(rankings, pool), pool, corpus=corpus.name),
    )
    rankings.unlink()
    assert evaluate(capsys, ranks)[0] == 0
    edit(ranks, every_rank_one)
    code, _, err = evaluate(capsys, ranks)
    error, _ = one_error(err)
    assert code == 2
    assert error.startswith(f"{ranks} {DISAGREES}, {compact}: caption '"), error


def test_kcca_report_refuses_ranks_that_disagree(tmp_path, corpus, capsys):
    """Before: the report showed rsum 600 for the system."""
    rankings, ranks = write_system(tmp_path / "run" / "rankings", corpus, "BoW5", seed=0)
    assert read_protocol_ranks(ranks).system == "BoW5"
    edit(ranks, every_rank_one)
    code = main(["report", str(tmp_path / "run"), "-o", str(tmp_path / "out"), "--quiet"])
    error, _ = one_error(capsys.readouterr().err)
    assert code == 2
    assert error.startswith(f"{ranks} {DISAGREES}, {rankings}: caption '"), error
