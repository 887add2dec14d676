"""Saved models (kcca._model): same rankings as run_system, save/load, format errors, bad
queries."""

from __future__ import annotations

import json
import os

import cv2
import joblib
import numpy as np
import pytest

from kcca._cache import Cache
from kcca._cli import main
from kcca.data._errors import DataError
from kcca._model import (FittedSystem, ModelFormatError, QueryError, fit_system, load_model,
                        read_header, save_model)
from kcca._model import file_format
from kcca._model import saved as saved_module
from kcca._model.build import demo_spec_and_corpus
from kcca._systems import Workspace, run_system
from kcca._systems.config import RunConfig

def _plain(value):
    """``value`` as the JSON header holds it (tuples become lists)."""
    return json.loads(json.dumps(value))


QUERIES = ("a red circle", "a large blue square on the grass", "yellow star", "a striped triangle")


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A small demo system (120 / 40 / 40 images, 10 values of n), run and fitted."""
    cache = Cache(tmp_path_factory.mktemp("cache"))
    spec, corpus, image_config = demo_spec_and_corpus(n_train=120, n_dev=40, n_test=40,
                                                      n_count=10, p=[2], d=[1, 3])
    ws = Workspace(corpus, cache, RunConfig.of(progress=False, image_config=image_config))
    result = run_system(corpus, spec, workspace=ws, keep_models=True)
    model = fit_system(corpus, spec, workspace=ws, result=result)
    return model, result, corpus, ws


@pytest.fixture(scope="module")
def saved(small, tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "small.kcca.npz"
    save_model(small[0], path)
    return path


@pytest.mark.slow
def test_pool_rankings_equal_run_system(small):
    """The saved directions and Borda give run_system's test rankings (Section 4.1.3)."""
    model, result, corpus, ws = small
    text = ws.text_blocks(model.spec.text_kernel, model.spec.preprocessing)
    zy = model.projections.project_y(text.test)
    np.testing.assert_array_equal(model.rank_pool("search", zy, model.image_pool.projections),
                                  result.rankings["search"])
    np.testing.assert_array_equal(
        model.rank_pool("annotation", model.image_pool.projections,
                        model.caption_pool.projections), result.rankings["annotation"])


def test_model_holds_the_runs_own_directions_and_solves_nothing_again(small, monkeypatch):
    """fit_system saves the grid run_system ranked with: no second KCCA solve."""
    from kcca import _solver as solver
    from kcca._systems.fitted import Projections

    model, result, corpus, ws = small
    assert isinstance(result.models, Projections) and model.projections is result.models
    assert result.models.selected == {t: [tuple(m) for m in ms]
                                      for t, ms in result.chosen["selected"].items()}

    def no_solve(*args, **kwargs):
        raise AssertionError("fit_system solved the KCCA grid again")

    monkeypatch.setattr(solver.KCCAGrid, "fit", no_solve)
    again = fit_system(corpus, model.spec, workspace=ws, result=result)
    assert again.projections is result.models


def test_models_file_of_the_previous_layout_still_loads():
    """Model files name Projections by its former module; the loader maps it to the new one."""
    from kcca._model import file_format
    from kcca._systems.fitted import Projections

    assert file_format.CLASSES.resolve("kcca._model.saved:Projections") is Projections


def test_free_text_and_free_image_paths_equal_run_system(small):
    """Raw sentences and raw images, encoded with the saved state, rank as the test pool."""
    model, result, corpus, _ = small
    rows = [model.rank_images(text).indices for _, _, text in corpus.pool("test")]
    np.testing.assert_array_equal(np.array(rows), result.rankings["search"])
    rows = [model.rank_captions(corpus.load_image(i)).indices for i in corpus.split("test")]
    np.testing.assert_array_equal(np.array(rows), result.rankings["annotation"])


def test_save_load_round_trip_gives_identical_scores(small, saved):
    model = small[0]
    loaded = load_model(saved)
    assert isinstance(loaded, FittedSystem)
    assert loaded.spec == model.spec and loaded.chosen == model.chosen
    for q in QUERIES:
        a, b = model.rank_images(q), loaded.rank_images(q)
        np.testing.assert_array_equal(a.indices, b.indices)
        np.testing.assert_array_equal(a.points, b.points)
        np.testing.assert_array_equal(a.cosine, b.cosine)
    image = small[2].load_image(small[2].split("test")[0])
    a, b = model.rank_captions(image), loaded.rank_captions(image)
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.cosine, b.cosine)
    header = read_header(saved)
    assert header["format_version"] == saved_module.FORMAT_VERSION
    assert header["kcca_version"] and header["spec"] == _plain(model.spec.as_dict())


def test_wrong_format_version_is_one_clear_error(small, tmp_path, monkeypatch, capsys):
    path = tmp_path / "old.kcca.npz"
    monkeypatch.setattr(file_format, "FORMAT_VERSION", 999)
    save_model(small[0], path)
    monkeypatch.undo()
    with pytest.raises(ModelFormatError) as exc:
        load_model(path)
    msg = str(exc.value)
    assert str(path) in msg and "format version 999" in msg and "refit" in msg
    assert main(["query", "a red circle", "--model", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "refit" in err and "Traceback" not in err


def test_not_a_model_and_missing_file(tmp_path):
    other = tmp_path / "other.npz"
    np.savez(other, weights=np.zeros(3))
    with pytest.raises(ModelFormatError, match="not a kcca model"):
        load_model(other)
    pickled = tmp_path / "other.joblib"
    joblib.dump({"weights": np.zeros(3)}, pickled)
    with pytest.raises(ModelFormatError, match="old joblib"):
        load_model(pickled)
    junk = tmp_path / "junk.kcca.npz"
    junk.write_bytes(b"not a pickle at all")
    with pytest.raises(ModelFormatError, match="not a kcca model") as exc:
        load_model(junk)
    assert "kcca fit-model" in exc.value.fix
    with pytest.raises(DataError, match="does not exist"):
        load_model(tmp_path / "missing.kcca.npz")


def test_compressed_file_and_header(small, tmp_path):
    """``compress`` deflates the members (same model); the header is read on its own."""
    plain, packed = tmp_path / "plain.kcca.npz", tmp_path / "packed.kcca.npz"
    save_model(small[0], plain)
    save_model(small[0], packed, compress=6)
    assert packed.stat().st_size < plain.stat().st_size
    a, b = load_model(plain), load_model(packed)
    for k, w in a.projections.x_weights.items():
        np.testing.assert_array_equal(w, b.projections.x_weights[k])
    header = read_header(packed)
    assert header["corpus"] == small[0].corpus
    assert header["spec"] == _plain(small[0].spec.as_dict())


def test_plugin_kernel_cannot_be_saved(small, tmp_path):
    """Only the classes of the allowlist are stored: another class is refused by name."""
    import copy

    class PluginKernel:
        pass

    model = copy.copy(small[0])
    model.image = copy.copy(model.image)
    model.image.kernel = PluginKernel()
    with pytest.raises(DataError, match=r"model\.image\.kernel: a .*PluginKernel cannot be "
                                        "stored"):
        save_model(model, tmp_path / "plugin.kcca.npz")
    assert not (tmp_path / "plugin.kcca.npz").exists()


@pytest.mark.parametrize("sentence, match", [
    ("", "empty"), ("   ", "empty"),
    ("the of and is", "no words left"),          # the demo preset's stop words
    ("xylophone zeppelin", "none of the words"),  # not in the training captions
    ("!!! ...", "no words left"),
])
def test_empty_or_unknown_query_is_a_clear_error(small, sentence, match):
    with pytest.raises(QueryError, match=match):
        small[0].rank_images(sentence)


def test_cli_query_unknown_words_exit_2(saved, capsys):
    assert main(["query", "xylophone zeppelin", "--model", str(saved), "--quiet"]) == 2
    assert "none of the words" in capsys.readouterr().err


def test_folder_pool_is_cached_per_file(small, tmp_path, monkeypatch):
    """With a cache, a second pool of the same folder describes no image again (same
    projections); a changed file is described again; a bad one is not cached."""
    from kcca._model.encoders import ImageEncoder

    model, _, corpus, _ = small
    folder = tmp_path / "imgs"
    folder.mkdir()
    ids = list(corpus.split("test"))[:5]
    for i in ids:
        cv2.imwrite(str(folder / i), cv2.cvtColor(corpus.load_image(i), cv2.COLOR_RGB2BGR))
    (folder / "broken.png").write_bytes(b"")
    described: list[list[str]] = []
    features = ImageEncoder.features

    def counting(self, source, image_ids, **kw):
        described.append(list(image_ids))
        return features(self, source, image_ids, **kw)

    monkeypatch.setattr(ImageEncoder, "features", counting)
    cache = Cache(tmp_path / "cache")
    first = model.image_pool_from_folder(folder, skip_bad=True, cache=cache)
    again = model.image_pool_from_folder(folder, skip_bad=True, cache=cache)
    assert described == [sorted(ids + ["broken.png"]), ["broken.png"]]
    assert again.ids == first.ids == sorted(ids) and list(again.skipped) == ["broken.png"]
    for k, z in first.projections.items():
        np.testing.assert_array_equal(again.projections[k], z)
    plain = model.image_pool_from_folder(folder, skip_bad=True)
    for k, z in plain.projections.items():
        np.testing.assert_allclose(first.projections[k], z, atol=1e-12)
    changed = sorted(ids)[0]
    cv2.imwrite(str(folder / changed), cv2.cvtColor(corpus.load_image(sorted(ids)[1]),
                                                   cv2.COLOR_RGB2BGR))
    st = (folder / changed).stat()
    os.utime(folder / changed, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    described.clear()
    model.image_pool_from_folder(folder, skip_bad=True, cache=cache)
    assert described == [sorted([changed, "broken.png"])]


def test_partly_unknown_query_reports_ignored_words(small):
    r = small[0].rank_images("a red xylophone circle")
    assert r.unknown == ["xylophone"] and "red" in r.tokens


def test_folder_pool_matches_the_test_pool(small, tmp_path):
    """Images written to a folder and read back give the test pool's projections."""
    model, _, corpus, _ = small
    ids = list(corpus.split("test"))[:6]
    for i in ids:
        cv2.imwrite(str(tmp_path / i), cv2.cvtColor(corpus.load_image(i), cv2.COLOR_RGB2BGR))
    (tmp_path / "broken.png").write_bytes(b"")
    with pytest.raises(QueryError, match="broken.png"):
        model.image_pool_from_folder(tmp_path)
    pool = model.image_pool_from_folder(tmp_path, skip_bad=True)
    assert pool.ids == sorted(ids) and list(pool.skipped) == ["broken.png"]
    rows = [model.image_pool.ids.index(i) for i in pool.ids]
    for k, z in pool.projections.items():
        np.testing.assert_allclose(z, model.image_pool.projections[k][rows], atol=1e-9)
    r = model.rank_images("a red circle", pool=pool, top=3)
    assert len(r.ids) == 3 and set(r.ids) <= set(ids)


def test_resized_image_is_accepted(small):
    """A new image of another size is resized to the training size (64 x 64 here)."""
    model, _, corpus, _ = small
    image = corpus.load_image(corpus.split("test")[0])
    big = cv2.resize(image, (200, 150), interpolation=cv2.INTER_CUBIC)
    r = model.rank_captions(big, top=5)
    assert len(r.ids) == 5 and model.image.image_size == (64, 64)


def test_caption_file_pool(small, tmp_path):
    model, _, corpus, _ = small
    pool = corpus.pool("test")
    f = tmp_path / "captions.txt"
    f.write_text("".join(f"{cid}\t{text}\n" for _, cid, text in pool), encoding="utf-8")
    mine = model.caption_pool_from_file(f)
    assert mine.ids == model.caption_pool.ids
    image = corpus.load_image(pool[0][0])
    np.testing.assert_array_equal(model.rank_captions(image, pool=mine).indices,
                                  model.rank_captions(image).indices)


def test_nn_system_cannot_be_saved(small):
    import dataclasses

    model, _, corpus, ws = small
    nn = dataclasses.replace(model.spec, model="nn")
    with pytest.raises(DataError, match="nearest-neighbour"):
        fit_system(corpus, nn, workspace=ws)


def test_mixed_image_kernel_is_refused_with_a_fix(small):
    from dataclasses import replace

    from kcca._model.build import _image_encoder
    from kcca._systems import KernelSpec

    spec = replace(small[0].spec, image_kernel=KernelSpec("mix", {"parts": [{"name": "pyramid"}]}))
    with pytest.raises(DataError, match="mixes other kernels") as err:
        _image_encoder(small[3], spec)
    assert "kcca reproduce --experiments" in err.value.fix
