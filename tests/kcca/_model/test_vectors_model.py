"""Saved models of ``vectors`` systems: fitted with ``kcca fit-model --corpus FILE.json``,
saved, loaded and applied to new images and captions given as vectors, from the CLI and from
Python. The saved model ranks the test split's vectors exactly as ``kcca reproduce`` and
``run_system`` rank the same system's test pool."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

from kcca._cache import Cache
from kcca._cli import main
from kcca.data._json_splits import load_json_splits
from kcca._evaluate.rankings_io import read_rankings
from kcca._model import fit_system, load_model, save_model
from kcca._systems import load_spec, run_system
from kcca._systems.blocks import Workspace
from kcca._systems.config import RunConfig
from scripts.synthetic_karpathy import write_example

pytestmark = pytest.mark.slow

#: training images of the synthetic corpus (its dev and test splits: 1,000 images each)
N_TRAIN = 200


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """A synthetic corpus in Karpathy's JSON format with image and caption vectors, its
    experiment folder (``VEC``: linear image vectors, cosine caption vectors) and a cache."""
    out = tmp_path_factory.mktemp("synthetic")
    write_example(out, "flickr30k", N_TRAIN, seed=2, noise=1.0)
    return out


@pytest.fixture(scope="module")
def cli_run(synthetic, tmp_path_factory):
    """``kcca reproduce`` of VEC and ``kcca fit-model`` of it, in one cache folder."""
    cache = tmp_path_factory.mktemp("cache")
    corpus, experiments = synthetic / "dataset_synthetic.json", synthetic / "experiments"
    common = ["--cache-dir", str(cache), "--quiet"]
    assert main(["reproduce", "--corpus", str(corpus), "--experiments", str(experiments),
                 "--systems", "VEC", "--tables", "11", "--no-plots",
                 "--out", str(synthetic / "run"), *common]) == 0
    model = synthetic / "vec.kcca.npz"
    assert main(["fit-model", "--experiment", str(experiments / "VEC.toml"),
                 "--corpus", str(corpus), "--out", str(model), *common]) == 0
    return model, synthetic / "run" / "rankings" / "VEC.json"


def _test_vectors(synthetic: Path, folder: Path) -> tuple[Path, Path, list[str], list[str]]:
    """The test split's image vectors and its pool captions' vectors, as new files."""
    corpus = load_json_splits(synthetic / "dataset_synthetic.json", None, require_splits=True)
    test = list(corpus.split("test"))
    captions = [cid for _, cid, _ in corpus.pool("test")]
    paths = []
    for name, ids in (("images", test), ("captions", captions)):
        with np.load(synthetic / "experiments" / f"{name}.npz") as f:
            index = {str(i): r for r, i in enumerate(f["ids"])}
            vectors = f["vectors"][[index[i] for i in ids]]
        path = folder / f"new-{name}.npz"
        np.savez(path, ids=np.array(ids), vectors=vectors)
        paths.append(path)
    return paths[0], paths[1], test, captions


@pytest.mark.data_variables
def test_cli_fit_model_ranks_test_vectors_as_reproduce(cli_run, synthetic, tmp_path, capsys):
    """The model file of ``kcca fit-model`` ranks the test split's vectors (given as new
    files) exactly as ``kcca reproduce`` ranked the test pool: the same rankings, every
    query, every candidate."""
    from kcca._model.vectors import VectorsEncoder

    model_file, rankings_file = cli_run
    model = load_model(model_file)
    assert isinstance(model.image, VectorsEncoder) and isinstance(model.text, VectorsEncoder)
    assert model.image.folded and model.text.folded  # linear and cosine: no training vector
    images, captions, test, caption_ids = _test_vectors(synthetic, tmp_path)
    corpus = load_json_splits(synthetic / "dataset_synthetic.json", None, require_splits=True)
    expected = read_rankings(rankings_file, corpus.pool("test")).tasks
    names, zx = model.project_vectors("image", images)
    assert names == test
    annotation = model.rank_pool("annotation", zx, model.caption_pool.projections)
    names, zy = model.project_vectors("text", captions)
    assert names == caption_ids
    search = model.rank_pool("search", zy, model.image_pool.projections)
    np.testing.assert_array_equal(annotation, expected["annotation"])
    np.testing.assert_array_equal(search, expected["search"])
    # the rankings one by one, 256 queries at a time: the same first candidates
    firsts = [r.ids[0] for r in model.rank_captions_for_vectors(images, top=1)]
    assert firsts == [caption_ids[i] for i in expected["annotation"][:, 0]]

    # the CLI prints the top of each ranking: the first 20 test images and captions
    few_images, few_captions = tmp_path / "few-images.npy", tmp_path / "few-captions.npz"
    with np.load(images) as f:
        np.save(few_images, f["vectors"][:20])
    few_images.with_name("few-images.ids.txt").write_text("\n".join(test[:20]) + "\n")
    with np.load(captions) as f:
        np.savez(few_captions, ids=f["ids"][:20], vectors=f["vectors"][:20])
    capsys.readouterr()
    assert main(["annotate", "--vectors", str(few_images), "--model", str(model_file),
                 "--top", "3", "--quiet"]) == 0
    out = capsys.readouterr().out
    printed = re.findall(r"^\s+1\s+(\S+#\d)\s", out, flags=re.M)
    assert printed == [caption_ids[i] for i in expected["annotation"][:20, 0]]
    assert main(["query", "--vectors", str(few_captions), "--model", str(model_file),
                 "--top", "3", "--quiet"]) == 0
    out = capsys.readouterr().out
    printed = re.findall(r"^\s+1\s+(\S+\.jpg)\s", out, flags=re.M)
    assert printed == [test[i] for i in expected["search"][:20, 0]]


def test_the_model_file_is_the_size_of_the_vectors_not_of_the_training_set(cli_run):
    """Folded sides keep (dimension x n) directions: no array of the model has a row per
    training image."""
    model = load_model(cli_run[0])
    assert model.projections.rows("x") == model.image.dim == 64
    assert model.projections.rows("y") == model.text.dim == 48
    assert model.info["n_train"] == N_TRAIN


def test_python_fit_save_load_apply_equals_run_system(synthetic, tmp_path):
    """From Python: an image kernel whose rows need the training vectors (kept, (n_train,
    dim)) beside a folded cosine text kernel; the loaded model's rankings of the test
    vectors equal run_system's, and its rankings for one image and one caption are the
    rows of those."""
    corpus = load_json_splits(synthetic / "dataset_synthetic.json", None, require_splits=True)
    spec = load_spec(synthetic / "experiments" / "VEC.toml")
    params = {**spec.image_kernel.params, "function": "rbf"}
    spec = dataclasses.replace(
        spec, image_kernel=dataclasses.replace(spec.image_kernel, params=params)
    )
    ws = Workspace(corpus, Cache(tmp_path / "cache"), RunConfig.of(progress=False))
    result = run_system(corpus, spec, workspace=ws, keep_models=True)
    fitted = fit_system(corpus, spec, workspace=ws, result=result)
    path = save_model(fitted, tmp_path / "m.kcca.npz")
    model = load_model(path)
    assert not model.image.folded and model.image.train_vectors.shape == (N_TRAIN, 64)
    assert model.text.folded and model.text.train_vectors is None
    images, captions, test, caption_ids = _test_vectors(synthetic, tmp_path)
    _, zx = model.project_vectors("image", images)
    _, zy = model.project_vectors("text", captions)
    annotation = model.rank_pool("annotation", zx, model.caption_pool.projections)
    search = model.rank_pool("search", zy, model.image_pool.projections)
    np.testing.assert_array_equal(annotation, result.rankings["annotation"])
    np.testing.assert_array_equal(search, result.rankings["search"])
    (one,) = model.rank_captions_for_vectors(images, ids=[test[7]], top=5)
    assert one.ids == [caption_ids[i] for i in result.rankings["annotation"][7][:5]]
    (one,) = model.rank_images_for_vectors(captions, ids=[caption_ids[3]], top=5)
    assert one.ids == [test[i] for i in result.rankings["search"][3][:5]]
