"""From a captions JSON in Karpathy's format and vectors files to the all-captions table:
``kcca reproduce --corpus FILE.json --protocol all-captions`` and ``kcca evaluate --protocol
all-captions``. The figures of a worked example (the whole pool and five folds, as COCO's 5K and
1K) equal SCAN's evaluation code on the scores of the system's own ranking."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kcca._cache import Cache
from kcca._cli import main
from kcca.data._json_splits import load_json_splits
from kcca._evaluate import protocol_ranks as PR
from kcca._borda import borda_from_scores
from kcca._systems import Workspace, load_spec, run_system
from kcca._systems.config import RunConfig
from tests.support.planted_vectors import plant_vectors, vectors_experiment
from tests.support.retrieval_oracles import scan_evalrank

from tests.support.karpathy_corpus import FOLD, N_TEST, karpathy_json


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """One CLI run on the JSON corpus with planted vectors, folds of five test images."""
    root = tmp_path_factory.mktemp("karpathy")
    corpus_file = karpathy_json(root / "dataset_coco.json")
    corpus = load_json_splits(corpus_file)
    experiments = root / "experiments"
    experiments.mkdir()
    images, captions = plant_vectors(corpus, experiments)  # inside the experiments folder
    (experiments / "vec.toml").write_text(
        vectors_experiment(images.as_posix(), captions.as_posix(), '"geometric:5:6"'),
        encoding="utf-8",
    )
    out = root / "out"
    args = [
        "--quiet",
        "--cache-dir",
        str(root / "cache"),
        "reproduce",
        "--corpus",
        str(corpus_file),
        "--experiments",
        str(experiments),
        "--systems",
        "VEC",
        "--tables",
        "11",
        "--protocol",
        "all-captions",
        "--no-plots",
        "--out",
        str(out),
    ]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(PR, "FOLD_SIZE", FOLD)
        assert main(args) == 0
    return {"root": root, "corpus": corpus, "experiments": experiments, "out": out}


@pytest.mark.data_variables
def test_the_run_writes_the_ranks_and_the_table(run):
    out = run["out"]
    ranks = PR.read_protocol_ranks(out / "rankings" / "VEC.all-captions.json")
    assert ranks.corpus == "coco" and ranks.images == run["corpus"].split("test")
    assert sorted(ranks.pools) == [1, 5]
    md = (out / "all-captions.md").read_text()
    assert "| VEC | all-captions 25 images |" in md
    assert "| VEC | all-captions 5 images (mean of 5 folds) |" in md
    assert "protocol: all-captions" in md  # the run's settings line
    table11 = (out / "table11.md").read_text()
    assert "data: coco (train 60, dev 15, test 25)" in table11
    assert "\n| VEC | " in table11  # a system outside the paper after its 30 (paper's protocol)


def test_evaluate_prints_the_figures_of_scans_code(run, capsys):
    """``kcca evaluate --protocol all-captions`` on the rankings file: the figures equal SCAN's
    ``evalrank`` (whole pool; ``fold5``) on the system's Borda positions as scores, each pool
    ranked here from the chosen models' projections."""
    capsys.readouterr()
    rankings = run["out"] / "rankings" / "VEC.json"
    assert main(["evaluate", "--protocol", "all-captions", "--format", "json", str(rankings)]) == 0
    rows = json.loads(capsys.readouterr().out)["systems"]
    assert [r["protocol"] for r in rows] == [
        "all-captions 25 images",
        "all-captions 5 images (mean of 5 folds)",
    ]
    corpus = run["corpus"]
    spec = load_spec(run["experiments"] / "vec.toml")
    ws = Workspace(corpus, Cache(run["root"] / "cache"), RunConfig.of(progress=False))
    models = run_system(corpus, spec, workspace=ws, keep_models=True).models
    x_all = models.project_x(ws.image_blocks(spec.image_kernel).test)
    rows_of = ws.all_caption_rows(spec.text_kernel, spec.preprocessing, spec.word_kernel)
    y_all = models.project_y(np.asarray(rows_of.rows))
    for row, fold5 in zip(rows, (False, True)):
        annotation = np.zeros((N_TEST, 5 * N_TEST))
        search = np.zeros((5 * N_TEST, N_TEST))
        size = FOLD if fold5 else N_TEST
        for lo in range(0, N_TEST, size):
            img, cap = slice(lo, lo + size), slice(5 * lo, 5 * (lo + size))
            x = {k: v[img] for k, v in x_all.items()}
            y = {k: v[cap] for k, v in y_all.items()}
            annotation[img, cap] = _borda_positions_as_scores(models, "annotation", x, y)
            search[cap, img] = _borda_positions_as_scores(models, "search", y, x)
        i2t = scan_evalrank(annotation, fold5)["i2t"]
        t2i = scan_evalrank(search.T, fold5)["t2i"]
        ours_i2t = [row[f"i2t {c}"] for c in ("R@1", "R@5", "R@10", "med r", "mean r")]
        ours_t2i = [row[f"t2i {c}"] for c in ("R@1", "R@5", "R@10", "med r", "mean r")]
        assert ours_i2t == pytest.approx(list(i2t))
        assert ours_t2i == pytest.approx(list(t2i))
        assert row["rsum"] == pytest.approx(sum(i2t[:3]) + sum(t2i[:3]))
    # far above chance: planted vectors
    assert rows[0]["i2t R@10"] > 80 and rows[0]["t2i R@10"] > 80


def _borda_positions_as_scores(models, task: str, queries: dict, candidates: dict) -> np.ndarray:
    """``N - position`` of each candidate in the Borda ranking (Section 4.1.3) of the chosen
    models' scores of each query, with a loop."""
    ranking = borda_from_scores(models.scores(task, queries, candidates)).ranking
    scores = np.zeros(ranking.shape)
    for q, row in enumerate(ranking):
        for position, candidate in enumerate(row):
            scores[q, candidate] = len(row) - position
    return scores


def test_text_and_csv_and_the_faults_of_evaluate(run, capsys, tmp_path):
    rankings = run["out"] / "rankings" / "VEC.json"
    assert main(["evaluate", "--protocol", "all-captions", str(rankings)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("All-captions retrieval protocol") and "VEC" in text
    assert main(["evaluate", "--protocol", "all-captions", "--format", "csv", str(rankings)]) == 0
    assert capsys.readouterr().out.startswith("system,protocol,i2t R@1,")
    assert main(["evaluate", "--protocol", "all-captions", "--compare", str(rankings)]) == 2
    err = capsys.readouterr().err
    assert "error: --compare belong to the paper's protocol" in err and "fix: drop --compare" in err
    lonely = tmp_path / "OTHER.json"
    lonely.write_text("{}")
    assert main(["evaluate", "--protocol", "all-captions", str(lonely)]) == 2
    err = capsys.readouterr().err
    assert f"no all-captions ranks beside {lonely}" in err and "--protocol all-captions" in err


@pytest.mark.data_variables
def test_a_later_run_under_the_papers_protocol_drops_the_table(run, capsys):
    """Rerun under the paper's protocol: its rankings replace the file beside them, so the
    all-captions ranks of the earlier run go and no all-captions table is written."""
    out = run["out"]
    args = [
        "--quiet",
        "--cache-dir",
        str(run["root"] / "cache"),
        "reproduce",
        "--corpus",
        str(run["root"] / "dataset_coco.json"),
        "--experiments",
        str(run["experiments"]),
        "--systems",
        "VEC",
        "--tables",
        "11",
        "--no-plots",
        "--force",
        "--out",
        str(out / "again"),
        "--rankings-dir",
        str(out / "rankings"),
    ]
    assert main(args) == 0
    assert not (out / "rankings" / "VEC.all-captions.json").exists()
    assert not (out / "again" / "all-captions.md").exists()
    # the same --out: the earlier run's all-captions tables go, a file of someone else stays
    (out / "all-captions.csv").write_text("not a table of ours\n")
    again = [a if a != str(out / "again") else str(out) for a in args]
    assert main(again) == 0
    assert not (out / "all-captions.md").exists()
    assert (out / "all-captions.csv").read_text() == "not a table of ours\n"


def test_corpus_flags_are_checked(tmp_path, capsys):
    base = ["reproduce", "--out", str(tmp_path / "o"), "--systems", "BoW5"]
    assert main([*base, "--images-dir", str(tmp_path)]) == 2
    assert "--images-dir names the image folder of a JSON split file" in capsys.readouterr().err
    assert main([*base, "--corpus", "coco"]) == 2
    assert "--corpus coco: use flickr8k or a JSON split file" in capsys.readouterr().err
    assert main([*base, "--corpus", "x.json", "--splits", str(tmp_path)]) == 2
    assert "a JSON split file carries its own splits" in capsys.readouterr().err
    assert main([*base, "--tables-only", "--protocol", "all-captions"]) == 2
    assert "--tables-only runs no system, so --protocol" in capsys.readouterr().err
