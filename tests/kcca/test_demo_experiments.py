"""The demo's systems and image settings are experiment files (experiments/demo), which an
installed package carries too."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kcca._demo import demo_experiments_dir, demo_image_config, demo_systems
from kcca.errors import DataError

ROOT = Path(__file__).resolve().parents[2]


def test_the_demo_runs_the_files_of_experiments_demo():
    folder = demo_experiments_dir()
    assert folder == ROOT / "experiments" / "demo"
    tri, bow = demo_systems(400)
    assert (tri.name, tri.text_kernel.name, bow.name, bow.text_kernel.name) == (
        "TRI5", "trigram", "BoW5", "bow")
    assert tri.preprocessing == "demo" and tri.image_kernel.name == "pyramid"
    assert tri.grid.p == (2, 3) and tri.grid.d == (1, 3, 8)
    assert tri.grid.kappas == (0.1, 0.5, 1.0, 5.0)
    # "geometric:5:30" written out for the training size: 30 rounded values from 5 to 400
    assert len(tri.grid.n) == 30 and tri.grid.n[0] == 5 and tri.grid.n[-1] == 400
    image = demo_image_config(3)
    assert image.seed == 3 and image.n_images == 50
    assert image.vocabulary == {"color": 32, "texture": 64, "sift": 64}


def test_editing_the_files_changes_the_demo_and_flags_override_them(tmp_path):
    folder = tmp_path / "demo"
    shutil.copytree(ROOT / "experiments" / "demo", folder)
    path = folder / "01-TRI5.toml"
    path.write_text(path.read_text().replace("kappas = [0.1, 0.5, 1.0, 5.0]", "kappas = [0.5]"))
    tri, bow = demo_systems(100, folder=folder)
    assert tri.grid.kappas == (0.5,) and bow.grid.kappas == (0.1, 0.5, 1.0, 5.0)
    tri, _ = demo_systems(100, folder=folder, kappas=[1.0], d=[2.0], n_count=4)
    assert tri.grid.kappas == (1.0,) and tri.grid.d == (2.0,)
    assert tri.grid.n == (5, 14, 37, 100)  # 5 * 20 ** (k / 3), rounded
    run = folder / "run.toml"
    run.write_text(run.read_text().replace("n_images = 50", "n_images = 9"))
    assert demo_image_config(0, folder).n_images == 9


def test_kcca_demo_takes_another_folder_of_experiment_files(tmp_path, capsys):
    from kcca._cli import main

    folder = tmp_path / "one-system"
    folder.mkdir()
    shutil.copy(ROOT / "experiments" / "demo" / "02-BoW5.toml", folder)
    assert main(["demo", "--experiments", str(folder), "--out", str(tmp_path / "out"),
                 "--n-train", "40", "--n-dev", "10", "--n-test", "10", "--n-count", "3",
                 "--p", "2", "--d", "1", "--kappas", "1", "--no-cache", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "BoW5: 1 kappas x 3 n" in text and "TRI5" not in text
    # the folder's one system, and no run.toml: the paper's image feature settings
    assert (tmp_path / "out" / "rankings_BoW5.json").is_file()
    assert not (tmp_path / "out" / "rankings_TRI5.json").exists()
    # the next step it prints runs as printed (no --compare for one system)
    import re
    import shlex

    step = re.search(r"next: `(kcca evaluate [^`]*)`", text).group(1)
    assert "--compare" not in step
    assert main(shlex.split(step.replace("\\\n", " "))[1:]) == 0  # joined continuations


def test_a_missing_folder_is_a_named_error(tmp_path, capsys):
    from kcca._cli import main

    assert main(["demo", "--experiments", str(tmp_path / "nowhere"),
                 "--out", str(tmp_path / "out"), "--no-cache", "--quiet"]) == 2
    out, err = capsys.readouterr()
    assert "error:" in err and "nowhere" in err and "fix:" in err
    # named before any work: no corpus drawn, no contact sheet, no image features
    assert "demo corpus" not in out and "image features" not in out
    assert not (tmp_path / "out" / "contact_sheet.png").exists()


def test_an_installed_package_carries_the_demo_files(tmp_path, monkeypatch):
    """Without a source tree beside the package, the copy inside it (kcca/experiments/demo,
    put there by setup.py) is the demo's folder."""
    import kcca._systems.spec as spec_module

    site = tmp_path / "site"
    shutil.copytree(ROOT / "experiments" / "demo", site / "kcca" / "experiments" / "demo")
    monkeypatch.setattr(spec_module, "__file__", str(site / "kcca" / "systems" / "spec.py"))
    assert demo_experiments_dir() == site / "kcca" / "experiments" / "demo"
    assert [s.name for s in demo_systems(50)] == ["TRI5", "BoW5"]


@pytest.mark.slow
def test_the_build_puts_the_demo_files_in_the_package(tmp_path):
    """setup.py's build copies experiments/demo into the package (what a wheel holds)."""
    build = tmp_path / "build"
    subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(build)],
                   cwd=ROOT, check=True, capture_output=True)
    names = sorted(p.name for p in (build / "kcca" / "experiments" / "demo").iterdir())
    assert names == sorted(p.name for p in (ROOT / "experiments" / "demo").iterdir())
    assert (build / "kcca" / "_report" / "static" / "report.js").is_file()
    assert (build / "features" / "kernels" / "_base.py").is_file()


def test_a_bad_seed_in_run_toml_is_named(tmp_path):
    from kcca._systems.config import load_run_table

    (tmp_path / "run.toml").write_text("[run]\nseed = -1\n")
    with pytest.raises(DataError, match=r"run.toml: \[run\] seed must be an integer >= 0"):
        load_run_table(tmp_path)


def test_fit_model_names_an_unknown_demo_system_with_the_folders_systems(tmp_path, capsys):
    """--demo-system is checked against the demo's experiment files, not a list in the parser."""
    from kcca._cli import main

    assert main(["fit-model", "--demo", "--demo-system", "TRI9", "--out",
                 str(tmp_path / "m.kcca.npz"), "--no-cache", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "unknown demo system 'TRI9'" in err
    assert "fix: give --demo-system one of TRI5, BoW5 (the systems of " in err


def test_the_demo_model_takes_its_seed_from_run_toml_as_kcca_demo_does(tmp_path, monkeypatch):
    """fit-model --demo and query --model demo seed the corpus and codebooks with the demo's
    run.toml seed unless --seed is given, as kcca demo does."""
    import kcca._demo as demo_module
    from kcca._model.build import demo_spec_and_corpus

    folder = tmp_path / "demo"
    shutil.copytree(ROOT / "experiments" / "demo", folder)
    run = folder / "run.toml"
    run.write_text(run.read_text().replace("seed = 0", "seed = 3"))
    monkeypatch.setattr(demo_module, "demo_experiments_dir", lambda: folder)
    sizes = dict(n_train=20, n_dev=5, n_test=5)
    _, corpus, image = demo_spec_and_corpus(**sizes)
    assert image.seed == 3 and corpus.name.endswith("-s3")
    _, corpus, image = demo_spec_and_corpus(seed=5, **sizes)
    assert image.seed == 5 and corpus.name.endswith("-s5")
