"""The all-captions ranks file (kcca._evaluate.protocol_ranks) and its table
(kcca._evaluate.protocol_table): exact round trip, every fault named, a stale file of an earlier
run removed and nothing else, the figures those of the protocol."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from kcca.errors import DataError
from kcca._evaluate import protocol_ranks as PR
from kcca._evaluate.protocol_table import (
    COLUMNS,
    protocol_csv,
    protocol_markdown,
    protocol_rows,
    protocol_text,
    ranks_beside,
)
from kcca._evaluate.retrieval_protocol import retrieval_protocol


def _ranks(n_images=20, n_folds=(1, 4), seed=0) -> PR.ProtocolRanks:
    """Ranks of a random similarity matrix, computed by the protocol itself per pool."""
    from kcca._evaluate.retrieval_protocol import annotation_ranks, fold_slices, search_ranks

    rng = np.random.default_rng(seed)
    sims = rng.normal(size=(n_images, 5 * n_images))
    pools = {}
    for n in n_folds:
        folds = []
        for f in fold_slices(n_images, n):
            s = sims[f, 5 * f.start : 5 * f.stop]
            folds.append((annotation_ranks(s), search_ranks(s.T)))
        pools[n] = folds
    images = tuple(f"img{i}.jpg" for i in range(n_images))
    return PR.ProtocolRanks("BoW5", "demo", "test", images, 5, "reversed-argsort", pools), sims


def test_round_trip_and_figures(tmp_path):
    ranks, sims = _ranks()
    path = PR.write_protocol_ranks(tmp_path / "BoW5.all-captions.json", ranks)
    back = PR.read_protocol_ranks(path)
    assert back.images == ranks.images and back.system == "BoW5"
    for n in (1, 4):
        for (a, s), (a2, s2) in zip(ranks.pools[n], back.pools[n]):
            np.testing.assert_array_equal(a, a2)
            np.testing.assert_array_equal(s, s2)
    whole, folds = back.results()
    assert whole == retrieval_protocol(sims)
    assert folds == retrieval_protocol(sims, n_folds=4)
    assert folds.protocol == "all-captions 5 images (mean of 4 folds)"


def test_paths_and_pools():
    assert PR.protocol_ranks_path("r/BoW5.json") == Path("r/BoW5.all-captions.json")
    assert PR.protocol_ranks_path("r/BoW5.ranks.npz") == Path("r/BoW5.all-captions.json")
    assert PR.protocol_ranks_path("r/BoW5.all-captions.json") == Path("r/BoW5.all-captions.json")
    assert PR.pool_fold_counts(1000) == (1,)
    assert PR.pool_fold_counts(5000) == (1, 5)
    assert PR.pool_fold_counts(1014) == (1,)
    assert PR.pool_fold_counts(40, 10) == (1, 4)


def _doc(tmp_path) -> dict:
    ranks, _ = _ranks()
    path = PR.write_protocol_ranks(tmp_path / "x.all-captions.json", ranks)
    return json.loads(path.read_text())


def _corrupt(doc: dict, where: str, value) -> dict:
    node = doc
    keys = where.split(".")
    for k in keys[:-1]:
        node = node[int(k)] if isinstance(node, list) else node[k]
    last = keys[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return doc


@pytest.mark.parametrize(
    "where, value, message",
    [
        ("format", "kcca-rankings", "not an all-captions ranks file"),
        ("version", 2, "unsupported version 2"),
        ("ties", "random", "unknown tie rule 'random'"),
        ("captions_per_image", 0, "captions_per_image must be a positive integer"),
        ("captions_per_image", True, "captions_per_image must be a positive integer"),
        ("images", [], "'images' must be a non-empty list"),
        ("images.1", "img0.jpg", "lists an image id twice"),
        ("pools", [], "'pools' must be a non-empty list"),
        ("pools.1.n_folds", 3, r"pools\[1\]: 20 images do not divide into 3"),
        ("pools.1", "a copy of pools[0]", "a second pool of 1 fold"),
        ("pools.0.folds", [], r"pools\[0\].folds must be a list of 1 fold"),
        ("pools.0.folds.0.annotation", [1] * 19, r"annotation must be a list of 20 ranks"),
        ("pools.0.folds.0.search.7", 101, r"search\[7\] = 101 is not a rank in 1..20"),
        ("pools.0.folds.0.search.7", 0, r"search\[7\] = 0 is not a rank in 1..20"),
        ("pools.0.folds.0.search.7", 10**400, r"search\[7\] = 1000.* is not a rank"),
        ("pools.0.folds.0.search.7", 2.0, "must hold integers only"),
        (
            "pools.1.folds.3.annotation.0",
            26,
            r"folds\[3\].annotation\[0\] = 26 is not a rank in 1..25",
        ),
        ("system", None, "'system' must be a string"),
    ],
)
def test_every_fault_is_named(tmp_path, where, value, message):
    doc = _doc(tmp_path)
    if value == "a copy of pools[0]":
        value = doc["pools"][0]
    doc = _corrupt(doc, where, value)
    path = tmp_path / "bad.all-captions.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(DataError, match=message) as err:
        PR.read_protocol_ranks(path)
    assert str(path) in str(err.value)
    system = "SYSTEM" if where == "system" else "BoW5"  # the file's own name, when it has one
    assert f"kcca reproduce --systems {system} --protocol all-captions" in err.value.fix


def test_unreadable_and_not_json(tmp_path):
    with pytest.raises(DataError, match="cannot read the all-captions ranks file"):
        PR.read_protocol_ranks(tmp_path / "missing.all-captions.json")
    bad = tmp_path / "bad.all-captions.json"
    bad.write_text("{not json")
    with pytest.raises(DataError, match="bad.all-captions.json"):
        PR.read_protocol_ranks(bad)


def test_writer_refuses_what_the_reader_refuses(tmp_path):
    ranks, _ = _ranks()
    wrong = PR.ProtocolRanks(
        ranks.system, ranks.corpus, ranks.split, ranks.images[:-1], 5, ranks.ties, ranks.pools
    )
    with pytest.raises(DataError):
        PR.write_protocol_ranks(tmp_path / "w.all-captions.json", wrong)
    assert not (tmp_path / "w.all-captions.json").exists()


def test_a_run_under_the_papers_protocol_removes_its_earlier_file_only(tmp_path):
    """write_all_captions: an earlier run's ranks file goes (its figures would be shown beside
    another run's rankings); a file there that is not one is left alone."""
    from kcca._systems.run import write_all_captions

    ranks, _ = _ranks()
    path = PR.write_protocol_ranks(tmp_path / "BoW5.all-captions.json", ranks)
    write_all_captions(tmp_path / "BoW5.json", "BoW5", None, None)
    assert not path.exists()
    path.write_text('{"mine": true}')
    write_all_captions(tmp_path / "BoW5.json", "BoW5", None, None)
    assert path.read_text() == '{"mine": true}'
    assert PR.remove_protocol_ranks(tmp_path / "none.all-captions.json") is False


def test_table_rows_and_formats(tmp_path):
    ranks, sims = _ranks()
    rows = protocol_rows([("BoW5", ranks)])
    assert [r["protocol"] for r in rows] == [
        "all-captions 20 images",
        "all-captions 5 images (mean of 4 folds)",
    ]
    whole = retrieval_protocol(sims)
    assert rows[0]["i2t R@1"] == whole.annotation.r1
    assert rows[0]["t2i mean r"] == whole.search.mean_rank
    assert rows[0]["rsum"] == whole.rsum
    text = protocol_text(rows)
    lines = text.splitlines()
    assert lines[2:4] == ["image annotation (i2t)", lines[3]]
    assert lines[3].split() == ["system", "protocol", "R@1", "R@5", "R@10", "med", "r", "mean", "r"]
    assert lines[4].split()[-1] == f"{whole.annotation.mean_rank:.1f}"
    assert lines[-2].split()[-1] == f"{whole.rsum:.1f}"
    assert max(map(len, lines)) <= 100
    csv_lines = protocol_csv(rows).splitlines()
    assert csv_lines[0] == ",".join(COLUMNS) and len(csv_lines) == 3
    md = protocol_markdown(rows, ["command: `kcca reproduce`"])
    assert "| BoW5 | all-captions 20 images |" in md and "    command: `kcca reproduce`" in md


def test_the_csv_rounds_every_figure_alike_and_says_so():
    """One rounding for every figure of the CSV, stated in the Markdown table (before: full
    precision, 53.333333333333336 beside 40.0 and 1.0)."""
    import csv as csv_module
    import re

    rows = protocol_rows([("BoW5", _ranks()[0])])
    table = list(csv_module.reader(protocol_csv(rows).splitlines()))
    figures = [cell for row in table[1:] for cell in row[2:]]
    assert figures and all(re.fullmatch(r"\d+\.\d\d", cell) for cell in figures), figures
    assert float(table[1][COLUMNS.index("rsum")]) == round(rows[0]["rsum"], 2)
    md = " ".join(protocol_markdown(rows, []).split())
    assert "The CSV gives every figure to 2 decimals" in md


def test_ranks_beside_results_files(tmp_path):
    ranks, _ = _ranks()
    PR.write_protocol_ranks(tmp_path / "BoW5.all-captions.json", ranks)
    found = ranks_beside({"BoW5": tmp_path / "BoW5.json", "TRI5": tmp_path / "TRI5.json"})
    assert [s for s, _ in found] == ["BoW5"]
    with pytest.raises(DataError, match="holds the all-captions ranks of 'BoW5', not of 'TRI5'"):
        ranks_beside({"TRI5": tmp_path / "BoW5.ranks.npz"})


def test_ranks_beside_checks_the_images_and_reads_short_names(tmp_path):
    from kcca._evaluate.paper_systems import paper_name

    ranks, _ = _ranks()
    PR.write_protocol_ranks(tmp_path / "BoW5.all-captions.json", ranks)
    files = {"BoW5": tmp_path / "BoW5.json"}
    assert len(ranks_beside(files, list(ranks.images))) == 1
    with pytest.raises(DataError, match="ranks other test images .* another run") as err:
        ranks_beside(files, list(ranks.images)[::-1])
    assert "--systems BoW5 --protocol all-captions" in err.value.fix
    short = PR.ProtocolRanks("TRI5SEM", *list(vars(ranks).values())[1:])
    PR.write_protocol_ranks(tmp_path / "T.all-captions.json", short)
    assert paper_name("TRI5SEM") != "TRI5SEM"
    assert [s for s, _ in ranks_beside({paper_name("TRI5SEM"): tmp_path / "T.json"})] == [
        paper_name("TRI5SEM")
    ]
