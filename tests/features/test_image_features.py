"""The image-feature pipeline: codebooks, per-image records, caching, resume, bad images, Dask."""

from __future__ import annotations

import json
import importlib.util

import cv2
import numpy as np
import pytest

from features._descriptors import Descriptors
from features._feature_types import FeatureType
from features._image_features import (
    ExtractionResult,
    ImageFeatureConfig,
    ImageFeaturePipeline,
    ImageFeatures,
)
from features.kernels._image import PyramidKernel
from features._pyramid import pyramid_histogram
from kcca._backend import gpu_available
from kcca._cache import Cache
from kcca.data._corpus import Corpus
from kcca.data._errors import DataError, ImageReadError
from kcca.data._images import ImageFiles
from tests.support.optional_tools import skip_unless

CALLS = {"n": 0, "fail_after": None}


def rgb_pixels(image: np.ndarray) -> Descriptors:
    """Synthetic 'colour': every pixel's RGB in [0, 1]."""
    CALLS["n"] += 1
    if CALLS["fail_after"] is not None and CALLS["n"] > CALLS["fail_after"]:
        raise KeyboardInterrupt("simulated interruption")
    h, w = image.shape[:2]
    r, c = np.meshgrid(np.arange(h) + 0.5, np.arange(w) + 0.5, indexing="ij")
    return Descriptors(image.reshape(-1, 3).astype(np.float32) / 255, r.ravel().astype(np.float32),
                       c.ravel().astype(np.float32), h, w)


def grid_patches(image: np.ndarray, step: int = 4) -> Descriptors:
    """Synthetic 'SIFT': mean grey of 4x4 patches on a grid (none for images under 4 px)."""
    grey = image.mean(axis=2, dtype=np.float32) / 255
    h, w = grey.shape
    rs, cs = np.arange(0, h - step + 1, step), np.arange(0, w - step + 1, step)
    vals, rows, cols = [], [], []
    for r in rs:
        for c in cs:
            p = grey[r:r + step, c:c + step]
            vals.append([p.mean(), p[:2].mean() - p[2:].mean(), p[:, :2].mean() - p[:, 2:].mean()])
            rows.append(r + step / 2)
            cols.append(c + step / 2)
    return Descriptors(np.asarray(vals, np.float32).reshape(-1, 3), np.asarray(rows, np.float32),
                       np.asarray(cols, np.float32), h, w)


TYPES = {"color": FeatureType("color", rgb_pixels, 6), "sift": FeatureType("sift", grid_patches, 5)}
CONFIG = ImageFeatureConfig(points_per_image=60, n_images=5, seed=0)


def _write(path, img):
    ok = cv2.imwrite(str(path), img if img.ndim == 2 else img[:, :, ::-1])
    assert ok
    return str(path)


def make_corpus(tmp_path, n_train=8, n_dev=2, n_test=2, extra=None, name="synthetic"):
    rng = np.random.default_rng(0)
    paths, splits = {}, {"train": [], "dev": [], "test": []}
    k = 0
    for split, n in (("train", n_train), ("dev", n_dev), ("test", n_test)):
        for _ in range(n):
            h, w = int(rng.integers(12, 40)), int(rng.integers(12, 40))
            img = (rng.random((h, w, 3)) * 255).astype(np.uint8)
            img[: h // 2] //= 2  # some structure
            iid = f"im{k:02d}.png"
            paths[iid] = _write(tmp_path / iid, img)
            splits[split].append(iid)
            k += 1
    for iid, (split, path) in (extra or {}).items():
        paths[iid] = path
        splits[split].append(iid)
    captions = {i: ("a picture",) * 5 for s in splits.values() for i in s}
    return Corpus(name=name, captions=captions, splits={s: tuple(v) for s, v in splits.items()},
                  images=ImageFiles(paths))


def pipeline(corpus, cache=None, **kw):
    kw.setdefault("progress", False)
    return ImageFeaturePipeline(corpus, config=CONFIG, feature_types=TYPES, cache=cache, **kw)


@pytest.fixture(autouse=True)
def _reset_calls():
    CALLS.update(n=0, fail_after=None)
    yield
    CALLS.update(n=0, fail_after=None)


def test_records_are_pyramids_of_quantised_descriptors(tmp_path):
    corpus = make_corpus(tmp_path)
    pipe = pipeline(corpus)
    res = pipe.extract()
    ids = [i for s in ("train", "dev", "test") for i in corpus.split(s)]
    assert list(res.features) == ids and res.skipped == {} and res.n_computed == len(ids)
    books = res.codebooks
    assert books["color"].cluster_centers_.shape == (6, 3)
    rec = res.features[ids[3]]
    assert isinstance(rec, ImageFeatures) and rec.levels == 2
    img = corpus.load_image(ids[3])
    assert (rec.height, rec.width) == img.shape[:2]
    for name, ft in TYPES.items():
        d = ft.extract(img)
        want = pyramid_histogram(books[name].predict(d.values), d.rows, d.cols, d.height, d.width,
                                 ft.vocabulary_size, 2)
        np.testing.assert_array_equal(rec.pyramids[name], want)
        assert rec.n_samples[name] == d.values.shape[0]
        assert rec.histogram(name).sum() == pytest.approx(1.0, abs=1e-6)
    K = PyramidKernel(p=2, feature_types=("color", "sift")).fit(res.items(ids)).gram(res.items(ids))
    np.testing.assert_allclose(np.diag(K), 1.0, atol=1e-6)


def test_codebooks_come_from_a_seeded_training_sample(tmp_path):
    corpus = make_corpus(tmp_path)
    a = pipeline(corpus).fit_codebooks()
    b = pipeline(corpus).fit_codebooks()
    for n in TYPES:
        np.testing.assert_array_equal(a[n].cluster_centers_, b[n].cluster_centers_)
        assert a[n].n_samples_fit_ <= 5 * 60
    chosen = pipeline(corpus)._chosen_ids()
    assert len(chosen) == 5 and set(chosen) <= set(corpus.split("train"))
    other = ImageFeaturePipeline(corpus, config=ImageFeatureConfig(points_per_image=60, n_images=5,
                                 seed=1), feature_types=TYPES, progress=False)
    assert not np.array_equal(other.fit_codebooks()["color"].cluster_centers_,
                              a["color"].cluster_centers_)


def test_second_run_loads_from_cache(tmp_path):
    (tmp_path / "img").mkdir()
    corpus = make_corpus(tmp_path / "img", n_train=6)
    cache = Cache(tmp_path / "cache")
    first = pipeline(corpus, cache).extract()
    calls_first = CALLS["n"]
    assert calls_first > 0 and first.n_cached == 0
    folder = first.cache_dir
    files = sorted(folder.glob("*.entry"))
    assert len(files) == len(first.features)
    assert (folder / "config.json").exists()
    assert len(list((tmp_path / "cache" / "codebook").glob("*.entry"))) == 2
    mtimes = {f: f.stat().st_mtime_ns for f in files}
    CALLS["n"] = 0
    second = pipeline(corpus, cache).extract()
    assert CALLS["n"] == 0  # neither codebook sample nor features recomputed
    assert second.n_cached == len(first.features) and second.n_computed == 0
    assert {f: f.stat().st_mtime_ns for f in files} == mtimes
    for i, rec in first.features.items():
        for n in TYPES:
            np.testing.assert_array_equal(second.features[i].pyramids[n], rec.pyramids[n])
    # a different config is a different cache folder
    other = ImageFeaturePipeline(corpus, config=ImageFeatureConfig(levels=1, points_per_image=60,
                                 n_images=5), feature_types=TYPES, cache=cache, progress=False)
    assert other.feature_dir() != folder


def test_interrupted_run_resumes(tmp_path):
    (tmp_path / "img").mkdir()
    corpus = make_corpus(tmp_path / "img")
    cache = Cache(tmp_path / "cache")
    pipe = pipeline(corpus, cache, chunk_size=2)
    pipe.fit_codebooks()
    CALLS.update(n=0, fail_after=5)  # dies on the 6th image
    with pytest.raises(KeyboardInterrupt):
        pipe.extract()
    done = sorted(p.name for p in pipe.feature_dir().glob("*.entry"))
    assert len(done) == 4  # two finished chunks of two images were written
    assert not list(pipe.feature_dir().glob(".*.tmp"))  # no partial files left
    CALLS.update(n=0, fail_after=None)
    res = pipeline(corpus, cache, chunk_size=2).extract()
    assert res.n_cached == 4 and res.n_computed == 8
    assert CALLS["n"] == 8  # only the missing images were extracted
    fresh = pipeline(corpus, None).extract()
    for i in fresh.features:
        np.testing.assert_array_equal(res.features[i].pyramids["sift"],
                                      fresh.features[i].pyramids["sift"])


def test_bad_images_raise_or_are_reported(tmp_path):
    (tmp_path / "img").mkdir()
    empty = tmp_path / "img" / "empty.jpg"
    empty.write_bytes(b"")
    good = cv2.imencode(".jpg", np.full((20, 20, 3), 90, np.uint8))[1].tobytes()
    trunc = tmp_path / "img" / "trunc.jpg"
    trunc.write_bytes(good[: len(good) // 2])
    tiny = _write(tmp_path / "img" / "tiny.png", np.zeros((2, 2, 3), np.uint8))
    extra = {"empty.jpg": ("test", str(empty)), "trunc.jpg": ("dev", str(trunc)),
             "tiny.png": ("test", tiny)}
    corpus = make_corpus(tmp_path / "img", extra=extra)
    with pytest.raises(ImageReadError, match="trunc.jpg"):
        pipeline(corpus).extract(list(corpus.split("dev")))
    with pytest.raises(ImageReadError, match=r"empty\.jpg.*0 bytes"):
        pipeline(corpus).extract(["empty.jpg"])
    with pytest.raises(DataError, match="tiny.png.*no sift descriptors"):
        pipeline(corpus).extract(["tiny.png"])
    res = pipeline(corpus, skip_bad_images=True).extract()
    assert set(res.skipped) == {"empty.jpg", "trunc.jpg", "tiny.png"}
    assert "truncated JPEG" in res.skipped["trunc.jpg"] and str(trunc) in res.skipped["trunc.jpg"]
    assert "no sift descriptors" in res.skipped["tiny.png"]
    assert set(res.features) == {i for s in corpus.splits.values() for i in s} - set(res.skipped)
    assert res.summary()["skipped"] == res.skipped
    with pytest.raises(DataError, match="trunc.jpg"):
        res.items(["trunc.jpg"])


def test_bad_training_image_in_codebook_sample(tmp_path):
    (tmp_path / "img").mkdir()
    bad = tmp_path / "img" / "bad.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    corpus = make_corpus(tmp_path / "img", n_train=3, extra={"bad.png": ("train", str(bad))})
    with pytest.raises(ImageReadError, match="bad.png"):
        pipeline(corpus).fit_codebooks()
    res = pipeline(corpus, skip_bad_images=True).extract()
    assert "bad.png" in res.codebook_skipped and "bad.png" in res.skipped


def test_grey_and_odd_sized_images(tmp_path):
    (tmp_path / "img").mkdir()
    ramp = (np.arange(17 * 23) % 256).astype(np.uint8).reshape(17, 23)
    grey = _write(tmp_path / "img" / "grey.png", ramp)
    thin = _write(tmp_path / "img" / "thin.jpg", np.full((5, 301, 3), 200, np.uint8))
    corpus = make_corpus(tmp_path / "img",
                         extra={"grey.png": ("test", grey), "thin.jpg": ("test", thin)})
    res = pipeline(corpus).extract(["grey.png", "thin.jpg"])
    assert (res.features["grey.png"].height, res.features["grey.png"].width) == (17, 23)
    assert (res.features["thin.jpg"].height, res.features["thin.jpg"].width) == (5, 301)
    for rec in res.features.values():
        for pyr in rec.pyramids.values():
            assert pyr.shape[0] == 21 and pyr[0].sum() == pytest.approx(1.0, abs=1e-6)


def test_parallel_and_dask_give_the_same_records(tmp_path):
    skip_unless(importlib.util.find_spec("distributed") is not None,
                "dask.distributed absent (extra 'dask')")
    import distributed
    (tmp_path / "img").mkdir()
    corpus = make_corpus(tmp_path / "img", n_train=6, n_dev=1, n_test=1)
    ref = pipeline(corpus, chunk_size=3).extract()
    par = pipeline(corpus, chunk_size=3, n_jobs=2).extract()
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        dsk = pipeline(corpus, Cache(tmp_path / "cache"), chunk_size=3,
                       scheduler=cluster.scheduler_address).extract()
    assert list(par.features) == list(ref.features) == list(dsk.features)
    for i in ref.features:
        for n in TYPES:
            np.testing.assert_array_equal(par.features[i].pyramids[n], ref.features[i].pyramids[n])
            np.testing.assert_array_equal(dsk.features[i].pyramids[n], ref.features[i].pyramids[n])
    assert len(list(dsk.cache_dir.glob("*.entry"))) == len(ref.features)


def test_extraction_result_and_missing_images(tmp_path):
    (tmp_path / "img").mkdir()
    corpus = make_corpus(tmp_path / "img", n_train=5)
    res = ImageFeaturePipeline(corpus, config=CONFIG, feature_types=TYPES,
                               progress=False).extract(corpus.split("test"))
    assert isinstance(res, ExtractionResult) and list(res.features) == list(corpus.split("test"))
    textonly = Corpus(name="t", captions=corpus.captions, splits=corpus.splits)
    with pytest.raises(DataError, match="without images"):
        ImageFeaturePipeline(textonly, feature_types=TYPES)


@pytest.mark.real_data
def test_real_flickr8k_images(flickr8k, tmp_path):
    pytest.importorskip("features._texture")
    pytest.importorskip("features._sift")
    from features._feature_types import feature_types

    types = feature_types()
    config = ImageFeatureConfig(points_per_image=100, n_images=3,
                                vocabulary={"color": 8, "texture": 8, "sift": 8}, max_iter=20)
    ids = list(flickr8k.split("test")[:3])
    pipe = ImageFeaturePipeline(flickr8k, config=config, feature_types=types,
                                cache=Cache(tmp_path), progress=False)
    res = pipe.extract(ids)
    assert list(res.features) == ids and res.skipped == {}
    for rec in res.features.values():
        assert (rec.height, rec.width) == (224, 224)
        assert set(rec.pyramids) == {"color", "texture", "sift"}
        for pyr in rec.pyramids.values():
            assert pyr.shape == (21, 8)
            np.testing.assert_allclose(pyr.reshape(21, 8)[5:].sum(), 1.0, atol=1e-5)
    assert rec.n_samples["color"] == 224 * 224
    K = PyramidKernel(p=2).fit(res.items(ids)).gram(res.items(ids))
    np.testing.assert_allclose(np.diag(K), 1.0, atol=1e-6)
    assert 0 < K[0, 1] < 1
    again = ImageFeaturePipeline(flickr8k, config=config, feature_types=types,
                                 cache=Cache(tmp_path), progress=False).extract(ids)
    assert again.n_cached == 3


def test_features_command(tmp_path, monkeypatch, capsys):
    import features._feature_types
    from kcca._cli import features_cmd, main

    (tmp_path / "img").mkdir()
    bad = tmp_path / "img" / "empty.jpg"
    bad.write_bytes(b"")
    corpus = make_corpus(tmp_path / "img", n_train=5, extra={"empty.jpg": ("test", str(bad))})
    monkeypatch.setattr(features_cmd, "load_corpus", lambda args: corpus)
    monkeypatch.setattr(features._feature_types, "feature_types", lambda: TYPES)
    argv = ["features", "--cache-dir", str(tmp_path / "cache"), "--codebook-images", "3",
            "--points-per-image", "50", "--quiet"]
    assert main(argv) == 2  # the bad image stops the run with a clear error
    assert "empty.jpg" in capsys.readouterr().err
    assert main(argv + ["--skip-bad-images", "--gram"]) == 0
    out = capsys.readouterr().out
    assert "9 of 10 images" in out and "9 from the cache" in out
    assert "empty.jpg: cannot read image" in out
    assert "cache folder: " + str(tmp_path / "cache") in out and "pyramid Gram 9 x 9" in out
    assert f"on {'cupy' if gpu_available() else 'numpy'} in" in out  # --backend auto, resolved
    assert main(argv + ["--skip-bad-images", "--split", "train", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["cached"] == 5 and summary["computed"] == 0 and summary["skipped"] == {}


@pytest.mark.parametrize("chunk_size", [0, -2])
def test_a_chunk_size_below_one_is_refused(tmp_path, chunk_size):
    """It was raised to 1 without a word."""
    with pytest.raises(ValueError, match="chunk_size must be 1 or more"):
        pipeline(make_corpus(tmp_path), chunk_size=chunk_size)
