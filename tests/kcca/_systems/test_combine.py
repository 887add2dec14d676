"""How a KCCA system combines its dev-selected models (``combine``, kcca._systems.grid).

A system on ``vectors`` kernels lets the dev split choose between the best model alone and
the Borda count of the best 3, 5 or 15 (by their dev R@1 + R@5 + R@10); the paper's systems
keep Section 4.1.3 (5 models by each of R@1, R@5, R@10), as does any system that asks for it
(``combine = "paper"``) or sets its own ``per_criterion``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from kcca._cache import Cache
from kcca.data._demo import make_demo_corpus
from kcca._evaluate.results_files import chosen_text
from kcca._systems import load_spec, load_specs, run_system
from kcca._systems.config import RunConfig
from kcca._systems.spec import ExperimentFileError
from tests.support.planted_vectors import plant_vectors

ROOT = Path(__file__).resolve().parents[3]

#: linear kernels over 8-dimensional planted vectors: the 8 directions of (0.1, 8) recover
#: the hidden vectors, 1 or 2 directions rank far worse, so that model alone is clearly best
EXPERIMENT = """name = "VEC"
preprocessing = "demo"
{extra}
[image_kernel]
name = "vectors"
params = {{path = "{images}", function = "linear"}}

[text_kernel]
name = "vectors"
params = {{path = "{captions}", function = "linear"}}

[grid]
p = [1]
d = [1]
kappas = [0.1]
n = [1, 2, 8]
"""


@pytest.fixture(scope="module")
def corpus():
    return make_demo_corpus(n_train=60, n_dev=20, n_test=20, image_size=32, seed=1,
                            judgments=False)


def _spec(folder: Path, corpus, extra: str = ""):
    images, captions = plant_vectors(corpus, folder)
    path = folder / "VEC.toml"
    path.write_text(EXPERIMENT.format(images=images.as_posix(), captions=captions.as_posix(),
                                      extra=extra), encoding="utf-8")
    return load_spec(path)


def _run(corpus, spec, folder: Path):
    return run_system(corpus, spec, cache=Cache(folder / "cache"),
                      config=RunConfig.of(progress=False))


def test_the_dev_split_keeps_the_clearly_best_model_alone(corpus, tmp_path):
    spec = _spec(tmp_path, corpus)
    assert spec.combine == "auto" and spec.combination == "dev"
    res = _run(corpus, spec, tmp_path)
    combination = res.chosen["combination"]
    for task in ("annotation", "search"):
        assert res.chosen["selected"][task] == [[0.1, 8]]
        record = combination[task]
        assert record["models"] == 1 and record["by"] == "dev R@1+R@5+R@10"
        scores = {c["models"]: c["dev R@1+R@5+R@10"] for c in record["candidates"]}
        assert list(scores) == [1, 3]  # 15 and 5 are more models than the grid has
        assert scores[1] > scores[3]
    # the header of the tables and the details say what was kept and why
    text = chosen_text(res.chosen)
    assert text.startswith("p=1, d=1, annotation: the best model alone (dev R@1+R@5+R@10 of "
                           "the best 1 / 3 models: ")
    assert "; search: the best model alone" in text
    assert res.to_json()["dev"][0]["annotation"]["combination"] == combination["annotation"]


def test_the_paper_combination_is_kept_on_request(corpus, tmp_path):
    for extra in ('combine = "paper"', "per_criterion = 1"):
        spec = _spec(tmp_path, corpus, extra)
        assert spec.combination == "paper"
        res = _run(corpus, spec, tmp_path)
        assert "combination" not in res.chosen
        # 3 settings: all taken (5 by each R@k, or 1 by each)
        assert all(len(m) == 3 for m in res.chosen["selected"].values())
        assert chosen_text(res.chosen) == "p=1, d=1"


def test_the_dev_choice_ranks_the_test_pool_no_worse_here(corpus, tmp_path):
    dev = _run(corpus, _spec(tmp_path, corpus), tmp_path).table()
    paper = _run(corpus, _spec(tmp_path, corpus, 'combine = "paper"'), tmp_path).table()
    for task in ("annotation", "search"):
        assert dev[task]["R@1"] >= paper[task]["R@1"], (dev, paper)


def test_the_paper_systems_keep_the_papers_combination():
    specs = load_specs(ROOT / "experiments" / "hodosh2013")
    assert len(specs) >= 10
    for spec in specs:
        assert spec.combine == "auto" and spec.combination == "paper", spec.name
        assert spec.per_criterion == 5
    # a vectors kernel on one side only (the exported round trip) is not a vectors system
    for side in ("built-in", "exported"):
        (spec,) = load_specs(ROOT / "experiments" / "vectors" / side)
        assert spec.combination == "paper"


def test_the_paper_systems_cache_keys_have_no_combine(corpus, tmp_path):
    from kcca._systems.blocks import Workspace
    from kcca._systems.runner import _KccaGrids

    spec = _spec(tmp_path, corpus, 'combine = "paper"')
    ws = Workspace(corpus, Cache(None), RunConfig.of(progress=False))
    image = ws.image_blocks(spec.image_kernel)
    text = ws.text_blocks(spec.text_kernel, spec.preprocessing, spec.word_kernel)
    grids = _KccaGrids(ws, spec, image, text, None, spec.grid.n_values(60), "raise")
    assert "combine" not in grids.base_key
    dev = dataclasses.replace(grids, spec=dataclasses.replace(spec, combine="dev"))
    assert dev.base_key == {**grids.base_key, "combine": "dev"}


@pytest.mark.parametrize("extra, message", [
    ('combine = "best"', "combine must be one of ('auto', 'paper', 'dev'), got 'best'"),
    ('combine = "dev"\nper_criterion = 2',
     'per_criterion = 2 applies to combine = "paper" only'),
])
def test_a_bad_combine_names_the_file(corpus, tmp_path, extra, message):
    with pytest.raises(ExperimentFileError) as info:
        _spec(tmp_path, corpus, extra)
    assert str(tmp_path / "VEC.toml") in str(info.value) and message in str(info.value)
