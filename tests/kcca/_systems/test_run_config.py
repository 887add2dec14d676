"""The one run configuration (:mod:`kcca._systems.config`) and the kernel contract's execution
parameters: execution settings never change a cache key, settings do; an experiment folder's
``run.toml`` is read, checked and overridden by flags."""

from __future__ import annotations

import dataclasses
import json

import pytest

from features._image_features import ImageFeatureConfig
from features.kernels._base import _REGISTRY, numeric_params, with_execution
from kcca._cache import Cache
from kcca.data._demo import make_demo_corpus
from kcca.errors import DataError
from kcca._systems import Workspace
from kcca._systems.config import RUN_FILE, Execution, RunConfig, RunSettings, load_run_table
from kcca._systems.spec import KernelSpec, load_specs
from tests.support.flickr_like import GRID as CLI_GRID
from tests.support.flickr_like import IMAGES, SPEC, write_flickr_like
from tests.support.kernels import load_every_kernel

TINY_IMAGES = ImageFeatureConfig(n_images=10, points_per_image=60, max_iter=10,
                                 vocabulary={"color": 8, "texture": 8, "sift": 8})


def test_of_routes_each_name_to_its_part():
    config = RunConfig.of(seed=3, precision=1e-6, jobs=2, backend="array_api_strict")
    assert config.settings == RunSettings(seed=3, precision=1e-6)
    assert config.execution == Execution(jobs=2, backend="array_api_strict")
    with pytest.raises(TypeError, match="unknown run setting.*colour"):
        RunConfig.of(colour=1)


def test_for_worker_keeps_the_settings_and_the_data_location():
    config = RunConfig.of(seed=4, jobs=8, data_dir="/d", splits="/s", progress=True,
                          executor="processes")
    worker = config.for_worker(jobs=1)
    assert worker.settings == config.settings
    assert (worker.execution.executor, worker.execution.jobs, worker.execution.progress) == \
        ("serial", 1, False)
    assert (worker.execution.data_dir, worker.execution.splits) == ("/d", "/s")


def test_dask_executor_needs_a_scheduler():
    with pytest.raises(ValueError, match="scheduler"):
        Execution(executor="dask")
    with pytest.raises(ValueError, match="executor must be one of"):
        Execution(executor="threads")


def test_header_names_what_changes_the_numbers():
    assert RunConfig().header() == "seed: 0; array backend: numpy"
    line = RunConfig.of(seed=2, precision=1e-5, search_rank=40,
                        image_config=ImageFeatureConfig(seed=2, n_images=10)).header()
    assert line.startswith("seed: 2; array backend: numpy; image features: ")
    assert json.loads(line.split("image features: ")[1].split(";")[0]) == {"n_images": 10}
    assert "solver precision: 1e-05" in line and "search rank: 40" in line


# --------------------------------------------------------------------- the kernel contract
def _kernels():
    load_every_kernel()
    return sorted(_REGISTRY.items())


@pytest.mark.parametrize("name,cls", _kernels(), ids=[n for n, _ in _kernels()])
def test_every_kernel_declares_real_parameters_and_execution_leaves_its_numbers(name, cls):
    kernel = cls()
    params = kernel.get_params(deep=False)
    declared = (*cls.execution_params, *cls.run_inputs)
    assert set(declared) <= set(params), f"{name} declares parameters it does not take"
    before = numeric_params(kernel)
    assert not set(declared) & set(before)
    with_execution(kernel, backend="array_api_strict", n_jobs=3, progress=False, colour=1)
    assert numeric_params(kernel) == before
    for key in ("backend", "n_jobs", "progress"):
        if key in cls.execution_params:
            assert kernel.get_params()[key] == {"backend": "array_api_strict", "n_jobs": 3,
                                                "progress": False}[key]
        elif key in params:  # a numeric parameter of that name is never overwritten
            assert kernel.get_params()[key] == params[key]


# --------------------------------------------------------------- cache keys and execution
@pytest.fixture(scope="module")
def corpus():
    return make_demo_corpus(n_train=30, n_dev=10, n_test=10, image_size=40, seed=3)


def _keys(corpus, cache, config):
    ws = Workspace(corpus, cache, config)
    image = ws.image_blocks(KernelSpec("pyramid"))
    text = ws.text_blocks(KernelSpec("tagrank", {"n_pairs": 50}), "demo")
    trigram = ws.text_blocks(KernelSpec("trigram"), "demo")
    return image.key, text.key, trigram.key


def test_execution_never_changes_a_cache_key_and_settings_do(corpus, tmp_path):
    cache = Cache(tmp_path / "cache")
    base = RunConfig.of(image_config=TINY_IMAGES, progress=False)
    keys = _keys(corpus, cache, base)
    other = base.replace(jobs=2, progress=True, backend="array_api_strict",
                         data_dir="/elsewhere", nltk_path=("/x",))
    assert _keys(corpus, cache, other) == keys
    reseeded = base.replace(seed=5, image_config=dataclasses.replace(TINY_IMAGES, seed=5))
    changed = _keys(corpus, cache, reseeded)
    assert all(a != b for a, b in zip(changed, keys))


# --------------------------------------------------------------------- run.toml
def test_run_table_is_read_and_checked(tmp_path):
    assert load_run_table(tmp_path) == {}
    (tmp_path / RUN_FILE).write_text(
        "[run]\nseed = 7\nprecision = 1e-6\n[run.image_features]\nn_images = 12\n")
    values = load_run_table(tmp_path)
    assert values["seed"] == 7 and values["precision"] == 1e-6
    assert values["image_config"] == ImageFeatureConfig(seed=7, n_images=12)
    assert RunConfig.of(**values).settings.seed == 7

    (tmp_path / RUN_FILE).write_text("[run]\nseeds = 7\n")
    with pytest.raises(DataError, match="unknown key.*seeds") as err:
        load_run_table(tmp_path)
    assert str(tmp_path / RUN_FILE) in str(err.value) and err.value.fix
    (tmp_path / RUN_FILE).write_text("[run.image_features]\nwords = 3\n")
    with pytest.raises(DataError, match="image_features") as err:
        load_run_table(tmp_path)
    # the fix names the table's fields, not a module path a user cannot see
    assert "n_images" in err.value.fix and "vocabulary" in err.value.fix, err.value.fix
    assert "._" not in err.value.fix and str(tmp_path / RUN_FILE) in err.value.fix
    (tmp_path / RUN_FILE).write_text("[run\n")
    with pytest.raises(DataError, match=RUN_FILE):
        load_run_table(tmp_path)


@pytest.mark.data_variables
def test_reproduce_takes_the_folders_run_table_and_flags_override_it(tmp_path, capsys):
    """``experiments/<folder>/run.toml`` sets the seed and image features of ``kcca
    reproduce`` (the folder's systems do not include it); ``--seed`` overrides the file."""
    from kcca._cli import main

    write_flickr_like(tmp_path / "data")
    exp = tmp_path / "exp"
    exp.mkdir()
    (exp / "01-bow5.toml").write_text(SPEC.format(name="BoW5", short="BoW5", model="kcca",
                                                  text="bow", params="", grid=CLI_GRID))
    image = json.loads(IMAGES)
    (exp / RUN_FILE).write_text(
        "[run]\nseed = 3\n[run.image_features]\n"
        + "".join(f"{k} = {json.dumps(v)}\n" for k, v in image.items() if k != "vocabulary")
        + "vocabulary = {" + ", ".join(f"{k} = {v}" for k, v in image["vocabulary"].items())
        + "}\n")
    assert [s.name for s in load_specs(exp)] == ["BoW5"]

    def run(out, *extra):
        rc = main(["reproduce", "--data-dir", str(tmp_path / "data"), "--experiments", str(exp),
                   "--systems", "BoW5", "--tables", "3", "--out", str(out), "--cache-dir",
                   str(tmp_path / "cache"), "--quiet", "--no-plots", "--backend", "numpy",
                   *extra])
        assert rc == 0
        return (out / "table3.md").read_text()

    header = run(tmp_path / "out")
    assert "- seed: 3; array backend: numpy; image features: " in header
    assert '"n_images": 10' in header
    assert "- seed: 5; array backend: numpy" in run(tmp_path / "out5", "--seed", "5")


def test_a_one_system_call_runs_in_its_workspace_or_a_new_one(corpus, tmp_path):
    """``run_system`` and ``fit_system`` take a workspace, or a config and cache for a new
    one (:func:`kcca._systems.blocks.workspace_for`); both, or another corpus's workspace, are
    refused."""
    from kcca._systems.blocks import workspace_for

    config = RunConfig.of(seed=4, progress=False)
    made = workspace_for(corpus, config=config, cache=Cache(tmp_path))
    assert made.config == config and made.cache.enabled and made.corpus is corpus
    assert workspace_for(corpus, made) is made
    assert workspace_for(corpus).config == RunConfig()
    with pytest.raises(ValueError, match="not both"):
        workspace_for(corpus, made, config=config)
    other = make_demo_corpus(n_train=30, n_dev=10, n_test=10, image_size=40, seed=3)
    with pytest.raises(ValueError, match="another corpus"):
        workspace_for(other, made)
