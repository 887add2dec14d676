"""Benchmark: latency of a free-text query against 1,000 images with a saved model (kcca._model).

A saved model (:mod:`kcca._model.saved`) projects its candidate pool once; a query then costs
its preprocessing, one text-kernel row against the training items, one (1 x n_train) x
(n_train x n) product per kappa, and the cosines and Borda count of the 15 selected models
(Hodosh et al. 2013, Section 4.1.3). Measured after loading, with ``--jobs`` BLAS threads:

* ``ours``: :meth:`FittedSystem.rank_images` over the model's 1,000-image test pool (full
  ranking), per query; plus a per-stage split of one query;
* ``naive`` (the peer): the same query scored by recomputing the full test-by-train image
  kernel block (1,000 x n_train pyramid intersections) and projecting the pool for every
  query, as one would without saved pool projections; run on ``--naive-queries`` queries
  (it is slow), its rankings checked equal to ours, and the ratio reported;
* ``annotate``: :meth:`FittedSystem.rank_captions` for new images (features with the saved
  codebooks, one image-kernel row, Borda over the 1,000 test captions).

Model: ``--model PATH`` (e.g. a Flickr 8K BoW5 model from ``kcca fit-model``; its pool
features for the naive peer come from the image-feature cache), else (no ``--model``) the
demo model with a ``--pool``-image test pool (default 1,000; fitted into the cache once).

Run: ``python benchmarks/bench_query.py --model bow5.kcca.npz --jobs 2``. Prints a table and
writes ``benchmarks/results/query.json``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from _results import write_result

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

FLICKR_QUERIES = (
    "a dog runs on the beach", "a man rides a bike", "children play in the snow",
    "a black dog is running through the grass", "two girls are smiling at the camera",
    "a man in a red shirt climbs a rock", "a boy jumps into the swimming pool",
    "a brown dog carries a stick in its mouth", "people walk down a busy city street",
    "a woman in a blue dress sits on a bench", "a skier goes down a snowy mountain",
    "a surfer rides a wave in the ocean", "two dogs play together in a field",
    "a little girl in a pink shirt runs", "a football player in a white uniform",
    "a crowd of people watches a concert", "a man with a backpack hikes up a hill",
    "a child slides down a slide at the playground", "a motorcyclist races on a dirt track",
    "a white dog jumps to catch a frisbee",
)
DEMO_QUERIES = tuple(f"a {c} {s}" for c in ("red", "blue", "green", "yellow", "purple",
                                           "orange")
                     for s in ("circle", "square", "triangle", "star")) + (
    "a large striped star on the grass", "a small dotted circle in the sky")


def _machine() -> str:
    return (f"{platform.node()} {platform.machine()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}")


def _stats(seconds: list[float]) -> dict[str, float]:
    s = sorted(seconds)
    return {"n": len(s), "median_s": statistics.median(s), "mean_s": statistics.fmean(s),
            "p95_s": s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))], "max_s": s[-1]}


def load(args):
    """(model, load seconds, model file)."""
    from kcca._cache import Cache, default_cache_dir
    from kcca._model import load_model
    from kcca._model.build import demo_model

    cache = Cache(args.cache_dir or default_cache_dir())
    if args.model:
        t = time.perf_counter()
        model = load_model(args.model)
        return model, time.perf_counter() - t, Path(args.model)
    fitted = demo_model(cache, n_test=args.pool, progress=False, n_jobs=args.jobs)  # cached
    path = Path(fitted.info["file"])
    t = time.perf_counter()
    model = load_model(path)
    return model, time.perf_counter() - t, path


def pool_records(model, args) -> list:
    """Image-feature records of the pool images (the naive peer's input)."""
    ids = list(model.image_pool.ids)
    if model.corpus == "flickr8k":
        from features._image_features import ImageFeatureConfig, ImageFeaturePipeline
        from kcca._cache import Cache, default_cache_dir
        from kcca.data._flickr8k import load_flickr8k
        from kcca.data._paths import resolve_data_dir

        corpus = load_flickr8k(resolve_data_dir(args.data_dir), judgments=False)
        config = ImageFeatureConfig(**model.image.config)
        pipe = ImageFeaturePipeline(corpus, config, cache=Cache(args.cache_dir or
                                                                default_cache_dir()),
                                    n_jobs=args.jobs, progress=False)
        return pipe.extract(ids).items(ids)
    records, _ = model.image.features(model.image_pool.source, ids, n_jobs=args.jobs)
    return records


def stage_split(model, sentence: str, reps: int = 20) -> dict[str, float]:
    """Median seconds of each stage of one query (preprocess, kernel row, projection, Borda)."""
    from kcca._borda import borda_from_scores

    out: dict[str, list[float]] = {k: [] for k in ("preprocess", "text kernel row",
                                                   "projection", "cosine + Borda")}
    pool = model.image_pool
    for _ in range(reps):
        t0 = time.perf_counter()
        tokens, _ = model.text.check_query(sentence)
        t1 = time.perf_counter()
        K = model.text.block([tokens])
        t2 = time.perf_counter()
        z = model.projections.project_y(K)
        t3 = time.perf_counter()
        borda_from_scores(model.projections.scores("search", z, pool.projections))
        t4 = time.perf_counter()
        for k, (a, b) in zip(out, ((t0, t1), (t1, t2), (t2, t3), (t3, t4))):
            out[k].append(b - a)
    return {k: statistics.median(v) for k, v in out.items()}


def naive_rank(model, sentence: str, records: list, n_jobs: int):
    """The peer: recompute the pool's test-by-train image block for the query, then rank."""
    from kcca._borda import borda_from_scores

    tokens, _ = model.text.check_query(sentence)
    zy = model.projections.project_y(model.text.block([tokens]))
    zx = model.projections.project_x(model.image.block(records, n_jobs=n_jobs))
    return borda_from_scores(model.projections.scores("search", zy, zx)).ranking[0]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=None, help="a model file (default: the demo model)")
    ap.add_argument("--pool", type=int, default=1000,
                    help="demo model: test-pool size (default 1000)")
    ap.add_argument("--queries", type=int, default=0,
                    help="queries timed (default all of the built-in list)")
    ap.add_argument("--repeats", type=int, default=3, help="timed passes over the queries")
    ap.add_argument("--naive-queries", type=int, default=3,
                    help="queries scored the naive way (default 3)")
    ap.add_argument("--annotate-images", type=int, default=5,
                    help="new images annotated (default 5)")
    ap.add_argument("--jobs", type=int, default=2, help="threads (default 2)")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--out", default=str(HERE / "results" / "query.json"))
    args = ap.parse_args(argv)

    with threadpool_limits(args.jobs):
        model, load_s, path = load(args)
        flickr = model.corpus == "flickr8k"
        queries = list(FLICKR_QUERIES if flickr else DEMO_QUERIES)
        if args.queries:
            queries = (queries * (args.queries // len(queries) + 1))[:args.queries]
        pool = model.image_pool
        print(f"model: {model.describe()}")
        print(f"file {path} ({path.stat().st_size / 2**20:.1f} MiB), loaded in {load_s:.2f}s; "
              f"{len(pool)} images in the pool; {args.jobs} threads")

        model.rank_images(queries[0])  # warm-up (imports, WordNet, numba)
        ours: list[float] = []
        rankings = {}
        for _ in range(args.repeats):
            for q in queries:
                t = time.perf_counter()
                r = model.rank_images(q)
                ours.append(time.perf_counter() - t)
                rankings[q] = r
        split = stage_split(model, queries[0])

        t = time.perf_counter()
        records = pool_records(model, args)
        records_s = time.perf_counter() - t
        naive: list[float] = []
        agree = []
        for q in queries[:args.naive_queries]:
            t = time.perf_counter()
            order = naive_rank(model, q, records, args.jobs)
            naive.append(time.perf_counter() - t)
            agree.append(bool(np.array_equal(order, rankings[q].indices)))

        annotate: list[float] = []
        for image_id in pool.ids[:args.annotate_images]:
            image = pool.image(image_id)
            if image is None:
                continue
            t = time.perf_counter()
            model.rank_captions(image)
            annotate.append(time.perf_counter() - t)

    o, n = _stats(ours), _stats(naive)
    a = _stats(annotate) if annotate else None
    ratio = n["median_s"] / o["median_s"]
    rows = [("ours: rank_images (saved pool projections)", o),
            ("naive: recompute test x train block per query", n)]
    if a:
        rows.append(("annotate a new image (features + row + Borda)", a))
    print(f"\n{'method':<50} {'queries':>7} {'median ms':>10} {'mean ms':>9} {'p95 ms':>9}")
    print("-" * 89)
    for name, s in rows:
        print(f"{name:<50} {s['n']:>7} {s['median_s'] * 1e3:>10.1f} {s['mean_s'] * 1e3:>9.1f} "
              f"{s['p95_s'] * 1e3:>9.1f}")
    print(f"\nnaive / ours (median): {ratio:,.0f}x; rankings equal on "
          f"{sum(agree)}/{len(agree)} naive queries; target < 1 s per query: "
          f"{'met' if o['p95_s'] < 1.0 else 'NOT met'} (p95 {o['p95_s'] * 1e3:.1f} ms)")
    print("one query, per stage (median ms): "
          + ", ".join(f"{k} {v * 1e3:.2f}" for k, v in split.items()))
    print(f"(naive peer input: pool features loaded in {records_s:.1f}s, not counted)")
    top = {q: [{"id": i, "caption": (pool.captions[pool.ids.index(i)][0]
                                     if pool.captions else None)}
               for i in rankings[q].ids[:5]] for q in queries[:3]}
    for q, items in top.items():
        print(f"\n{q!r}:")
        for k, it in enumerate(items, 1):
            print(f"  {k}. {it['id']}  {it['caption'] or ''}")
    result = {
        "benchmark": "query", "machine": _machine(), "threads": args.jobs,
        "date": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "model": {"path": str(path), "describe": model.describe(), "corpus": model.corpus,
                  "file_mib": round(path.stat().st_size / 2**20, 1),
                  "load_s": round(load_s, 3), "n_train": model.projections.n_train,
                  "p": model.projections.p, "d": model.projections.d,
                  "models_per_task": {k: len(v) for k, v in
                                      model.projections.selected.items()}},
        "pool_images": len(pool), "queries": len(queries), "repeats": args.repeats,
        "ours": o, "ours_stages_median_s": split, "naive": n,
        "naive_over_ours": ratio, "naive_rankings_equal": agree,
        "annotate": a, "target_s": 1.0, "target_met": o["p95_s"] < 1.0,
        "top5": top,
    }
    out = Path(args.out)
    write_result(out, result, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
