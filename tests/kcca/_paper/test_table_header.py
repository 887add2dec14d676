"""The tables' header (kcca._paper.header): provenance, then the run's lines generated from its
RunConfig, or the lines of a rebuild from rankings files."""

from __future__ import annotations

from kcca.data._demo import make_demo_corpus
from kcca._paper.header import rebuild_lines, run_lines, table_header
from kcca._systems.config import RunConfig


def test_a_runs_lines_come_from_its_configuration():
    config = RunConfig.of(seed=3, precision=1e-6, scheduler="tcp://h:8786", executor="dask")
    lines = run_lines(config, ["BoW5", "TRI5"], 2.04, failed=["TRI5"], grid={"p": [2.0]})
    assert lines[0] == config.header() + "; grid overridden: p=[2.0], d=file"
    assert lines[0].startswith("seed: 3; array backend: ") and "solver precision: 1e-06" in lines[0]
    assert lines[1] == ("this run: BoW5, TRI5 on the Dask cluster tcp://h:8786, 2.0 min; "
                        "FAILED: TRI5")
    plain = run_lines(RunConfig.of(seed=0), ["BoW5"], 0.5)
    assert plain == [RunConfig.of(seed=0).header(), "this run: BoW5, 0.5 min"]


def test_the_header_names_command_data_date_commit_and_machine():
    corpus = make_demo_corpus(n_train=12, n_dev=4, n_test=4, image_size=32, seed=0)
    head = table_header("kcca reproduce --x", corpus, ["run line"], splits="my-splits")
    keys = [line.split(":", 1)[0] for line in head[:5]]
    assert keys == ["command", "data", "date", "commit", "machine"]
    assert head[0] == "command: `kcca reproduce --x`"
    assert head[1] == f"data: {corpus.name} (train 12, dev 4, test 4, splits from my-splits)"
    assert head[-1] == "run line"
    bare = table_header("kcca reproduce", None, rebuild_lines(with_corpus=False))
    assert bare[1] == "data: none at hand (compact results files only)"
    assert bare[5].startswith("mode: --tables-only") and bare[6].startswith("no corpus data")
    assert len(rebuild_lines(with_corpus=True)) == 1
