"""SystemSpec: TOML/JSON loading, validation, selection by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kcca.data._errors import DataError
from kcca._solver import PAPER_KAPPAS, paper_n_grid
from kcca._systems import KernelSpec, SystemSpec, check_names, load_spec, select_specs
from kcca._systems.spec import PAPER_D, PAPER_P

TOML = """
name = "TRI5^sqrtidf_A,D(BNC+ic)"
short_name = "TRI5SEM"
word_kernel = "dist-avg+align"

[image_kernel]
name = "pyramid"

[text_kernel]
name = "trigram"
params = {weighting = "sqrt-idf"}

[grid]
d = [1, 4]
n = [10, 20]
"""


def test_toml_round_trip(tmp_path):
    path = tmp_path / "sem.toml"
    path.write_text(TOML)
    spec = load_spec(path)
    assert spec.name == "TRI5^sqrtidf_A,D(BNC+ic)" and spec.label == "TRI5SEM"
    assert spec.model == "kcca" and spec.preprocessing == "auto"
    assert spec.text_kernel == KernelSpec("trigram", {"weighting": "sqrt-idf"})
    assert spec.grid.p == PAPER_P and spec.grid.d == (1.0, 4.0)
    assert spec.grid.kappas == PAPER_KAPPAS
    assert spec.grid.n_values().tolist() == [10, 20]
    again = SystemSpec.from_dict(json.loads(json.dumps(spec.as_dict())))
    assert again == spec
    assert check_names(spec) == []


def test_json_and_defaults(tmp_path):
    path = tmp_path / "bow5.json"
    path.write_text(json.dumps({"name": "BoW5", "image_kernel": "pyramid",
                                "text_kernel": {"name": "bow"}}))
    spec = load_spec(path)
    assert spec.grid.d == PAPER_D and (spec.grid.n_values() == paper_n_grid()).all()
    assert len(spec.grid.n_values()) == 46


@pytest.mark.parametrize("patch, message", [
    ({"colour": 1}, "unknown key"),
    ({"model": "svm"}, "model must be"),
    ({"image_kernel": {"name": "pyramid", "params": {"p": 2}}}, "grid.p"),
    ({"grid": {"d": [0.5]}}, "d values"),
    ({"grid": {"kappas": []}}, "non-empty"),
    ({"grid": {"n": "all"}}, "'paper'"),
    ({"grid": {"q": [1]}}, "unknown key"),
    ({"grid": {"kappas": [0.1, float("inf")]}}, "no inf or nan"),
    ({"grid": {"p": [float("nan")]}}, "no inf or nan"),
    ({"grid": {"d": [1, float("inf")]}}, "no inf or nan"),
])
def test_bad_specs_raise(patch, message):
    data = {"name": "X", "image_kernel": "pyramid", "text_kernel": "bow", **patch}
    with pytest.raises(DataError, match=message):
        SystemSpec.from_dict(data)


def test_missing_key_and_bad_names():
    with pytest.raises(DataError, match="missing required key 'text_kernel'"):
        SystemSpec.from_dict({"name": "X", "image_kernel": "pyramid"})
    spec = SystemSpec("X", KernelSpec("pyramid"), KernelSpec("bow"), word_kernel="lin")
    assert any("needs the trigram" in p for p in check_names(spec))
    spec = SystemSpec("X", KernelSpec("bow"), KernelSpec("nope"), word_kernel="wordnet")
    problems = " ".join(check_names(spec))
    assert "image kernel 'bow'" in problems and "'nope'" in problems and "'wordnet'" in problems


def test_select_specs_by_either_name():
    a = SystemSpec("NN5_F1^idf", KernelSpec("pyramid"), KernelSpec("nn-f1", {"idf": True}),
                   model="nn", short_name="NN")
    b = SystemSpec("BoW5", KernelSpec("pyramid"), KernelSpec("bow"), short_name="BoW5")
    assert select_specs([a, b], None) == [a, b]
    assert select_specs([a, b], ["BoW5", "NN5_F1^idf"]) == [b, a]
    assert select_specs([a, b], ["NN"]) == [a]
    with pytest.raises(DataError, match="unknown system 'TRI5'"):
        select_specs([a, b], ["TRI5"])


def test_the_default_experiments_folder_of_an_install_without_the_source_tree(tmp_path,
                                                                                monkeypatch):
    """A clone (editable install) finds experiments/hodosh2013 beside the package; without
    either the clone's or the installed package's copy the current folder is looked in, and a
    missing folder is a named error whose fix says where the experiment files are."""
    import kcca._systems.spec as spec_module
    from kcca.errors import DataError
    from kcca._systems.spec import default_experiments_dir, load_specs

    assert (default_experiments_dir() / "05-BoW1.toml").is_file()
    monkeypatch.setattr(spec_module, "__file__", str(tmp_path / "site" / "kcca" / "systems" /
                                                     "spec.py"))
    monkeypatch.chdir(tmp_path)
    assert default_experiments_dir() == Path("experiments") / "hodosh2013"
    with pytest.raises(DataError, match="no folder experiments/hodosh2013") as err:
        load_specs(default_experiments_dir())
    assert "folder of experiment files" in err.value.fix
    (tmp_path / "experiments" / "hodosh2013").mkdir(parents=True)
    with pytest.raises(DataError, match=r"no experiment files \*\.toml") as err:
        load_specs(default_experiments_dir())
    assert "kcca/experiments/ of an installed package" in err.value.fix


def test_a_geometric_n_grid_ends_at_the_training_size(tmp_path):
    """``n = "geometric:START:COUNT"``: COUNT rounded values from START to the number of
    training images (the demo's grid), written out by ``for_training_size``."""
    import numpy as np

    from kcca._systems.spec import GridSpec

    path = tmp_path / "g.toml"
    path.write_text(TOML.replace("n = [10, 20]", 'n = "geometric:5:30"'))
    spec = load_spec(path)
    assert spec.grid.n == "geometric:5:30"
    expected = np.unique(np.round(np.geomspace(5, 400, 30))).astype(int)
    assert spec.grid.n_values(400).tolist() == expected.tolist()
    fixed = spec.for_training_size(400)
    assert fixed.grid.n == tuple(expected.tolist()) and fixed.name == spec.name
    assert GridSpec(n=(5, 10)).for_training_size(400).n == (5, 10)
    assert spec.for_training_size(400).grid.n_values().tolist() == expected.tolist()
    with pytest.raises(DataError, match="training images: not given"):
        spec.grid.n_values()
    with pytest.raises(DataError, match="starts at 5, above the 3 training images"):
        spec.grid.n_values(3)


@pytest.mark.parametrize("rule", ["geometric", "geometric:5", "geometric:0:3", "geometric:5:x",
                                  "geometric:5:3:1", "linear:5:30"])
def test_a_malformed_n_rule_is_named_with_a_fix(tmp_path, rule):
    path = tmp_path / "bad.toml"
    path.write_text(TOML.replace("n = [10, 20]", f'n = "{rule}"'))
    with pytest.raises(DataError, match="geometric:START:COUNT") as err:
        load_spec(path)
    assert str(path) in str(err.value) and "geometric:5:30" in err.value.fix


def test_with_grid_replaces_only_the_fields_given_and_checks_them():
    spec = SystemSpec("X", KernelSpec("pyramid"), KernelSpec("bow"))
    assert spec.with_grid(p=None, d=None) is spec
    changed = spec.with_grid(p=[2.0], d=None, kappas=[0.5, 1.0])
    assert changed.grid.p == (2.0,) and changed.grid.kappas == (0.5, 1.0)
    assert changed.grid.d == spec.grid.d and changed.name == spec.name
    with pytest.raises(DataError, match="d values must be >= 1"):
        spec.with_grid(d=[0.5])


@pytest.mark.parametrize("key, line", [("kappas", "kappas = [0.1, inf]"), ("p", "p = [inf]"),
                                       ("d", "d = [nan]")])
def test_a_non_finite_grid_value_in_a_file_is_named_with_the_file(tmp_path, key, line):
    """TOML reads ``inf`` and ``nan`` as numbers; the grid refuses them before any work."""
    path = tmp_path / "bad.toml"
    path.write_text(TOML.replace("n = [10, 20]", line).replace("d = [1, 4]\n", "")
                    if key == "d" else TOML.replace("n = [10, 20]", line))
    refused = rf"grid.{key}' must be an array of numbers \(no inf or nan"
    with pytest.raises(DataError, match=refused) as err:
        load_spec(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize("grid", [{"kappas": [float("inf")]}, {"p": [float("inf")]},
                                  {"d": [float("nan")]}])
def test_a_non_finite_grid_value_from_code_or_flags_is_refused(grid):
    spec = SystemSpec("X", KernelSpec("pyramid"), KernelSpec("bow"))
    with pytest.raises(DataError, match="and finite"):
        spec.with_grid(**grid)
