"""``kcca reproduce`` on a small Flickr 8K-shaped folder made from the demo corpus: a local
run, ``--tables-only`` from its rankings, and the same systems on a Dask LocalCluster."""

from __future__ import annotations

import csv
import importlib.util
import json
import re
from pathlib import Path

import pytest

from kcca._backend import gpu_available
from tests.support.flickr_like import GRID, IMAGES, SPEC, write_flickr_like
from tests.support.optional_tools import skip_unless


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("repro")
    write_flickr_like(root / "data")
    exp = root / "exp"
    exp.mkdir()
    (exp / "01-nn.toml").write_text(SPEC.format(name="NN5_F1^idf", short="NN", model="nn",
                                                text="nn-f1", params="params = {idf = true}",
                                                grid=""))
    (exp / "02-bow5.toml").write_text(SPEC.format(name="BoW5", short="BoW5", model="kcca",
                                                  text="bow", params="", grid=GRID))
    from kcca._cli import main

    out = root / "out"
    rc = main(_args(root, out, root / "cache"))
    assert rc == 0
    return out


def _args(root: Path, out: Path, cache: Path) -> list[str]:
    return ["reproduce", "--data-dir", str(root / "data"), "--experiments", str(root / "exp"),
            "--systems", "BoW5", "NN", "--tables", "3,11", "--out", str(out),
            "--cache-dir", str(cache), "--image-config", IMAGES, "--quiet"]


def _ours(path: Path) -> dict:
    with open(path) as f:
        return {(r["system"], r["task"], r["metric"]): r["ours"] for r in csv.DictReader(f)}


@pytest.mark.data_variables
def test_tidy_csv_with_paper_values(run_dir):
    with open(run_dir / "table11.csv") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0])[:6] == ["table", "system", "task", "metric", "ours", "paper"]
    assert [r["system"] for r in rows[::8]] == ["NN5_F1^idf", "BoW5"]  # the paper's order
    bow = {(r["task"], r["metric"]): r for r in rows if r["system"] == "BoW5"}
    assert bow["annotation", "R@1"]["paper"] == "6.2"
    assert bow["search", "median rank"]["paper"] == "60"
    assert 0 <= float(bow["annotation", "R@10"]["ours"]) <= 100
    assert 1 <= float(bow["search", "median rank"]["ours"]) <= 12
    with open(run_dir / "table3.csv") as f:
        t3 = list(csv.DictReader(f))
    assert {r["system"] for r in t3} == {"NN", "BoW5"} and len(t3) == 16


def test_markdown_header_and_rankings(run_dir):
    md = (run_dir / "table3.md").read_text()
    for needle in ("command: `kcca", "data: flickr8k", "date: ", "commit: ", "machine: ",
                   "array backend: " + ("cupy (" if gpu_available() else "numpy"),
                   "chosen on dev", "| BoW5 |", "| NN |", "## Image search"):
        assert needle in md, needle
    assert "p=2, d=" in md
    ranked = sorted((run_dir / "rankings").glob("*.json"))
    assert {p.name for p in ranked} == {"BoW5.json", "NN5_F1_idf.json", "details.json"}
    doc = json.loads((run_dir / "rankings" / "BoW5.json").read_text())
    assert doc["format"] == "kcca-rankings" and len(doc["tasks"]["search"]["rankings"]) == 12


def test_unknown_table_or_system_is_a_clear_error(tmp_path, capsys):
    from kcca._cli import main

    assert main(["reproduce", "--tables", "13", "--data-dir", str(tmp_path)]) == 2
    assert "table '13'" in capsys.readouterr().err
    # --out away from the committed results: their folder is refused while the checkout has
    # uncommitted changes, before the systems are read
    assert main(["reproduce", "--systems", "NOPE", "--data-dir", str(tmp_path),
                 "--out", str(tmp_path / "out")]) == 2
    assert "unknown system 'NOPE'" in capsys.readouterr().err


@pytest.mark.skipif(gpu_available(), reason="checks the error without a GPU")
def test_cupy_backend_without_a_gpu_is_a_clear_error(run_dir, tmp_path, capsys):
    from kcca._cli import main

    root = run_dir.parent
    assert main(_args(root, tmp_path / "out", tmp_path / "cache") + ["--backend", "cupy"]) == 2
    err = capsys.readouterr().err
    assert "backend 'cupy' requested but no CUDA device" in err and "backend auto / numpy" in err


@pytest.mark.data_variables
def test_tables_only_rebuilds_every_table_from_the_rankings(run_dir, tmp_path):
    from kcca._cli import main

    out = tmp_path / "tables"
    rc = main(["reproduce", "--tables-only", "--data-dir", str(run_dir.parent / "data"),
               "--rankings-dir", str(run_dir / "rankings"), "--out", str(out),
               "--samples", "500", "--quiet"])
    assert rc == 0
    for t in range(1, 13):
        assert (out / f"table{t}.md").is_file() and (out / f"table{t}.csv").is_file(), t
    assert (out / "recall_at_k.png").is_file() and (out / "table6_heatmap.png").is_file()
    assert _ours(out / "table11.csv") == _ours(run_dir / "table11.csv")
    md = (out / "table3.md").read_text()
    assert "--tables-only" in md and ": BoW5" in md and "not run (empty): BoW1" in md
    assert "run by: `kcca " in md


@pytest.mark.data_variables
def test_systems_on_a_dask_cluster(run_dir, tmp_path):
    skip_unless(importlib.util.find_spec("distributed") is not None,
                "dask.distributed absent (extra 'dask')")
    from distributed import LocalCluster

    from kcca._cli import main

    root = run_dir.parent
    out = tmp_path / "dask"
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                      host="127.0.0.1", dashboard_address=None) as cluster:
        rc = main(_args(root, out, tmp_path / "cache")
                  + ["--scheduler", cluster.scheduler_address])
    assert rc == 0
    assert _ours(out / "table11.csv") == _ours(run_dir / "table11.csv")
    assert {p.name for p in (out / "rankings").glob("*.json")} == {
        "BoW5.json", "NN5_F1_idf.json", "details.json"}
    details = json.loads((out / "rankings" / "details.json").read_text())
    assert {d["system"] for d in details} == {"BoW5", "NN5_F1^idf"}
    # the image kernel's KCCA factor went to the disk cache (stage kernel-factor), for p = 2
    from kcca._cache_entry import check_entry

    factors = [check_entry(f)["config"]
               for f in (tmp_path / "cache" / "kernel-factor").glob("*.entry")]
    assert [(f["view"], f["factor"][1]) for f in factors] == [("Kx", 2.0)]
    assert all(d["scheduler"] == cluster.scheduler_address for d in details)
    assert "on the Dask cluster" in (out / "table3.md").read_text()


@pytest.mark.data_variables
def test_prints_stage_timings(run_dir, tmp_path, capsys):
    """Every system's line names its stages, and the run ends with their totals (cached rerun)."""
    from kcca._cli import main

    root = run_dir.parent
    capsys.readouterr()
    assert main(_args(root, tmp_path / "again", root / "cache")) == 0
    # a line wider than 100 columns goes on in lines indented by four spaces: joined here
    err = re.sub(r"\n    ", " ", capsys.readouterr().err)
    line = next(ln for ln in err.splitlines() if ln.startswith("BoW5"))
    assert "[image kernel " in line and "dev grid " in line and "test rankings " in line
    total = next(ln for ln in err.splitlines() if ln.startswith("stage timings over 2 system(s)"))
    assert "text kernel" in total and "evaluation" in total and "total " in total


@pytest.mark.slow
@pytest.mark.data_variables
def test_systems_on_local_worker_processes(run_dir, tmp_path, capsys):
    """``--jobs 2`` runs the systems in two joblib workers: same tables as one after the other."""
    from kcca._cli import main

    root = run_dir.parent
    out = tmp_path / "jobs"
    capsys.readouterr()
    assert main(_args(root, out, tmp_path / "cache") + ["--jobs", "2"]) == 0
    err = capsys.readouterr().err
    assert "on 2 worker processes" in err
    assert _ours(out / "table11.csv") == _ours(run_dir / "table11.csv")
    details = json.loads((out / "rankings" / "details.json").read_text())
    assert {d["system"] for d in details} == {"BoW5", "NN5_F1^idf"}


def test_tables_only_reads_the_systems_named(tmp_path, monkeypatch, capsys):
    """``--tables-only --systems``: the tables of those systems only (short or paper names,
    through --experiments' files); a system without results in the folder is named."""
    from kcca._cli import main

    monkeypatch.delenv("KCCA_DATA_DIR", raising=False)
    rankings = Path(__file__).resolve().parents[3] / "results" / "hodosh2013" / "rankings"
    common = ["reproduce", "--tables-only", "--rankings-dir", str(rankings), "--tables", "3",
              "--samples", "10", "--no-plots", "--quiet"]
    assert main([*common, "--systems", "BoW5", "TRI5SEM", "--out", str(tmp_path / "two")]) == 0
    rows = {line.split(" | ")[0].lstrip("| ") for line in
            (tmp_path / "two" / "table3.md").read_text().splitlines() if line.startswith("| ")}
    assert {"BoW5", "TRI5SEM"} <= rows and "TRI5" not in rows and "BoW1" not in rows
    assert main([*common, "--out", str(tmp_path / "all")]) == 0
    rows_all = {line.split(" | ")[0].lstrip("| ") for line in
                (tmp_path / "all" / "table3.md").read_text().splitlines()
                if line.startswith("| ")}
    assert {"TRI5", "BoW1"} <= rows_all
    capsys.readouterr()
    empty = tmp_path / "empty-rankings"
    empty.mkdir()
    code = main(["reproduce", "--tables-only", "--rankings-dir", str(empty), "--systems", "BoW5",
                 "--tables", "3", "--out", str(tmp_path / "none"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "holds no results of BoW5" in err and "fix: " in err
