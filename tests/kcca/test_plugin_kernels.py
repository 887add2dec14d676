"""The plug-in example (examples/colour_moments, docs/plugin-kernels.md) end to end.

Registration through an experiment file's ``plugins`` key and through the entry-point group
``kcca.kernels`` (a fake installed package), the Gram blocks of both kernels on demo images
and captions, a small KCCA system run from the experiment file, and the same file through
``kcca reproduce``.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

from features.kernels._base import available_kernels, make_kernel
from kcca._cache import Cache, cache_stats, reset_cache_stats
from kcca.data._demo import make_demo_corpus
from kcca.errors import PluginError
from kcca._systems import check_names, load_spec, run_system
from kcca._systems.config import RunConfig
from tests.support.flickr_like import write_flickr_like
from tests.support.plugin_packages import fake_package

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "colour_moments" / "experiment.toml"


@pytest.fixture(scope="module")
def spec():
    return load_spec(EXAMPLE)


@pytest.fixture(scope="module")
def corpus():
    return make_demo_corpus(n_train=60, n_dev=20, n_test=20, image_size=32, seed=1,
                            judgments=False)


def test_experiment_file_registers_the_plugin(spec):
    assert spec.plugins == ("colour_moments_kernels",)
    assert "colour_moments_kernels" in sys.modules
    assert {"colour-moments", "char-ngrams"} <= set(available_kernels())
    assert spec.image_kernel.name == "colour-moments" and spec.text_kernel.name == "char-ngrams"
    assert check_names(spec) == []


def _psd(k: np.ndarray) -> bool:
    return np.allclose(k, k.T) and np.linalg.eigvalsh((k + k.T) / 2).min() > -1e-8


def test_gram_blocks_on_demo_images_and_captions(spec, corpus):
    train, dev = corpus.split("train")[:8], corpus.split("dev")[:3]
    images = [corpus.load_image(i) for i in train]
    image_kernel = spec.image_kernel.build().fit(images)
    k = image_kernel.gram(images)
    assert k.shape == (8, 8) and _psd(k) and np.allclose(np.diag(k), 1.0)
    assert np.allclose(image_kernel.diag(images), 1.0)
    block = image_kernel.gram([corpus.load_image(i) for i in dev])
    assert block.shape == (3, 8) and ((block > 0) & (block <= 1)).all()
    assert image_kernel.params == {"grid": 2, "gamma": None} and image_kernel.gamma_ > 0

    captions = [[c.lower().split() for c in corpus.captions[i]] for i in train]  # 5 per item
    text_kernel = spec.text_kernel.build().fit(captions)
    t = text_kernel.gram(captions)
    assert t.shape == (8, 8) and _psd(t) and np.allclose(np.diag(t), 1.0)
    query = corpus.captions[train[0]][2].lower().split()
    row = text_kernel.gram([query])[0]
    assert row.argmax() == 0  # a caption is closest to its own image's five captions
    # a string, a token list and a one-caption list are the same item
    same = text_kernel.gram([" ".join(query), query, [query]])
    assert np.allclose(same, same[0])


def test_tiny_kcca_system_from_the_experiment_file(spec, corpus, tmp_path):
    small = dataclasses.replace(spec, grid=dataclasses.replace(spec.grid, kappas=(0.5,)))
    reset_cache_stats()
    res = run_system(corpus, small, cache=Cache(tmp_path), config=RunConfig.of(progress=False))
    for task in ("annotation", "search"):
        r = res.rankings[task]
        assert r.shape == (20, 20) and (np.sort(r, axis=1) == np.arange(20)).all()
    assert res.chosen["p"] in spec.grid.p and res.chosen["d"] in spec.grid.d
    first = cache_stats()
    assert first["system-dev"] == {"computed": 4, "loaded": 0}
    assert first["system-image-gram"] == {"computed": 1, "loaded": 0}
    reset_cache_stats()
    again = run_system(corpus, small, cache=Cache(tmp_path), config=RunConfig.of(progress=False))
    assert again.table() == res.table()
    stats = cache_stats()
    assert all(c["computed"] == 0 for c in stats.values()) and stats["system-dev"]["loaded"] == 4


@pytest.mark.data_variables
def test_the_experiment_file_through_kcca_reproduce(tmp_path, capsys):
    from kcca._cli import main

    write_flickr_like(tmp_path / "data")
    args = ["reproduce", "--experiments", str(EXAMPLE.parent), "--systems", "CM_CHAR3",
            "--tables", "11", "--data-dir", str(tmp_path / "data"),
            "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "out")]
    assert main(args) == 0
    assert (tmp_path / "out" / "rankings" / "CM_CHAR3.json").is_file()
    assert "CM_CHAR3: p=" in capsys.readouterr().out
    assert main(args + ["--force"]) == 0  # the folder now holds this run's tables
    err = capsys.readouterr().err
    assert "cache: system-image-gram 0 computed / 1 loaded" in err


# ------------------------------------------------------------------- entry points
PLUGIN_MODULE = '''
import numpy as np
from features.kernels._base import Kernel


class DotKernel(Kernel):
    item_type = "text"

    def __init__(self, scale=1.0):
        self.scale = scale

    def _gram(self, a, b):
        return self.scale * np.asarray(a, float) @ np.asarray(b, float).T
'''


def test_entry_point_is_loaded_lazily(tmp_path, monkeypatch):
    fake_package(tmp_path, {"fake-dot": "kcca_fake_plugin_mod:DotKernel"}, PLUGIN_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "fake-dot" in available_kernels()
    assert "kcca_fake_plugin_mod" not in sys.modules  # listed, not imported
    k = make_kernel("fake-dot", scale=2.0).fit([[1.0, 0.0], [0.0, 1.0]])
    assert "kcca_fake_plugin_mod" in sys.modules and k.name == "fake-dot"
    np.testing.assert_array_equal(k.gram([[1.0, 2.0]]), [[2.0, 4.0]])


def test_broken_entry_point_is_a_plugin_error(tmp_path, monkeypatch):
    fake_package(tmp_path, {"fake-broken": "kcca_no_such_module_xyz:Kernel"})
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "fake-broken" in available_kernels()  # listing does not import it
    make_kernel("bow")  # other kernels are unaffected
    with pytest.raises(PluginError, match="kernel plug-in 'fake-broken'.*failed to import") as e:
        make_kernel("fake-broken")
    assert "kcca-fake-plugin" in str(e.value) and "reinstall" in e.value.fix


def test_a_plugin_kernel_mixed_with_another_by_mix(spec, corpus, tmp_path):
    """docs/plugin-kernels.md: a plug-in's blocks averaged with another kernel's by ``mix``."""
    from kcca._systems import KernelSpec, Workspace

    ws = Workspace(corpus, Cache(tmp_path), RunConfig.of(progress=False))
    cm = KernelSpec("colour-moments", {"grid": 2})
    other = KernelSpec("colour-moments", {"grid": 1})
    mix = KernelSpec("mix", {"parts": [{"name": "colour-moments", "params": {"grid": 2}},
                                       {"name": "colour-moments", "params": {"grid": 1},
                                        "weight": 3}]})
    a, b, m = ws.image_blocks(cm), ws.image_blocks(other), ws.image_blocks(mix)
    for split in ("train", "dev", "test"):
        np.testing.assert_allclose(m[split], (a[split] + 3 * b[split]) / 4)
