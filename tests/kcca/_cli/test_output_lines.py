"""What the commands print: lines of at most 100 characters (a path longer than that alone on
its line), next steps that run as printed without NLTK data, notes that say only what is true,
fixes that name the command at hand, and numbers without float noise in JSON and CSV."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kcca._cli import main
from kcca._cli.lines import joined_command
from tests.support.demo_model import demo_cache
from tests.support.line_width import assert_lines_fit

REPO = Path(__file__).resolve().parents[3]
COMPACT = REPO / "results" / "hodosh2013" / "rankings"
#: a float written with the noise of binary arithmetic (4.3999999999999995, 16.900000000000002)
NOISE = re.compile(r"\d\.\d*(?:0{6,}|9{6,})\d")


def _kcca(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "kcca", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture
def no_data_env(tmp_path) -> dict[str, str]:
    """A machine without the data and without NLTK data (an empty NLTK folder)."""
    empty = tmp_path / "empty-nltk"
    empty.mkdir()
    return dict(os.environ, KCCA_DATA_DIR="", NLTK_DATA=str(empty), MPLBACKEND="Agg",
                KCCA_CACHE_DIR=str(tmp_path / "cache"))


# ------------------------------------------------------------------ the demo and its next step
@pytest.mark.slow
@pytest.mark.data_variables
def test_demo_next_step_runs_fully_without_nltk_data(tmp_path, no_data_env, capsys):
    """The ``kcca evaluate`` the demo prints gives BLEU/ROUGE with no NLTK data at all."""
    out = tmp_path / ("a-rather-long-folder-name-" * 3) / "out"
    assert main(["--cache-dir", str(tmp_path / "cache"), "demo", "--out", str(out),
                 "--n-train", "60", "--n-dev", "20", "--n-test", "20", "--n-count", "4",
                 "--p", "2", "--d", "1", "--kappas", "1", "--sheet", "2"]) == 0
    captured = capsys.readouterr()
    assert_lines_fit(captured.out + captured.err)
    steps = re.findall(r"next: `(kcca [^`]+)`", captured.out)
    assert steps, captured.out
    for step in steps:
        done = _kcca(joined_command(step)[1:], no_data_env, tmp_path)
        text = done.stdout + done.stderr
        assert "not computed" not in text and "NLTK" not in text, text
        assert re.search(r"^top-1 BLEU +\d", done.stdout, re.M), done.stdout
        assert re.search(r"^top-1 ROUGE +\d", done.stdout, re.M), done.stdout
        assert_lines_fit(text)


def test_demo_stop_words_are_those_of_nltk_the_grammar_writes(nltk_data_dir):
    """ROUGE on the demo corpus removes with DEMO_STOP_WORDS what NLTK's list would remove."""
    import kcca.data._demo_grammar as grammar
    from features.text._resources import stop_words
    from kcca._evaluate.bleu_rouge import DEMO_STOP_WORDS, tokenize

    tree = ast.parse(Path(grammar.__file__).read_text(encoding="utf-8"))
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
                  and isinstance(n.body[0], ast.Expr)}
    words = {w for n in ast.walk(tree) if isinstance(n, ast.Constant)
             and isinstance(n.value, str) and id(n) not in docstrings for w in tokenize(n.value)}
    assert DEMO_STOP_WORDS == words & stop_words("english")


# ------------------------------------------------------------------ evaluate on compact results
def test_compact_results_without_data_say_only_what_is_true(monkeypatch, capsys):
    monkeypatch.setenv("KCCA_DATA_DIR", "")
    assert main(["evaluate", str(COMPACT / "BoW5.ranks.npz")]) == 0
    text = capsys.readouterr().out
    assert re.search(r"^top-1 BLEU +0\.\d\d$", text, re.M)  # printed: so not "needed"
    assert "need the captions" not in text
    assert "relevance rule paper: fraction yes >= 1/2" in text
    assert_lines_fit(text)
    assert main(["evaluate", str(COMPACT / "BoW5.ranks.npz"), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["relevance_rule"] == "paper: fraction yes >= 1/2"


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_numbers_in_json_and_csv_have_no_float_noise(monkeypatch, capsys, fmt):
    monkeypatch.setenv("KCCA_DATA_DIR", "")
    assert main(["evaluate", str(COMPACT / "BoW5.ranks.npz"), "--format", fmt]) == 0
    text = capsys.readouterr().out
    assert not NOISE.findall(text), NOISE.findall(text)[:5]
    assert ('"R@1": 4.4,' in text) if fmt == "json" else ("BoW5,annotation,metric,R@1,4.4," in text)


def test_committed_run_details_have_no_float_noise():
    for path in REPO.glob("results/*/rankings/details.json"):
        found = NOISE.findall(path.read_text(encoding="utf-8"))
        assert not found, (path, found[:5])


@pytest.mark.slow
@pytest.mark.data_variables
def test_tables_only_note_fits_the_width(tmp_path, no_data_env):
    """``--tables-only`` without the data (two systems' compact results)."""
    rankings = tmp_path / "rankings"
    rankings.mkdir()
    for name in ("BoW5.ranks.npz", "TRI5.ranks.npz"):
        shutil.copy(COMPACT / name, rankings)
    done = _kcca(["reproduce", "--tables-only", "--rankings-dir", str(rankings), "--out",
                  str(tmp_path / "tables")], no_data_env, tmp_path)
    assert "need the data" in " ".join(done.stdout.split())
    assert_lines_fit(done.stdout + done.stderr)


# ------------------------------------------------------------------ preprocess
def test_preprocess_names_the_preset_it_used(nltk_data_dir, capsys, tmp_path):
    assert main(["--cache-dir", str(tmp_path), "preprocess", "--corpus", "demo",
                 "--no-lemmatize", "--show", "3"]) == 0
    text = capsys.readouterr().out
    assert "preset flickr8k-full (the default for demo-" in text
    assert "changed by --no-lemmatize" in text
    assert_lines_fit(text)
    assert main(["--cache-dir", str(tmp_path), "preprocess", "--corpus", "demo",
                 "--preset", "bleu-rouge", "--show", "3"]) == 0
    text = capsys.readouterr().out
    assert "preset bleu-rouge (given)" in text
    assert "spelling corrections: off (preset bleu-rouge; --spelling switches them on)" in text
    assert_lines_fit(text)


def test_caption_analysis_bast_fits_the_width(data_dir, capsys):
    assert main(["caption-analysis", "bast"]) == 0
    captured = capsys.readouterr()
    assert "Paper: " in captured.out
    assert_lines_fit(captured.out + captured.err)


def test_long_log_messages_wrap():
    import logging

    from kcca._cli.lines import WrappingFormatter

    record = logging.LogRecord("kcca.x", logging.WARNING, __file__, 1, "word " * 60, None, None)
    text = WrappingFormatter().format(record)
    assert text.startswith("WARNING kcca.x: word") and text.count("\n") >= 2
    assert_lines_fit(text)


# ------------------------------------------------------------------ query and annotate
def test_annotate_checks_the_image_path_before_loading_the_model(tmp_path, capsys):
    cache = tmp_path / "cache"
    assert main(["--cache-dir", str(cache), "annotate", str(tmp_path / "photo.jpg"),
                 "--model", "demo"]) == 2
    err = capsys.readouterr().err
    assert "photo.jpg does not exist" in err and "fix: give the path of an image file" in err
    assert not (cache / "fitted-model").exists()  # the demo model was not fitted first


def test_a_demo_model_to_refit_names_no_query_command():
    from kcca._model.file_format import refit_fix

    fix = refit_fix("old.kcca.npz",
                    {"spec": {"name": "TRI5"}, "corpus": "demo-400-100-100-64px-s0"})
    assert "kcca fit-model --demo --demo-system TRI5" in fix and "kcca query" not in fix


@pytest.mark.slow
def test_query_and_annotate_fixes_name_their_own_command(tmp_path, tmp_path_factory, capsys):
    """On the demo model: a query without known words gets a query that runs; an empty
    --captions file gets the captions fix; rows fit in 100 characters."""
    import cv2
    import numpy as np

    cache = ["--cache-dir", str(demo_cache(tmp_path_factory))]
    assert main([*cache, "query", "zzz qqq", "--model", "demo", "--quiet"]) == 2
    err = capsys.readouterr().err
    fix = err.split("fix: ", 1)[1].strip()
    assert "readable image" not in fix
    step = re.search(r"`(kcca query [^`]+)`", fix).group(1)
    assert main([*cache, *joined_command(step)[1:]]) == 0
    assert_lines_fit(capsys.readouterr().out)
    image = tmp_path / "photo.png"
    cv2.imwrite(str(image), np.full((64, 64, 3), 200, np.uint8))
    empty = tmp_path / "captions.txt"
    empty.write_text("\n", encoding="utf-8")
    assert main([*cache, "annotate", str(image), "--model", "demo", "--captions", str(empty),
                 "--quiet"]) == 2
    fix = capsys.readouterr().err.split("fix: ", 1)[1]
    assert "--captions" in fix and "kcca query" not in fix and "query" not in fix
    assert main([*cache, "annotate", str(image), "--model", "demo"]) == 0
    captured = capsys.readouterr()
    assert_lines_fit(captured.out + captured.err)
    assert main([*cache, "query", "a", "red", "circle", "--model", "demo", "--images",
                 str(tmp_path / "none")]) == 2
    fix = capsys.readouterr().err.split("fix: ", 1)[1]
    assert "--images" in fix and "words of the" not in fix


# ------------------------------------------------------------------ log records
@pytest.mark.data_variables
def test_info_records_show_with_verbose_only(tmp_path, no_data_env):
    """Without ``--verbose`` a command prints progress and results; INFO records (such as the
    settings a system chose on dev) come with ``--verbose``."""
    demo = ["demo", "--n-train", "60", "--n-dev", "20", "--n-test", "20", "--n-count", "4",
            "--p", "2", "--d", "1", "--kappas", "1", "--sheet", "1"]
    plain = _kcca([*demo, "--out", "plain"], no_data_env, tmp_path)
    assert "INFO" not in plain.stderr and "chose p=2 d=1" not in plain.stderr
    verbose = _kcca(["--verbose", "--no-cache", *demo, "--out", "verbose"], no_data_env,
                    tmp_path)
    assert "INFO kcca._systems.runner: TRI5: chose p=2 d=1 on dev" in verbose.stderr


def test_the_demo_summary_of_a_slow_system_fits_the_width(monkeypatch, capsys, tmp_path):
    """A system that takes 10 s or more made the demo's summary line 101 characters."""
    import argparse
    from types import SimpleNamespace

    import kcca._systems.runner as runner
    from kcca._cli.demo_cmd import DemoRun, stage_kcca
    from kcca._systems import GridSpec, KernelSpec, SystemSpec
    from kcca._systems.config import RunConfig

    spec = SystemSpec("TRI5", KernelSpec("pyramid"), KernelSpec("trigram"),
                      grid=GridSpec(p=(2, 3), d=(1, 3, 8), kappas=(0.1, 0.5, 1.0, 5.0),
                                    n=tuple(range(1, 31))))
    result = SimpleNamespace(chosen={"p": 2.0, "d": 1.0}, timings={"dev grid": 123.4})
    monkeypatch.setattr(runner, "run_system", lambda *a, **k: result)
    run = DemoRun(argparse.Namespace(), tmp_path, tmp_path, RunConfig(), corpus=object(),
                  systems=[spec])
    stage_kcca(run)
    out = capsys.readouterr().out
    assert "TRI5: 4 kappas x 30 n for each of 6 (p, d)" in out and "(123.4s)" in out
    assert_lines_fit(out)

