"""Whose fault an error is follows from its type, wherever the package is installed.

A check of something the user gives (an experiment folder's ``run.toml``, a kernel's
parameters in an experiment file, ``$KCCA_BACKEND``) raises a class of :mod:`kcca.errors`,
so that ``kcca`` names it (exit status 2) from a normal install in site-packages as from a
source tree; a plain ``ValueError`` raised by this project's own code is a bug (exit 1).
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import pytest

from kcca._cli import describe_error, main
from kcca.errors import KccaUserError, SettingError
from kcca._systems.config import RunConfig, load_run_table
from tests.support.named_errors import one_error

DEMO_EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments" / "demo"


def experiments_with_run_table(tmp_path: Path, table: str) -> Path:
    """A copy of the demo's experiment folder whose ``run.toml`` holds ``table``."""
    folder = tmp_path / "exp"
    shutil.copytree(DEMO_EXPERIMENTS, folder)
    (folder / "run.toml").write_text(table)
    return folder


def test_a_plain_value_error_raised_by_this_project_is_unexpected():
    def project_check():
        raise ValueError("an internal invariant failed")

    with pytest.raises(ValueError) as err:
        project_check()
    message, fix, status = describe_error(err.value, argparse.Namespace(command="demo"))
    assert status == 1
    assert message == "unexpected ValueError: an internal invariant failed"
    assert "--verbose" in fix


def test_an_unknown_executor_in_run_toml_is_a_user_error_naming_the_file(tmp_path):
    folder = experiments_with_run_table(tmp_path, '[run]\nexecutor = "foo"\n')
    with pytest.raises(KccaUserError) as err:
        load_run_table(folder)
    assert isinstance(err.value, ValueError)  # library callers catching ValueError still do
    assert str(folder / "run.toml") in str(err.value) and "'foo'" in str(err.value)


def test_an_unknown_executor_in_run_toml_exits_2_through_the_cli(tmp_path, capsys):
    folder = experiments_with_run_table(tmp_path, '[run]\nexecutor = "foo"\n')
    code = main(["demo", "--experiments", str(folder), "--out", str(tmp_path / "out"),
                 "--no-cache", "--quiet"])
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error.startswith(f"{folder / 'run.toml'}: [run] executor must be one of serial")
    assert 'executor = "serial"' in fix and str(folder / "run.toml") in fix


@pytest.mark.parametrize("values", [{"executor": "foo"}, {"executor": "dask"}])
def test_run_settings_out_of_range_are_user_errors(values):
    with pytest.raises(KccaUserError):
        RunConfig.of(**values)


def test_a_kernel_parameter_out_of_range_is_a_setting_error():
    from features.text._trigram_kernel import TrigramKernel

    with pytest.raises(SettingError, match="max_length must be 1, 2 or 3, got 5") as err:
        TrigramKernel(max_length=5).fit([["a dog runs"], ["a cat sits"]])
    message, fix, status = describe_error(err.value, argparse.Namespace(command="reproduce"))
    assert status == 2 and "experiment file" in fix


@pytest.mark.parametrize("name, params, text", [
    ("bow", {"weighting": "tf"}, "unknown weighting 'tf'"),
    ("trigram", {"lambda_m": 0}, "lambda_m and lambda_g must be positive"),
    ("mix", {"parts": []}, "parts must be a non-empty list"),
])
def test_kernel_parameters_of_an_experiment_file_are_named(name, params, text):
    """Checked where the kernel is made (the experiment file is read) or fitted."""
    from kcca._systems import make_any_kernel

    with pytest.raises(KccaUserError, match=text):
        make_any_kernel(name, **params).fit([["a dog runs"], ["a cat sits"]])


def test_an_unknown_array_backend_in_the_environment_is_named(monkeypatch, capsys):
    monkeypatch.setenv("KCCA_BACKEND", "tpu")
    from kcca._backend import resolve_backend

    with pytest.raises(SettingError, match="unknown array backend"):
        resolve_backend()


@pytest.mark.parametrize("encoding, printed", [("ascii", b"a caf\\xe9 by the river\n"),
                                               ("utf-8", "a café by the river\n".encode())])
def test_a_caption_stdout_cannot_encode_is_escaped(monkeypatch, encoding, printed):
    """``PYTHONIOENCODING=ascii kcca query ...`` printing a caption with an "é" (was an
    unexpected UnicodeEncodeError, exit 1): escaped as standard error escapes it; UTF-8
    output is unchanged."""
    import io
    import sys

    import kcca._cli.data_cmd as data_cmd

    out = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding=encoding))
    monkeypatch.setattr(data_cmd, "run", lambda args: print("a café by the river") or 0)
    assert main(["data", "--quiet"]) == 0
    sys.stdout.flush()
    assert out.getvalue() == printed
