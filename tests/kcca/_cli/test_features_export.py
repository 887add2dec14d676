"""``kcca features --export``: the images' vectors under an image kernel, written in the
``vectors`` kernel's formats and loaded back by its reader; refused settings are named
(``error:`` / ``fix:``, exit status 2) before any image is read."""

from __future__ import annotations

import json

import numpy as np
import pytest

import features._feature_types
from features._feature_types import FeatureType
from features._vectors_file import read_item_vectors
from kcca._cli import features_cmd, main
from kcca.data._corpus import SPLITS
from kcca.data._demo import make_demo_corpus

FISHER = "{n_gaussians = 2, pca_dim = 4, strips = 1, sample_images = 10, per_image = 30, step = 6}"


@pytest.fixture(scope="module")
def corpus():
    return make_demo_corpus(n_train=20, n_dev=5, n_test=5, image_size=48, seed=1,
                            judgments=False)


@pytest.fixture
def small(monkeypatch, corpus):
    """The demo corpus above, and the paper's feature types with 8-word codebooks."""
    paper = features._feature_types.feature_types()
    monkeypatch.setattr(features_cmd, "load_corpus", lambda args: corpus)
    monkeypatch.setattr(features._feature_types, "feature_types",
                        lambda: {n: FeatureType(n, t.extract, 8) for n, t in paper.items()})
    return corpus


def argv(tmp_path, *more: str) -> list[str]:
    return ["features", "--cache-dir", str(tmp_path / "cache"), "--codebook-images", "5",
            "--points-per-image", "50", "--quiet", *more]


def test_pyramid_vectors_to_npz(small, tmp_path, capsys):
    out = tmp_path / "pyramid.npz"
    assert main(argv(tmp_path, "--export", str(out))) == 0
    text = capsys.readouterr().out
    assert "exported 30 pyramid vectors of 504 dimensions in" in text  # 21 cells x 3 x 8
    assert f'params = {{path = "{out}", function = "intersection"}}' in text
    loaded = read_item_vectors(out)
    assert list(loaded.ids) == [i for s in SPLITS for i in small.split(s)]
    assert isinstance(loaded.vectors, np.memmap) and loaded.vectors.dtype == np.float32
    # eq. 8's level weights and eq. 6's 1/3 are in the vector: k(x, x) = its sum = 1
    np.testing.assert_allclose(loaded.vectors.sum(axis=1), 1.0, atol=1e-5)
    assert not list(tmp_path.glob(".*.tmp"))  # written through a temporary file


def test_fisher_vectors_of_one_split_to_npy(small, tmp_path, capsys):
    out = tmp_path / "fv.npy"
    code = main(argv(tmp_path, "--split", "test", "--export", str(out), "--export-kernel",
                     "fisher", "--export-params", FISHER, "--json"))
    assert code == 0
    summary = json.loads(capsys.readouterr().out)["export"]
    assert summary["function"] == "linear-float32" and summary["images"] == 5
    assert summary["files"] == [str(out), str(tmp_path / "fv.ids.txt")]
    loaded = read_item_vectors(out)
    assert list(loaded.ids) == list(small.split("test"))
    assert loaded.vectors.shape == (5, 2 * 2 * 4 * 2)
    np.testing.assert_allclose(np.linalg.norm(loaded.vectors, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("flags,error,fix", [
    (["--export", "{tmp}/v.csv"], "cannot write vectors as '.csv'", ".npz"),
    (["--export", "{tmp}/a-file/v.npz"], "a-file", ""),
    (["--export", "{tmp}/v.npz", "--export-params", "{bin_sizes = [4,}"], "not a TOML inline table",
     "--export-params '{bin_sizes"),
    (["--export", "{tmp}/v.npz", "--export-params", "{p = 2}"], "before the power p",
     "leave p out"),
    (["--export", "{tmp}/v.npz", "--export-kernel", "fisher", "--export-params",
      "{gaussians = 2}"], "does not take these parameters", "parameters of the fisher"),
    (["--export-params", "{step = 4}"], "--export-params is given without --export",
     "add --export"),
])
def test_refused_before_any_image_is_read(tmp_path, capsys, monkeypatch, flags, error, fix):
    (tmp_path / "a-file").write_text("not a folder")
    monkeypatch.setattr(features_cmd, "load_corpus", pytest.fail)
    code = main(argv(tmp_path, *(f.replace("{tmp}", str(tmp_path)) for f in flags)))
    err = capsys.readouterr().err
    assert code == 2, err
    assert "error:" in err and error in err and "fix:" in err and fix in err
    assert not list(tmp_path.glob("v.*"))


def test_an_unknown_kernel_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv(tmp_path, "--export", str(tmp_path / "v.npz"), "--export-kernel", "bow"))
    assert stop.value.code == 2
    assert "--export-kernel: invalid choice: 'bow'" in capsys.readouterr().err
