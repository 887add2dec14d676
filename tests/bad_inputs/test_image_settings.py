"""Image feature settings out of range are named errors naming where they were given: a
``[run.image_features]`` table of a run.toml (``n_images = -5`` failed later with "negative
dimensions are not allowed"), ``--image-config`` and ``kcca features``' flags."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kcca._cli import main
from kcca.errors import DataError
from kcca._systems.config import load_run_table
from tests.support.named_errors import one_error

DEMO = Path(__file__).resolve().parents[2] / "experiments" / "demo"


def demo_folder(tmp_path: Path, line: str) -> Path:
    """The demo's experiment folder with ``line`` (``key = value``) in its
    [run.image_features] table, in place of that key's own line."""
    folder = tmp_path / "demo"
    shutil.copytree(DEMO, folder)
    run = folder / "run.toml"
    key = line.split(" ")[0]
    lines = [x for x in run.read_text().splitlines() if not (key and x.startswith(f"{key} ="))]
    text = "\n".join(lines) + "\n"
    assert "[run.image_features]\n" in text
    run.write_text(text.replace("[run.image_features]\n", f"[run.image_features]\n{line}\n"))
    return folder


def test_a_negative_n_images_in_run_toml_is_named(tmp_path, capsys):
    folder = demo_folder(tmp_path, "n_images = -5")
    run = folder / "run.toml"
    code = main(["demo", "--experiments", str(folder), "--out", str(tmp_path / "out"),
                 "--no-cache", "--quiet"])
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error == f"{run}: [run.image_features]: n_images must be an integer >= 1, got -5"
    assert fix == f"correct that value in the [run.image_features] table of {run}"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("line, message", [
    ("points_per_image = 0", "points_per_image must be an integer >= 1, got 0"),
    ("levels = -1", "levels must be an integer >= 0, got -1"),
    ("n_init = 0", "n_init must be an integer >= 1, got 0"),
    ("max_iter = 2.5", "max_iter must be an integer >= 1, got 2.5"),
    ("seed = -3", "seed must be an integer >= 0, got -3"),
    ('algorithm = "kmeans++"', "algorithm must be 'kmeans' or 'minibatch', got 'kmeans++'"),
    ("codebook_split = 3", "codebook_split must name a split, got 3"),
])
def test_an_image_setting_out_of_range_is_named(tmp_path, line, message):
    folder = demo_folder(tmp_path, line)
    with pytest.raises(DataError) as err:
        load_run_table(folder)
    assert str(err.value) == f"{folder / 'run.toml'}: [run.image_features]: {message}"


def test_a_vocabulary_size_of_zero_is_named(tmp_path):
    folder = demo_folder(tmp_path, "")
    run = folder / "run.toml"
    run.write_text(run.read_text().replace("color = 32", "color = 0"))
    with pytest.raises(DataError, match=r"vocabulary\['color'\] must be an integer >= 1 "
                                        r"\(visual words\), got 0"):
        load_run_table(folder)


def test_image_config_flag_out_of_range_is_named(tmp_path, capsys):
    code = main(["fit-model", "--demo", "--out", str(tmp_path / "m.kcca.npz"), "--no-cache",
                 "--quiet", "--image-config", '{"n_images": -5}'])
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error == "--image-config: n_images must be an integer >= 1, got -5", error
    assert "--image-config" in fix


@pytest.mark.parametrize("flag, value, message", [
    ("--codebook-images", "-5", "--codebook-images must be 1 or more, got -5"),
    ("--points-per-image", "0", "--points-per-image must be 1 or more, got 0"),
    ("--levels", "-1", "--levels must be 0 or more, got -1"),
])
def test_features_flags_out_of_range_are_named_before_the_data(tmp_path, capsys, monkeypatch,
                                                               flag, value, message):
    monkeypatch.setenv("KCCA_DATA_DIR", str(tmp_path / "no-data"))
    code = main(["features", flag, value, "--no-cache", "--quiet"])
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error == message, error
    assert flag in fix, fix


def test_kcca_demo_bounds_image_size(tmp_path, capsys):
    """Before: no upper bound (a 50,000-pixel side is 7.5 GB an image, past a 4 GB limit;
    here one pixel over the bound, in a demo small enough that it ran to the end, in about
    three minutes, and exited 0)."""
    out = tmp_path / "out"
    small = ["--n-train", "6", "--n-dev", "1", "--n-test", "1", "--n-count", "1", "--p", "2",
             "--d", "1", "--kappas", "1", "--sheet", "1"]
    code = main(["demo", "--image-size", "1025", *small, "--out", str(out), "--no-cache",
                 "--quiet"])
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error == "--image-size must be an integer from 32 to 1024, got 1025"
    assert fix.startswith("give --image-size 1024 or less (pixels a side"), fix
    assert not out.exists()
