"""Benchmark: the model file of a ``vectors`` system at COCO's training size (kcca.model).

A synthetic corpus in COCO's layout (``scripts/synthetic_karpathy.py``: 113,287 training
images, 5,000 dev and 5,000 test images, five captions each, image vectors of 64 and caption
vectors of 48 dimensions with a planted shared structure) and its ``VEC`` system (a linear
image kernel and a cosine caption kernel, the paper's grid of 15 models per task chosen on
dev) are run and fitted by the library's own path (:func:`kcca.systems.run_system` with
``keep_models``, :func:`kcca.model.fit_system`, as ``kcca fit-model`` does), then:

* **ours**: the model file as ``kcca fit-model`` writes it: both sides folded (primal
  directions ``X^T W``, dimension x n per kappa, :mod:`kcca.model.vectors`);
* **kept** (the peer): the same run's model keeping every training vector and the dual
  directions (training items x n per kappa), what a kernel whose rows need the training
  vectors (RBF, polynomial, intersection) must keep;

each saved, its size taken, and loaded ``--loads`` times (median load time); then the test
split's vectors, given as new vectors files, are ranked by each and their rankings checked
equal to the run's (every query, every candidate). Every figure is of one process; the
machine's load average is recorded beside them. Memory above 4 GB: run it under
``flock /work/notes/bigmem.lock`` on a shared machine.

Run: ``python benchmarks/bench_vectors_model.py [--train 113287] [--layout coco]``; prints a
table and writes ``benchmarks/results/vectors_model.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from _results import write_result  # noqa: E402


def peak_rss_gb() -> float:
    """The process's peak resident set so far (VmHWM), in GB (0 where /proc is absent)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024 / 1e9
    except OSError:
        pass
    return 0.0


def kept_model(model: Any, result: Any, corpus: Any, ws: Any) -> Any:
    """``model`` keeping the training vectors and the run's dual directions (the peer)."""
    from kcca.model.vectors import vectors_encoder

    sides = {}
    for side, spec, items in (
        ("image", model.spec.image_kernel, list(corpus.split("train"))),
        ("text", model.spec.text_kernel, ws.caption_id_items()["train"]),
    ):
        kernel = spec.build().fit(items)
        sides[side] = vectors_encoder(side, kernel, fold=False)
    return dataclasses.replace(
        model, image=sides["image"], text=sides["text"], projections=result.models
    )


def test_files(folder: Path, corpus: Any, out: Path) -> tuple[Path, Path]:
    """The test split's image vectors and its pool captions' vectors, as new files."""
    paths = []
    for name, ids in (
        ("images", list(corpus.split("test"))),
        ("captions", [cid for _, cid, _ in corpus.pool("test")]),
    ):
        with np.load(folder / "experiments" / f"{name}.npz") as f:
            index = {str(i): r for r, i in enumerate(f["ids"])}
            vectors = np.asarray(f["vectors"][[index[i] for i in ids]])
        path = out / f"test-{name}.npz"
        np.savez(path, ids=np.array(ids), vectors=vectors)
        paths.append(path)
    return paths[0], paths[1]


def measure(model: Any, path: Path, loads: int, images: Path, captions: Path, result: Any) -> dict:
    """Save, size, load (median of ``loads``) and the test rankings' equality with the run."""
    from kcca.model import load_model, save_model

    t = time.perf_counter()
    save_model(model, path)
    saved = time.perf_counter() - t
    times = []
    for _ in range(loads):
        t = time.perf_counter()
        loaded = load_model(path)
        times.append(time.perf_counter() - t)
    t = time.perf_counter()
    _, zx = loaded.project_vectors("image", images)
    annotation = loaded.rank_pool("annotation", zx, loaded.caption_pool.projections)
    _, zy = loaded.project_vectors("text", captions)
    search = loaded.rank_pool("search", zy, loaded.image_pool.projections)
    ranked = time.perf_counter() - t
    return {
        "bytes": path.stat().st_size,
        "save_s": round(saved, 2),
        "load_s_median": round(statistics.median(times), 3),
        "load_s": [round(x, 3) for x in times],
        "rank_test_s": round(ranked, 2),
        "queries": int(zx[next(iter(zx))].shape[0] + zy[next(iter(zy))].shape[0]),
        "equal_to_run": bool(
            np.array_equal(annotation, result.rankings["annotation"])
            and np.array_equal(search, result.rankings["search"])
        ),
    }


def run(args: argparse.Namespace) -> dict:
    from kcca.cache import Cache
    from kcca.data.json_splits import load_json_splits
    from kcca.model import fit_system
    from kcca.systems import load_spec, run_system
    from kcca.systems.blocks import Workspace
    from kcca.systems.config import RunConfig
    from scripts.synthetic_karpathy import write_example

    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        folder = Path(tmp)
        t = time.perf_counter()
        write_example(folder, args.layout, args.train, args.seed, 1.0)
        corpus = load_json_splits(folder / "dataset_synthetic.json", None, require_splits=True)
        spec = load_spec(folder / "experiments" / "VEC.toml")
        written = time.perf_counter() - t
        ws = Workspace(corpus, Cache(folder / "cache"), RunConfig.of(progress=False))
        t = time.perf_counter()
        result = run_system(corpus, spec, workspace=ws, keep_models=True)
        ran = time.perf_counter() - t
        t = time.perf_counter()
        model = fit_system(corpus, spec, workspace=ws, result=result)
        fitted = time.perf_counter() - t
        images, captions = test_files(folder, corpus, folder)
        ours = measure(model, folder / "ours.kcca.npz", args.loads, images, captions, result)
        peer = kept_model(model, result, corpus, ws)
        kept = measure(peer, folder / "kept.kcca.npz", args.loads, images, captions, result)
    return {
        "layout": args.layout,
        "n_train": args.train,
        "n_test": len(corpus.split("test")),
        "selected": {k: len(v) for k, v in result.models.selected.items()},
        "chosen": {k: v for k, v in result.chosen.items() if k != "selected"},
        "corpus_s": round(written, 1),
        "run_system_s": round(ran, 1),
        "fit_system_s": round(fitted, 1),
        "ours": ours,
        "kept": kept,
        "size_ratio_kept_over_ours": round(kept["bytes"] / ours["bytes"], 1),
        "load_ratio_kept_over_ours": round(kept["load_s_median"] / ours["load_s_median"], 1),
        "peak_rss_gb": round(peak_rss_gb(), 2),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--train", type=int, default=113_287, help="training images (COCO's)")
    p.add_argument("--layout", choices=("coco", "flickr30k"), default="coco")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--loads", type=int, default=5, help="loads timed per model file")
    p.add_argument("--tmp", default=None, help="folder for the corpus, cache and model files")
    p.add_argument("--out", default=str(HERE / "results" / "vectors_model.json"))
    args = p.parse_args(argv)
    res = run(args)
    print(f"load average before/after: {res['load_average']}; peak RSS {res['peak_rss_gb']} GB")
    print(
        f"{res['n_train']:,} training images; run_system {res['run_system_s']} s, "
        f"fit_system {res['fit_system_s']} s"
    )
    print(f"{'model file':<28} {'MB':>9} {'load s':>8} {'rank test s':>12} {'= run':>6}")
    for name, r in (("ours (folded)", res["ours"]), ("kept (training vectors)", res["kept"])):
        print(
            f"{name:<28} {r['bytes'] / 1e6:>9.1f} {r['load_s_median']:>8.3f} "
            f"{r['rank_test_s']:>12.2f} {str(r['equal_to_run']):>6}"
        )
    print(
        f"kept / ours: size {res['size_ratio_kept_over_ours']}x, "
        f"load {res['load_ratio_kept_over_ours']}x"
    )
    write_result(args.out, res)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
