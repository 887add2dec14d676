"""The project installed from a wheel (``pip install .``, not editable), run outside the
checkout: the wheel is built from a copy of the working tree, installed into a fresh virtual
environment that sees the dependencies of the interpreter running the tests (its site-packages
folders, whether that interpreter is a system Python or itself a virtual environment; no
network), and there, in a folder far from the checkout, ``kcca demo`` runs and
``kcca reproduce --tables-only`` rebuilds committed table rows from a copy of the committed
results, reading the experiment files the wheel carries."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "results" / "hodosh2013"
#: what a build reads from the checkout
SOURCES = ("pyproject.toml", "setup.py", "README.md", "LICENSE", "kcca", "features", "experiments")

pytestmark = pytest.mark.slow


def sh(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, **kwargs)
    assert done.returncode == 0, (f"`{' '.join(command)}` exited {done.returncode}\n"
                                  f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(folder to run in, environment): the wheel installed in a fresh virtual environment."""
    import importlib.util

    import setuptools

    if importlib.util.find_spec("wheel") is None and tuple(
            int(x) for x in setuptools.__version__.split(".")[:2]) < (70, 1):
        pytest.fail("building a wheel without build isolation needs the package `wheel` "
                    "with setuptools < 70.1: python -m pip install -e \".[dev]\"")
    root = tmp_path_factory.mktemp("wheel")
    src = root / "src"
    src.mkdir()
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "dist")
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, src / name, ignore=skip)
        else:
            shutil.copy2(REPO / name, src / name)
    sh([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
        "--disable-pip-version-check", str(src), "-w", str(root / "dist")])
    wheel, = (root / "dist").glob("*.whl")
    venv = root / "venv"
    sh([sys.executable, "-m", "venv", str(venv)])
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    see_the_running_dependencies(bin_dir / "python")
    sh([str(bin_dir / "python"), "-m", "pip", "install", "--no-deps", "--no-index", "--quiet",
        "--disable-pip-version-check", str(wheel)])
    walk = root / "walk"
    shutil.copytree(RESULTS / "rankings", walk / "rankings")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(KCCA_DATA_DIR="", NLTK_DATA="", MPLBACKEND="Agg",
               KCCA_CACHE_DIR=str(root / "cache"), VIRTUAL_ENV=str(venv),
               PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return walk, env, venv


def dependency_folders() -> list[str]:
    """The site-packages folders the running interpreter imports from (a virtual
    environment's own, which may lie in the checkout, and the base interpreter's where it
    includes them): a fresh environment given these imports the same libraries. (The
    checkout itself is not among them: an editable install reaches it through a ``.pth``
    file, which :func:`see_the_running_dependencies` does not run.)"""
    import site

    folders = [*site.getsitepackages()]
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    on_path = {os.path.realpath(p) for p in sys.path if p}
    return [f for f in dict.fromkeys(folders)
            if os.path.isdir(f) and os.path.realpath(f) in on_path]


def see_the_running_dependencies(python: Path) -> None:
    """Give the environment of ``python`` the running interpreter's dependency folders, as
    plain path lines of a ``.pth`` file: appended after the environment's own site-packages,
    so the installed wheel comes first, and read as folders only (their own ``.pth`` files,
    such as an editable install's import hook for the checkout, are not run)."""
    purelib = sh([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    lines = "".join(f"{folder}\n" for folder in dependency_folders())
    (Path(purelib.stdout.strip()) / "running-interpreter-dependencies.pth").write_text(lines)


def kcca(installed, *args: str) -> subprocess.CompletedProcess:
    walk, env, _ = installed
    return sh(["kcca", *args], cwd=walk, env=env)


@pytest.mark.data_variables
def test_the_wheel_is_imported_with_every_experiment_folder(installed):
    walk, env, venv = installed
    probe = ("import kcca, features\nfrom kcca._systems.spec import default_experiments_dir\n"
             "print(kcca.__file__)\nprint(features.__file__)\n"
             "for name in {names!r}:\n"
             "    d = default_experiments_dir(name)\n"
             "    print(d, *sorted(p.relative_to(d).as_posix() for p in d.rglob('*')\n"
             "                      if p.is_file()), sep='|')\n")
    names = sorted(p.name for p in (REPO / "experiments").iterdir() if p.is_dir())
    done = sh(["python", "-c", probe.format(names=names)], cwd=walk, env=env)
    lines = done.stdout.splitlines()
    for path in lines[:2]:  # the wheel's copy, not the checkout's editable install
        assert Path(path).resolve().is_relative_to(venv.resolve()), path
    for name, line in zip(names, lines[2:]):
        folder, *files = line.split("|")
        assert Path(folder).resolve().is_relative_to(venv.resolve()), (name, folder)
        source = REPO / "experiments" / name  # its files and those of its sub-folders
        want = sorted(p.relative_to(source).as_posix() for p in source.rglob("*")
                      if p.suffix in (".toml", ".md"))
        assert files == want, name


def test_tables_come_back_from_the_committed_results_outside_the_checkout(installed):
    walk, _, _ = installed
    kcca(installed, "reproduce", "--tables-only", "--rankings-dir", "rankings", "--systems",
         "BoW5", "TRI5SEM", "--tables", "3,11", "--no-plots", "--out", "tables")
    for name in ("table3.csv", "table11.csv"):
        with (RESULTS / name).open(newline="", encoding="utf-8") as fh:
            want = list(csv.reader(fh))
        with (walk / "tables" / name).open(newline="", encoding="utf-8") as fh:
            got = list(csv.reader(fh))
        assert len(got) > 10 and all(row in want for row in got), name


def test_demo_runs_from_the_wheel(installed):
    walk, _, _ = installed
    kcca(installed, "demo")
    assert (walk / "kcca-demo-out" / "report" / "index.html").is_file()
    assert (walk / "kcca-demo-out" / "recall_at_k.png").is_file()


def test_the_wheel_environment_has_the_dependencies_of_the_running_interpreter(installed):
    """Every declared dependency resolves in the wheel's environment to the version the tests
    run with, wherever they run: a system Python or a user's virtual environment (whose
    "system" site-packages are the base interpreter's, without the environment's packages)."""
    import importlib.metadata
    import tomllib

    from packaging.requirements import Requirement

    walk, env, _ = installed
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    names = [req.name for req in map(Requirement, declared)
             if req.marker is None or req.marker.evaluate()]
    probe = ("import importlib.metadata as m\n"
             f"for name in {names!r}:\n"
             "    print(name, m.version(name))\n")
    done = sh(["python", "-c", probe], cwd=walk, env=env)
    want = [f"{name} {importlib.metadata.version(name)}" for name in names]
    assert done.stdout.splitlines() == want


def _bad_executor(walk: Path) -> list[str]:
    experiments = walk / "bad-executor"
    shutil.copytree(REPO / "experiments" / "demo", experiments)
    run_toml = experiments / "run.toml"
    run_toml.write_text(run_toml.read_text().replace("[run]\n", '[run]\nexecutor = "foo"\n', 1))
    return ["demo", "--experiments", str(experiments), "--out", "x", "--no-cache"]


def _compact_header(walk: Path, header: object, name: str) -> list[str]:
    import json

    import numpy as np

    with np.load(RESULTS / "rankings" / "BoW5.ranks.npz") as npz:
        members = {key: npz[key] for key in npz.files}
    members["header"] = np.array(header if isinstance(header, str) else json.dumps(header))
    np.savez(walk / f"{name}.ranks.npz", **members)
    return ["evaluate", f"{name}.ranks.npz"]


def _empty_caption(walk: Path) -> list[str]:
    (walk / "refs.json").write_text('{"images": [{"id": 1}], "annotations": '
                                    '[{"image_id": 1, "caption": "a dog runs"}]}')
    (walk / "empty.json").write_text('[{"image_id": 1, "caption": ""}]')
    return ["score-captions", "-r", "refs.json", "-c", "empty.json", "--no-meteor"]


MISTAKES = {
    "run.toml names an unknown executor": _bad_executor,
    "a compact header that is a list": lambda walk: _compact_header(walk, ["format"], "list"),
    "a compact header nested 200,000 deep":
        lambda walk: _compact_header(walk, "[" * 200_000 + "]" * 200_000, "deep"),
    "an empty candidate caption": _empty_caption,
}


@pytest.mark.parametrize("mistake", MISTAKES)
def test_a_user_mistake_is_named_by_the_installed_command(installed, mistake):
    """A mistake in the user's files gives ``error:``/``fix:`` and exit status 2 from the
    installed package as from the checkout: an error's class decides, not where the code
    that raised it lives (installed, the package's own code is in site-packages too)."""
    walk, env, _ = installed
    args = MISTAKES[mistake](walk)
    done = subprocess.run(["kcca", *args], cwd=walk, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("error:") == 1 and "fix:" in done.stderr, done.stderr
    assert "unexpected" not in done.stderr and "Traceback" not in done.stderr, done.stderr
