"""``kcca`` user errors: one message and a fix, no traceback (unless --verbose); exit 2.

Each class of mistake goes through ``main([...])``: bad paths, unknown kernel names (close
matches suggested), malformed experiment files (TOML syntax with the line, unknown keys,
wrong types), missing data, a file of another version, broken plug-ins; unexpected errors
exit 1 with a pointer to --verbose; the cache summary ends a command that used the cache.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

import kcca._cli.data_cmd as data_cmd
from kcca._backend import gpu_available
from kcca._cache import Cache
from kcca._cli import main

GOOD = """name = "X"
preprocessing = "demo"

[image_kernel]
name = "pyramid"

[text_kernel]
name = "bow"
"""


def run_cli(capsys, args: list[str]) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().err


def run_data_command(capsys, monkeypatch, work: Callable[[object], object]) -> tuple[int, str]:
    """``kcca data`` with its work replaced by ``work(args)``: the exit code and stderr."""
    monkeypatch.setattr(data_cmd, "run", work)
    return run_cli(capsys, ["data"])


def raising(error: type[BaseException], *error_args: object) -> Callable[[object], object]:
    """A command's work that raises ``error(*error_args)``."""

    def work(args):
        raise error(*error_args)

    return work


def assert_one_clean_error(err: str, *expected: str) -> None:
    """Exactly one error line and one fix line, no traceback, every ``expected`` text present."""
    assert "Traceback" not in err, err
    assert len(re.findall(r"^error: ", err, re.M)) == 1, err
    assert len(re.findall(r"^fix: \S", err, re.M)) == 1, err
    for text in expected:
        assert text in err, (text, err)


def experiment(tmp_path: Path, text: str, name: str = "01-x.toml") -> Path:
    folder = tmp_path / "exp"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text)
    return folder


def load_experiments(monkeypatch, folder: Path) -> list[str]:
    """A command that reads the experiment files of ``folder`` (as ``kcca reproduce`` does)."""
    from kcca._systems import load_specs

    monkeypatch.setattr(data_cmd, "run", lambda args: load_specs(folder) and 0)
    return ["data"]


# ----------------------------------------------------------------------- bad paths
def test_missing_rankings_file(tmp_path, capsys):
    code, err = run_cli(capsys, ["evaluate", "--corpus", "demo", str(tmp_path / "none.json")])
    assert code == 2
    assert_one_clean_error(err, "none.json does not exist", "fix: check the path")


def test_file_not_found_from_a_command(tmp_path, capsys, monkeypatch):
    missing = tmp_path / "nowhere" / "file.txt"
    code, err = run_data_command(capsys, monkeypatch, lambda args: open(missing).read())
    assert code == 2
    assert_one_clean_error(err, f"No such file or directory: {missing}", "check the path")


def test_missing_experiments_folder(tmp_path, capsys, monkeypatch):
    code, err = run_cli(capsys, load_experiments(monkeypatch, tmp_path / "no-such-folder"))
    assert code == 2
    assert_one_clean_error(err, "no experiment files")


# ----------------------------------------------------------- unknown kernel names
def test_unknown_kernel_suggests_close_matches(tmp_path, capsys, monkeypatch):
    folder = experiment(tmp_path, GOOD.replace('name = "bow"', 'name = "trigam"'))
    code, err = run_cli(capsys, load_experiments(monkeypatch, folder))
    assert code == 2
    assert_one_clean_error(err, "01-x.toml: text_kernel.name: unknown kernel 'trigam'",
                           "did you mean 'trigram'?", "plugins = [")


# ------------------------------------------------------- malformed experiment files
@pytest.mark.parametrize("text, expected", [
    (GOOD.replace('name = "X"', 'name = "X'), ["01-x.toml:1: TOML syntax error", "line 1"]),
    (GOOD + "\n[grid]\np = [2, 3\n", ["01-x.toml:11: TOML syntax error", "Unclosed array"]),
    (GOOD.replace('name = "pyramid"', "name = pyramid"), ["01-x.toml:5: TOML syntax error"]),
    (GOOD.replace("[image_kernel]", "[image_kernels]"),
     ["unknown key(s) ['image_kernels']", "did you mean 'image_kernel'"]),
    (GOOD + '\n[grid]\np = "two"\n', ["01-x.toml", "key 'grid.p' must be an array of numbers",
                                       "'two' (string)"]),
    (GOOD + '\n[grid]\nn = [10, 2.5]\n', ["key 'grid.n' must be an array of integers"]),
    (GOOD.replace('name = "X"', 'name = "X"\nper_criterion = "5"'),
     ["key 'per_criterion' must be an integer"]),
    (GOOD.replace('name = "X"', 'name = "X"\nmodel = "svm"'), ["01-x.toml", "model must be"]),
])
def test_malformed_experiment_file(tmp_path, capsys, monkeypatch, text, expected):
    code, err = run_cli(capsys, load_experiments(monkeypatch, experiment(tmp_path, text)))
    assert code == 2
    assert_one_clean_error(err, *expected)


@pytest.mark.data_variables
@pytest.mark.parametrize("name", ["01-x.toml", "run.toml"])
def test_a_byte_order_mark_in_an_experiment_folder_is_named_and_its_fix_runs(
        tmp_path, capsys, monkeypatch, name):
    """An experiment file or run.toml saved as "UTF-8 with BOM" (TOML allows no BOM) is named
    as such, not as a syntax error at line 1, and the printed fix removes the mark."""
    import shlex
    import subprocess

    from tests.support.fake_flickr8k import write_fake_flickr8k

    from kcca._systems import load_specs
    from kcca._systems.config import load_run_table

    folder = experiment(tmp_path, GOOD)
    text = GOOD if name != "run.toml" else "[run]\nseed = 1\n"
    (folder / name).write_bytes(b"\xef\xbb\xbf" + text.encode())
    write_fake_flickr8k(tmp_path / "data", images=False)
    code, err = run_cli(capsys, ["reproduce", "--experiments", str(folder), "--systems", "X",
                                 "--tables", "3", "--data-dir", str(tmp_path / "data"),
                                 "--out", str(tmp_path / "out"), "--quiet"])
    assert code == 2
    assert_one_clean_error(err, f"{folder / name} starts with a UTF-8 byte-order mark",
                           "remove the byte-order mark")
    assert "syntax error" not in err
    command = re.search(r"^fix: .*`(.*)`$", err, re.M).group(1)
    subprocess.run(shlex.split(command), check=True)
    assert [s.name for s in load_specs(folder)] == ["X"]
    assert load_run_table(folder).get("seed", 1) == 1


def test_json_experiment_syntax_error_names_the_line(tmp_path):
    from kcca._systems import load_spec
    from kcca._systems.spec import ExperimentFileError

    path = tmp_path / "x.json"
    path.write_text('{\n "name": "X",\n "image_kernel": pyramid\n}')
    with pytest.raises(ExperimentFileError, match=r"x\.json:3: not valid JSON") as exc:
        load_spec(path)
    assert exc.value.fix


# ------------------------------------------------------------------ missing data
def test_missing_data_folder(capsys, monkeypatch):
    monkeypatch.delenv("KCCA_DATA_DIR", raising=False)
    code, err = run_cli(capsys, ["data"])
    assert code == 2
    assert_one_clean_error(err, "no data folder given", "fix: pass --data-dir PATH or export "
                           "KCCA_DATA_DIR=PATH")


def test_data_folder_without_the_corpus(tmp_path, capsys):
    code, err = run_cli(capsys, ["data", "--data-dir", str(tmp_path)])
    assert code == 2
    assert_one_clean_error(err, str(tmp_path))


# ----------------------------------------------------- a file of another version
def test_rankings_file_of_another_version(tmp_path, capsys):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"format": "kcca-rankings", "version": 9, "tasks": {}}))
    code, err = run_cli(capsys, ["evaluate", "--corpus", "demo", str(path)])
    assert code == 2
    assert_one_clean_error(err, "unsupported rankings version 9",
                           "fix: write the rankings again with this version of kcca")


def test_model_file_of_another_version(tmp_path, capsys, monkeypatch):
    saved = pytest.importorskip("kcca._model.saved")
    import joblib

    path = tmp_path / "old.kcca"
    joblib.dump({"header": {"magic": getattr(saved, "MAGIC", ""), "format_version": -1,
                            "kcca_version": "0.0.1"}, "model": None}, path)
    code, err = run_data_command(capsys, monkeypatch, lambda args: saved.load_model(path))
    assert code == 2
    assert_one_clean_error(err, str(path), "fix: refit")


def test_version_error_class_and_fix():
    from kcca.errors import DataError, FileVersionError, KccaUserError

    error = FileVersionError("m.bin: model version 3, but this version of kcca reads version 1")
    assert isinstance(error, DataError) and isinstance(error, KccaUserError)
    assert "re-create the file" in error.fix


# --------------------------------------------------------------------- plug-ins
def test_plugin_module_not_found(tmp_path, capsys, monkeypatch):
    folder = experiment(tmp_path, 'plugins = ["kcca_no_such_plugin_xyz"]\n' + GOOD)
    code, err = run_cli(capsys, load_experiments(monkeypatch, folder))
    assert code == 2
    assert_one_clean_error(err, "plugins: no module named 'kcca_no_such_plugin_xyz'",
                           "beside the experiment file")


def test_plugin_that_fails_to_import(tmp_path, capsys, monkeypatch):
    folder = experiment(tmp_path, 'plugins = ["kcca_boom_plugin"]\n' + GOOD)
    (folder / "kcca_boom_plugin.py").write_text("raise RuntimeError('boom in the plug-in')\n")
    code, err = run_cli(capsys, load_experiments(monkeypatch, folder))
    assert code == 2
    assert_one_clean_error(err, "module 'kcca_boom_plugin' failed to import: RuntimeError: "
                           "boom in the plug-in", "--verbose")
    code, err = run_cli(capsys, load_experiments(monkeypatch, folder) + ["--verbose"])
    assert code == 2 and "Traceback (most recent call last)" in err
    assert 'kcca_boom_plugin.py", line 1' in err and err.rstrip().splitlines()[-2].startswith(
        "error: ")


def test_broken_entry_point_plugin(tmp_path, capsys, monkeypatch):
    """A kernel named in an experiment file whose installed plug-in fails to import."""
    from kcca._systems import load_spec
    from tests.support.plugin_packages import fake_package

    fake_package(tmp_path / "site", {"fake-broken-cli": "kcca_no_such_module_abc:K"})
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    folder = experiment(tmp_path, GOOD.replace('name = "bow"', 'name = "fake-broken-cli"'))
    spec = load_spec(folder / "01-x.toml")  # the name is listed (entry points load lazily)
    code, err = run_data_command(capsys, monkeypatch, lambda args: spec.text_kernel.build())
    assert code == 2
    assert_one_clean_error(err, "kernel plug-in 'fake-broken-cli'", "failed to import",
                           "ModuleNotFoundError", "kcca-fake-plugin", "reinstall")


# ------------------------------------------------ verbose, unexpected errors, values
def test_verbose_shows_the_traceback(capsys, monkeypatch):
    monkeypatch.delenv("KCCA_DATA_DIR", raising=False)
    code, err = run_cli(capsys, ["data", "--verbose"])
    assert code == 2
    assert "Traceback (most recent call last)" in err and "resolve_data_dir" in err
    assert "error: no data folder given" in err and "fix: " in err
    code, err = run_cli(capsys, ["--verbose", "data"])  # before the subcommand too
    assert "Traceback" in err


def test_unexpected_error_is_short_and_exits_1(capsys, monkeypatch):
    code, err = run_data_command(capsys, monkeypatch, raising(RuntimeError, "kaboom\nsecond line"))
    assert code == 1
    assert_one_clean_error(err, "error: unexpected RuntimeError: kaboom",
                           "run with --verbose for the traceback")
    assert "second line" not in err
    code, err = run_cli(capsys, ["data", "--verbose"])
    assert code == 1 and "Traceback" in err and "second line" in err


@pytest.mark.data_variables
@pytest.mark.parametrize("files", [["BoW5.ranks.npz"], ["BoW5.ranks.npz", "TRI5.ranks.npz"]])
def test_output_into_a_closed_pipe_ends_quietly(files):
    """``kcca evaluate ... | head``: a reader that went away ends the command as SIGPIPE ends
    a process (status 141), without an error line or Python's "Exception ignored" note,
    whether the output was still buffered at the end or was being written."""
    import subprocess
    import sys

    rankings = Path(__file__).resolve().parents[3] / "results" / "hodosh2013" / "rankings"
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first write
    try:
        done = subprocess.run([sys.executable, "-m", "kcca", "evaluate",
                               *(str(rankings / f) for f in files)],
                              stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert done.returncode == 141, done.stderr
    assert "error:" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    assert "Exception ignored" not in done.stderr, done.stderr


def test_a_broken_pipe_that_is_not_our_output_is_still_an_error(capsys, monkeypatch):
    code, err = run_data_command(capsys, monkeypatch, raising(BrokenPipeError, 32, "Broken pipe"))
    assert code == 1
    assert_one_clean_error(err, "error: unexpected BrokenPipeError")


def test_value_error_from_argument_validation(capsys, monkeypatch):
    from kcca.errors import SettingError

    bad = raising(SettingError, "--n-train must be positive, got -3")
    code, err = run_data_command(capsys, monkeypatch, bad)
    assert code == 2
    assert_one_clean_error(err, "error: --n-train must be positive, got -3", "kcca data --help")


def test_a_plain_value_error_of_this_project_is_unexpected(capsys, monkeypatch):
    """Whose fault an error is follows from its type, not from where the code raising it is
    installed (in site-packages after ``pip install .``): a plain ValueError raised by this
    project's own code is a bug."""
    bad = raising(ValueError, "an internal check failed")
    code, err = run_data_command(capsys, monkeypatch, bad)
    assert code == 1
    assert_one_clean_error(err, "error: unexpected ValueError: an internal check failed",
                           "run with --verbose for the traceback")


def test_interrupt_says_how_to_resume(capsys, monkeypatch):
    code, err = run_data_command(capsys, monkeypatch, raising(KeyboardInterrupt))
    assert code == 130 and "error: interrupted" in err and "resumes" in err


# ---------------------------------------------------------------- cache summary
def test_cache_summary_at_the_end(tmp_path, capsys, monkeypatch):
    def work(args):
        cache = Cache(tmp_path / "cache")
        for _ in range(2):
            cache.get_or_compute("stage-a", {"x": 1}, lambda: 1)
        cache.get_or_compute("stage-b", {"x": 2}, lambda: 2)
        print("done")
        return 0

    code, err = run_data_command(capsys, monkeypatch, work)
    assert code == 0
    assert err.strip().splitlines()[-1] == ("cache: stage-a 1 computed / 1 loaded; "
                                            "stage-b 1 computed / 0 loaded")
    code, err = run_cli(capsys, ["data", "--quiet"])
    assert code == 0 and "cache:" not in err
    code, err = run_data_command(capsys, monkeypatch, lambda args: 0)
    assert "cache:" not in err  # no cache used: no summary


def test_value_error_inside_a_library_is_reported_as_unexpected(capsys, monkeypatch):
    """A ValueError raised inside NumPy's Python code (here LinAlgError, a ValueError: a
    matrix that should be positive definite is not) is not blamed on the user's arguments:
    it says unexpected, exits 1 and points to --verbose."""
    import numpy as np

    def bug(args):
        return np.linalg.cholesky(-np.eye(2))

    code, err = run_data_command(capsys, monkeypatch, bug)
    assert code == 1
    assert_one_clean_error(err, "error: unexpected LinAlgError: Matrix is not positive definite",
                           "run with --verbose for the traceback")


@pytest.mark.skipif(gpu_available(), reason="checks the error without a GPU")
@pytest.mark.parametrize("argv", [
    ["demo", "--backend", "cupy"],
    ["features", "--corpus", "demo", "--gram", "--backend", "cupy"],
    ["reproduce", "--systems", "BoW5", "--backend", "cupy"],
])
def test_cupy_without_a_gpu_is_refused_before_any_work(argv, tmp_path, monkeypatch, capsys):
    """Every command with --backend names the missing GPU and the fix, exit 2, and reads or
    writes nothing first (the output and cache folders stay absent)."""
    monkeypatch.chdir(tmp_path)
    code, err = run_cli(capsys, argv + ["--cache-dir", str(tmp_path / "cache")])
    assert code == 2
    assert_one_clean_error(err, "error: backend 'cupy' requested but no CUDA device",
                           "install the GPU extra")
    assert not (tmp_path / "cache").exists() and not (tmp_path / "kcca-demo-out").exists()



def test_the_cache_summary_folds_between_entries_at_100_columns():
    from kcca._cache import format_cache_stats

    stages = ["codebook", "image-features", "system-image-gram", "text-preprocess",
              "system-text-gram", "kernel-factor", "system-dev", "system-test"]
    text = format_cache_stats({s: {"computed": 600, "loaded": 0} for s in stages})
    lines = text.splitlines()
    assert len(lines) > 1 and all(len(line) <= 100 for line in lines)
    assert lines[0].startswith("cache: codebook 600 computed / 0 loaded;")
    assert " ".join(line.strip() for line in lines) == "cache: " + "; ".join(
        f"{s} 600 computed / 0 loaded" for s in stages)
