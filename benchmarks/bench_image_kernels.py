"""Benchmark the image-feature pipeline and the pyramid kernel (Sec. 3.3) on Flickr 8K.

1. Stages, on a sample of real images (``--n``, first N by name): descriptor extraction per
   feature type, quantisation against paper-size codebooks (128 / 256 / 256 words, fitted on
   the sample), pyramid histogramming; images per second per stage, single process.
2. The pyramid kernel K^PY (13,440 weighted bins) at the paper's sizes: the 6,000 x 6,000
   training Gram (symmetric) and the 1,000 x 6,000 test block, each in a fresh subprocess
   that reports wall time and peak RSS (``VmHWM`` of /proc/self/status, else
   ``getrusage``; RSS is what counts), with
   ``--jobs`` threads. Features: real cached records of the train + test images when the
   default pipeline cache holds them all, else synthetic records with the same shape and
   sparsity (word-permuted copies of the sample's real pyramids); the output says which.
3. The peer: a straightforward NumPy broadcast ``minimum(a[:, None], b[None]).sum(-1)`` on a
   small block, extrapolated per pair to the same jobs; ratios are reported.
4. ``--full``: extract all 8,091 images with the pipeline (default config, ``--jobs``) into
   ``--cache-dir`` and report the total time (target: under 15 minutes on 2 cores).

    python benchmarks/bench_image_kernels.py [--n 40] [--jobs 2] [--full] [--cache-dir DIR]

Writes ``benchmarks/results/image_kernels.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _results import write_result

RESULTS = Path(__file__).resolve().parent / "results" / "image_kernels.json"
N_TRAIN, N_TEST = 6000, 1000


def _parse(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=40, help="images for the per-stage timings")
    p.add_argument("--jobs", type=int, default=2, help="threads / processes (default 2)")
    p.add_argument("--n-train", type=int, default=N_TRAIN)
    p.add_argument("--n-test", type=int, default=N_TEST)
    p.add_argument("--peer-block", type=int, default=48, help="side of the peer's timed block")
    p.add_argument("--full", action="store_true", help="also extract all 8,091 images")
    p.add_argument("--data-dir", default=None, help="default $KCCA_DATA_DIR")
    p.add_argument("--cache-dir", default=None, help="cache for --full (default $KCCA_CACHE_DIR)")
    p.add_argument("--out", type=Path, default=RESULTS)
    p.add_argument("--quiet", action="store_true")
    return p.parse_args(argv)


# ------------------------------------------------------------------------ stages
def bench_stages(images, ids, quiet):
    from features._codebook import Codebook
    from features._feature_types import feature_types
    from features._image_features import ImageFeatures
    from features._pyramid import pyramid_histogram

    types = feature_types()
    out = {}
    descs = {}
    for name, ft in types.items():
        t = time.perf_counter()
        descs[name] = [ft.extract(im) for im in images]
        dt = time.perf_counter() - t
        out[f"extract_{name}"] = len(images) / dt
    books = {}
    for name, ft in types.items():
        cb = Codebook(ft.vocabulary_size, points_per_image=1000, n_images=len(images), seed=0)
        t = time.perf_counter()
        books[name] = cb.fit([d.values for d in descs[name]])
        out[f"codebook_fit_{name}_seconds"] = time.perf_counter() - t
    words = {}
    for name in types:
        t = time.perf_counter()
        words[name] = [books[name].predict(d.values) for d in descs[name]]
        out[f"quantise_{name}"] = len(images) / (time.perf_counter() - t)
    pyrs = {n: [] for n in types}
    for name, ft in types.items():
        t = time.perf_counter()
        for w, d in zip(words[name], descs[name]):
            pyrs[name].append(pyramid_histogram(w, d.rows, d.cols, d.height, d.width,
                                                ft.vocabulary_size, 2))
        out[f"histogram_{name}"] = len(images) / (time.perf_counter() - t)
    records = [ImageFeatures(i, {n: pyrs[n][k] for n in types},
                             {n: int(descs[n][k].values.shape[0]) for n in types},
                             224, 224, 2) for k, i in enumerate(ids)]
    total = sum(1 / v for k, v in out.items() if not k.endswith("_seconds"))
    out["all_stages_images_per_s"] = 1 / total
    return out, records


def synthetic_records(real, n, seed=0):
    """``n`` records: word-permuted copies of real pyramids (same shape, same sparsity)."""
    from features._image_features import ImageFeatures

    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        src = real[k % len(real)]
        pyr = {f: p[:, rng.permutation(p.shape[1])] for f, p in src.pyramids.items()}
        out.append(ImageFeatures(f"synthetic{k}", pyr, src.n_samples, src.height, src.width,
                                 src.levels))
    return out


def cached_records(data_dir, cache_dir, n_train, n_test):
    """Real records of the first n_train / n_test train / test images, if all are cached."""
    try:
        from features._image_features import ImageFeaturePipeline
        from kcca._cache import Cache, default_cache_dir
        from kcca.data._flickr8k import load_flickr8k

        corpus = load_flickr8k(data_dir, judgments=False, lemmas=False)
        pipe = ImageFeaturePipeline(corpus, cache=Cache(cache_dir or default_cache_dir()),
                                    progress=False)
        folder = pipe.feature_dir()
        ids = list(corpus.split("train")[:n_train]) + list(corpus.split("test")[:n_test])
        if folder is None or not all((folder / f"{i}.joblib").exists() for i in ids):
            return None
        import joblib

        return [joblib.load(folder / f"{i}.joblib") for i in ids]
    except Exception:
        return None


# ------------------------------------------------------------------------ kernel
_CHILD = r"""
import json, resource, sys, time
import numpy as np
from features.kernels._intersection import intersection_block

def peak_rss_kb():
    # VmHWM: this process's own high-water mark (ru_maxrss survives fork + exec on Linux,
    # so it would report the parent's RSS)
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
a = np.load(sys.argv[1]); b = None if sys.argv[2] == "-" else np.load(sys.argv[2])
jobs = int(sys.argv[3])
intersection_block(a[:4], None if b is None else b[:4], n_jobs=1)  # compile (numba cache)
base = peak_rss_kb()
t = time.perf_counter()
k = intersection_block(a, b, n_jobs=jobs)
k **= 2  # K^PY with p = 2
dt = time.perf_counter() - t
peak = peak_rss_kb()
print(json.dumps({"seconds": dt, "peak_rss_mb": peak / 1024, "rss_before_mb": base / 1024,
                  "shape": list(k.shape), "checksum": float(k.sum())}))
"""


def run_child(a_path, b_path, jobs):
    res = subprocess.run([sys.executable, "-c", _CHILD, a_path, b_path or "-", str(jobs)],
                         capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError(res.stderr)
    return json.loads(res.stdout.strip().splitlines()[-1])


def bench_peer(a, block):
    """NumPy broadcast on a block x block tile: seconds per pair (one process)."""
    x, y = a[:block], a[block:2 * block]
    np.minimum(x[:2, None, :], y[None, :2, :]).sum(-1)
    t = time.perf_counter()
    np.minimum(x[:, None, :], y[None, :, :]).sum(-1)
    return (time.perf_counter() - t) / (block * block)


def main(argv=None):
    args = _parse(argv)
    from features.kernels._image import weighted_matrix
    from kcca.data._images import read_image
    from kcca.data._paths import resolve_data_dir

    data_dir = resolve_data_dir(args.data_dir)
    folder = data_dir / "flickr8k" / "images"
    paths = sorted(folder.glob("*.jpg"))[: args.n]
    images = [read_image(p) for p in paths]
    result = {"n_stage_images": len(images), "jobs": args.jobs,
              "machine": {"platform": platform.platform(), "python": platform.python_version(),
                          "cpus": os.cpu_count()}}
    from threadpoolctl import threadpool_limits

    print(f"stages on {len(images)} real images (single process, 1 BLAS/OpenMP thread):")
    with threadpool_limits(1):
        stages, records = bench_stages(images, [p.name for p in paths], args.quiet)
    result["stages_images_per_s"] = stages
    for k, v in stages.items():
        unit = "s" if k.endswith("_seconds") else "img/s"
        print(f"  {k:32s} {v:10.2f} {unit}")

    real = cached_records(data_dir, args.cache_dir, args.n_train, args.n_test)
    if real is not None:
        source = "real cached features of the first train and test images"
        train, test = real[: args.n_train], real[args.n_train:]
    else:
        source = (f"synthetic: word-permuted copies of the {len(records)} sampled real pyramids "
                  "(same shape and sparsity)")
        train = synthetic_records(records, args.n_train, seed=1)
        test = synthetic_records(records, args.n_test, seed=2)
    feats = ("color", "texture", "sift")
    A = weighted_matrix(train, feats, 2)
    B = weighted_matrix(test, feats, 2)
    density = float((A > 0).mean())
    result["kernel_features"] = source
    result["weighted_bins"] = A.shape[1]
    result["nonzero_fraction"] = density
    print(f"pyramid kernel on {source}\n  {A.shape[1]} weighted bins, {density:.1%} non-zero")
    with tempfile.TemporaryDirectory() as tmp:
        a_path, b_path = os.path.join(tmp, "train.npy"), os.path.join(tmp, "test.npy")
        np.save(a_path, A)
        np.save(b_path, B)
        del train, test
        gram = run_child(a_path, None, args.jobs)
        block = run_child(b_path, a_path, args.jobs)
    n, m = A.shape[0], B.shape[0]
    peer_pair = bench_peer(A, args.peer_block)
    peer_train = peer_pair * n * n / args.jobs  # naive: every entry, perfect scaling assumed
    peer_test = peer_pair * m * n / args.jobs
    result["train_gram"] = {**gram, "n": n}
    result["test_block"] = {**block, "n": [m, n]}
    result["peer_numpy_broadcast"] = {
        "block": args.peer_block, "seconds_per_pair": peer_pair,
        "extrapolated_train_seconds": peer_train, "extrapolated_test_seconds": peer_test,
        "note": f"timed on one process, divided by {args.jobs} jobs (ideal scaling)"}
    result["speedup_vs_peer"] = {"train_gram": peer_train / gram["seconds"],
                                 "test_block": peer_test / block["seconds"],
                                 "per_pair_computed_test_block":
                                     peer_pair / (block["seconds"] * args.jobs / (m * n))}
    print(f"  train {n} x {n}: {gram['seconds']:.1f} s, peak RSS {gram['peak_rss_mb']:.0f} MB "
          f"(targets 180 s, 4096 MB); peer (extrapolated) {peer_train:.0f} s -> "
          f"{result['speedup_vs_peer']['train_gram']:.0f}x")
    print(f"  test {m} x {n}: {block['seconds']:.1f} s, peak RSS {block['peak_rss_mb']:.0f} MB; "
          f"peer {peer_test:.0f} s -> {result['speedup_vs_peer']['test_block']:.0f}x")

    if args.full:
        result["full_extraction"] = full_extraction(data_dir, args)
        fe = result["full_extraction"]
        print(f"full extraction: {fe['images']} images in {fe['seconds'] / 60:.1f} min "
              f"({fe['computed']} computed, {fe['cached']} cached, {len(fe['skipped'])} skipped)")
    write_result(args.out, result, indent=2)


def full_extraction(data_dir, args):
    from features._image_features import ImageFeaturePipeline
    from kcca._cache import Cache, default_cache_dir
    from kcca.data._flickr8k import load_flickr8k

    corpus = load_flickr8k(data_dir, judgments=False, lemmas=False)
    cache = Cache(args.cache_dir or default_cache_dir())
    t = time.perf_counter()
    pipe = ImageFeaturePipeline(corpus, cache=cache, n_jobs=args.jobs, progress=not args.quiet)
    books = pipe.fit_codebooks()
    t_books = time.perf_counter() - t
    res = pipe.extract(sorted(corpus.image_paths))  # all 8,091 image files, unsplit ones too
    return {"seconds": time.perf_counter() - t, "codebook_seconds": t_books,
            "images": len(res.features), "computed": res.n_computed, "cached": res.n_cached,
            "skipped": res.skipped, "cache_dir": str(res.cache_dir),
            "codebook_rows": {n: b.n_samples_fit_ for n, b in books.items()}}


if __name__ == "__main__":
    main()
