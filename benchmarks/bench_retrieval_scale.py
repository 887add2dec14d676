"""Benchmark: KCCA retrieval at Flickr30K's and COCO's training sizes with low-rank factors.

Synthetic image and caption vectors of the real sizes with a planted shared structure: a
latent ``z`` per image (``--latent`` dimensions), image vectors ``x = A z + noise`` and five
captions per image ``y = B z + noise`` (each caption its own noise); seeded. A training
item's text vector is the mean of its five captions' vectors (what the ``vectors`` kernel
does with a training image's captions). The library's own path, step by step:

* **factorise**: each training kernel given as columns on demand
  (:class:`kcca._lowrank.CallableColumns` over
  :func:`features.kernels._vector_functions.vector_block`), factorised by the pivoted
  incomplete Cholesky of :mod:`kcca._lowrank` (a linear kernel of ``d``-dim vectors has
  rank <= d; ``--rank`` caps it, which RBF needs), as the first fit of a
  :class:`kcca._solver.KCCAGrid` with a shared :class:`kcca._solver.FactorCache` does (one
  kappa and n = 1: the two factors and their cross product; the solve it adds is the grid's
  per-kappa cost below, once);
* **grid**: the kappa x n grid (:class:`KCCAGrid`, the paper's kappas and its 46 values of n
  kept up to the rank), every factor taken from the cache;
* **dev selection**: the dev images and their five captions each, kernel rows in blocks,
  projected by the grid (``transform_x`` / ``transform_y``), every model scored with the
  all-captions protocol (:func:`kcca._evaluate.retrieval_protocol.retrieval_protocol`, cosine
  scores of eq. 4 by :func:`kcca._scoring.prefix_cosine_scores`), the model of the largest
  rsum chosen (for COCO's 5,000 dev images: the mean rsum of the 1K folds);
* **test ranking**: the test pool projected and ranked by the chosen model; Flickr30K's
  1,000 images (1K), or COCO's 5,000 (1K, mean of five folds, and 5K), with R@1/5/10,
  median rank and rsum beside chance.

Each size runs in a fresh subprocess (``--sizes``). Memory: the process's peak resident set
(VmHWM) during each step, reset before the step by writing 5 to ``/proc/self/clear_refs``
(Linux); it counts NumPy and BLAS buffers alike (tracemalloc sees neither's threads nor
BLAS's own), and it includes what earlier steps still hold, which is what a machine's memory
must take. Writes ``benchmarks/results/retrieval_scale.json`` (or ``--out``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from _results import write_result  # noqa: E402

CAPTIONS = 5
#: training sizes of Flickr30K and COCO (Karpathy's split, restval in training)
FLICKR30K_TRAIN, COCO_TRAIN = 29_000, 113_287
#: output bytes of one block of kernel rows against the training items
BLOCK_BYTES = 1 << 28
STEPS = ("factorise", "grid", "dev", "test")


# --------------------------------------------------------------------------- memory


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return -1


def _reset_peak() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0); False where that is refused."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


@contextmanager
def measured(record: dict, name: str) -> Iterator[dict]:
    """Time the block and note the process's RSS before it and its peak RSS during it."""
    entry: dict = {}
    reset = _reset_peak()
    start_kb = _status_kb("VmRSS")
    t = time.perf_counter()
    yield entry
    entry["seconds"] = time.perf_counter() - t
    entry["rss_before_gb"] = start_kb / 2**20
    entry["peak_rss_gb"] = _status_kb("VmHWM") / 2**20
    entry["peak_is_per_step"] = reset
    record[name] = entry


# --------------------------------------------------------------------------- data


def layout(n_train: int, name: str) -> dict:
    """Dev and test pools: COCO's (5,000 + 5,000 images; test 1K folds and 5K) for
    ``coco`` (``auto``: from 100,000 training images), else Flickr30K's (1,000 + 1,000)."""
    coco = name == "coco" or (name == "auto" and n_train >= 100_000)
    if coco:
        return {"name": "coco", "dev": 5000, "test": 5000, "dev_folds": 5, "test_folds": (5, 1)}
    return {"name": "flickr30k", "dev": 1000, "test": 1000, "dev_folds": 1, "test_folds": (1,)}


class Planted:
    """The planted structure: maps ``A`` (image) and ``B`` (text) of a shared latent ``z``,
    and the noise levels; :meth:`images` and :meth:`captions` draw vectors of new images."""

    def __init__(self, image_dim: int, text_dim: int, latent: int, noise: float, seed: int):
        rng = np.random.default_rng(seed)
        self.A = rng.normal(size=(image_dim, latent)) / math.sqrt(latent)
        self.B = rng.normal(size=(text_dim, latent)) / math.sqrt(latent)
        self.noise, self.latent = noise, latent

    def draw(self, n: int, rng: np.random.Generator, mean_caption: bool) -> tuple:
        """Images' vectors ``(n, image_dim)`` and captions' ``(5 n, text_dim)`` (image ``i``
        owns captions ``5 i .. 5 i + 4``), or with ``mean_caption`` each image's caption mean
        ``(n, text_dim)``; drawn a few thousand images at a time."""
        x = np.empty((n, self.A.shape[0]))
        y = np.empty((n if mean_caption else CAPTIONS * n, self.B.shape[0]))
        step = 4096
        for lo in range(0, n, step):
            hi = min(lo + step, n)
            z = rng.normal(size=(hi - lo, self.latent))
            x[lo:hi] = z @ self.A.T + self.noise * rng.normal(size=(hi - lo, self.A.shape[0]))
            caps = np.repeat(z @ self.B.T, CAPTIONS, axis=0)
            caps += self.noise * rng.normal(size=caps.shape)
            if mean_caption:
                y[lo:hi] = caps.reshape(hi - lo, CAPTIONS, -1).mean(axis=1)
            else:
                y[CAPTIONS * lo : CAPTIONS * hi] = caps
        return x, y


# --------------------------------------------------------------------------- steps


def train_columns(vectors: np.ndarray, function: str, gamma: float | None, name: str) -> Any:
    """The training kernel of ``vectors`` as columns on demand (no ``n x n`` matrix)."""
    from features.kernels._vector_functions import vector_block, vector_diag
    from kcca._lowrank import CallableColumns

    def columns(index: np.ndarray) -> np.ndarray:
        return vector_block(vectors, vectors[index], function, gamma)

    return CallableColumns(columns, vector_diag(vectors, function, gamma), argument=name)


def project(
    grid: Any,
    view: str,
    new: np.ndarray,
    train: np.ndarray,
    function: str,
    gamma: float | None,
    timing: dict,
) -> list[np.ndarray]:
    """Per kappa, the grid's projections of ``new`` items: kernel rows against the training
    items a block at a time (``BLOCK_BYTES``), each block projected by the grid."""
    from features.kernels._vector_functions import vector_block

    rows = max(1, BLOCK_BYTES // (8 * train.shape[0]))
    parts: list[list[np.ndarray]] = []
    transform = grid.transform_x if view == "x" else grid.transform_y
    for lo in range(0, new.shape[0], rows):
        t = time.perf_counter()
        block = vector_block(new[lo : lo + rows], train, function, gamma)
        t1 = time.perf_counter()
        parts.append(transform(block))
        t2 = time.perf_counter()
        timing["kernel_rows_s"] = timing.get("kernel_rows_s", 0.0) + t1 - t
        timing["projection_s"] = timing.get("projection_s", 0.0) + t2 - t1
    return [np.concatenate([p[k] for p in parts]) for k in range(len(grid.kappas_))]


def dev_rsums(grid: Any, zx: list, zy: list, folds: int) -> dict:
    """``{(kappa, n): rsum}`` of every grid model on the dev pool (mean over ``folds``)."""
    from kcca._evaluate.retrieval_protocol import fold_slices, retrieval_protocol
    from kcca._scoring import prefix_cosine_scores

    n_values = grid.n_components_.tolist()
    sums: dict = {}
    for images in fold_slices(zx[0].shape[0], folds):
        captions = slice(CAPTIONS * images.start, CAPTIONS * images.stop)
        for i, kappa in enumerate(grid.kappas_):
            for n, scores in prefix_cosine_scores(zx[i][images], zy[i][captions], n_values):
                rsum = retrieval_protocol(scores).rsum
                sums[(kappa, n)] = sums.get((kappa, n), 0.0) + rsum / folds
    return sums


def chance(n_images: int) -> dict:
    """Expected recalls (percent) of a random ranking of a pool of ``n_images`` images and
    their five captions each, and the rsum."""
    m = CAPTIONS * n_images
    out = {}
    for k in (1, 5, 10):
        miss = math.comb(m - CAPTIONS, k) / math.comb(m, k)
        out[f"i2t_r{k}"] = 100.0 * (1.0 - miss)
        out[f"t2i_r{k}"] = 100.0 * k / n_images
    out["rsum"] = sum(out.values())
    return out


def summary(result: Any) -> dict:
    a, s = result.annotation, result.search
    return {
        "protocol": result.protocol,
        "i2t_r1": a.r1,
        "i2t_r5": a.r5,
        "i2t_r10": a.r10,
        "i2t_median": a.median_rank,
        "t2i_r1": s.r1,
        "t2i_r5": s.r5,
        "t2i_r10": s.r10,
        "t2i_median": s.median_rank,
        "rsum": result.rsum,
    }


def run_size(args: argparse.Namespace, n: int) -> dict:
    """Every step at one training size (in this process)."""
    from features.kernels._vector_functions import median_gamma
    from kcca._evaluate.retrieval_protocol import retrieval_protocol
    from kcca._scoring import cosine_scores
    from kcca._solver import PAPER_KAPPAS, FactorCache, KCCAGrid, paper_n_grid

    pools = layout(n, args.layout)
    steps: dict = {}
    planted = Planted(args.image_dim, args.text_dim, args.latent, args.noise, args.seed)
    rng = np.random.default_rng([args.seed, n])
    with measured(steps, "data"):
        x_train, y_train = planted.draw(n, rng, mean_caption=True)
        x_dev, y_dev = planted.draw(pools["dev"], rng, mean_caption=False)
        x_test, y_test = planted.draw(pools["test"], rng, mean_caption=False)
    gx = median_gamma(x_train) if args.function == "rbf" else None
    gy = median_gamma(y_train) if args.function == "rbf" else None
    Kx = train_columns(x_train, args.function, gx, "Kx")
    Ky = train_columns(y_train, args.function, gy, "Ky")
    settings = dict(rank=args.rank, precision=args.precision, factor_cache=FactorCache())
    kappas = PAPER_KAPPAS if args.kappas is None else tuple(args.kappas)
    n_grid = paper_n_grid() if args.n_grid is None else args.n_grid

    with measured(steps, "factorise") as entry:
        first = KCCAGrid(kappas=kappas[:1], n_components=[1], **settings).fit(Kx, Ky)
        core = first.core_
        x_side, y_side = (core.q, core.p) if core.swapped else (core.p, core.q)
        entry.update(
            rank_x=x_side.rank,
            rank_y=y_side.rank,
            residual_x=x_side.residual_trace / x_side.trace,
            residual_y=y_side.residual_trace / y_side.trace,
        )
    del first, core
    with measured(steps, "grid") as entry:
        grid = KCCAGrid(kappas=kappas, n_components=n_grid, **settings).fit(Kx, Ky)
        entry["models"] = len(grid.models_)
    with measured(steps, "dev") as entry:
        zx = project(grid, "x", x_dev, x_train, args.function, gx, entry)
        zy = project(grid, "y", y_dev, y_train, args.function, gy, entry)
        t = time.perf_counter()
        sums = dev_rsums(grid, zx, zy, pools["dev_folds"])
        entry["scoring_s"] = time.perf_counter() - t
        kappa, n_comp = max(sums, key=lambda key: sums[key])
        entry.update(kappa=kappa, n_components=n_comp, dev_rsum=sums[(kappa, n_comp)])
    del zx, zy
    i = grid.kappas_.index(kappa)
    test: dict = {}
    with measured(steps, "test") as entry:
        zx = project(grid, "x", x_test, x_train, args.function, gx, entry)[i][:, :n_comp]
        zy = project(grid, "y", y_test, y_train, args.function, gy, entry)[i][:, :n_comp]
        scores = cosine_scores(zx, zy)
        for folds in pools["test_folds"]:
            res = retrieval_protocol(scores, n_folds=folds)
            test[res.protocol] = summary(res) | {"chance": chance(pools["test"] // folds)}
    return {
        "n_train": n,
        "layout": pools["name"],
        "steps": steps,
        "test": test,
        "per_step_peak": all(s["peak_is_per_step"] for s in steps.values()),
    }


# --------------------------------------------------------------------------- report


def growth(results: list[dict]) -> list[str]:
    """Per step, the exponent ``b`` of ``seconds ~ n^b`` and of the peak RSS between the two
    largest sizes run, and the power-law extrapolation to COCO's size when it was not run."""
    if len(results) < 2:
        return []
    a, b = results[-2], results[-1]
    ratio = math.log(b["n_train"] / a["n_train"])
    lines = [
        f"growth between n = {a['n_train']:,} and {b['n_train']:,} (exponent b of n^b)"
        + ("" if b["n_train"] >= COCO_TRAIN else f"; extrapolated to n = {COCO_TRAIN:,}")
    ]
    for step in STEPS:
        sa, sb = a["steps"][step], b["steps"][step]
        et = math.log(max(sb["seconds"], 1e-3) / max(sa["seconds"], 1e-3)) / ratio
        em = math.log(sb["peak_rss_gb"] / sa["peak_rss_gb"]) / ratio
        line = f"  {step:<10} time n^{et:.2f}  peak RSS n^{em:.2f}"
        if b["n_train"] < COCO_TRAIN:
            scale = COCO_TRAIN / b["n_train"]
            line += (
                f"  -> {sb['seconds'] * scale**et:,.0f} s, {sb['peak_rss_gb'] * scale**em:.1f} GB"
            )
        lines.append(line)
    return lines


def print_tables(results: list[dict]) -> None:
    print(
        f"\n{'n train':>8} {'pool':>9} {'rank x/y':>10} "
        + " ".join(f"{s + ' s/GB':>15}" for s in ("data",) + STEPS)
        + f" {'total s':>8}"
    )
    for r in results:
        st = r["steps"]
        cells = " ".join(
            f"{st[s]['seconds']:>8.1f}/{st[s]['peak_rss_gb']:<6.2f}" for s in ("data",) + STEPS
        )
        total = sum(st[s]["seconds"] for s in STEPS)
        ranks = f"{st['factorise']['rank_x']}/{st['factorise']['rank_y']}"
        print(f"{r['n_train']:>8,} {r['layout']:>9} {ranks:>10} {cells} {total:>8.1f}")
    print("\n(s/GB: seconds and the process's peak RSS during the step; total: the four steps)")
    print(
        f"\n{'n train':>8} {'protocol':<36} {'i2t R@1/5/10':>18} {'t2i R@1/5/10':>18} "
        f"{'rsum':>6} {'chance':>6} {'kappa':>6} {'n':>5}"
    )
    for r in results:
        dev = r["steps"]["dev"]
        for name, t in r["test"].items():
            i2t = f"{t['i2t_r1']:.1f}/{t['i2t_r5']:.1f}/{t['i2t_r10']:.1f}"
            t2i = f"{t['t2i_r1']:.1f}/{t['t2i_r5']:.1f}/{t['t2i_r10']:.1f}"
            print(
                f"{r['n_train']:>8,} {name:<36} {i2t:>18} {t2i:>18} {t['rsum']:>6.1f} "
                f"{t['chance']['rsum']:>6.2f} {dev['kappa']:>6g} {dev['n_components']:>5}"
            )
    for line in growth(results):
        print(line)


# --------------------------------------------------------------------------- main


def _sizes(text: str) -> list[int]:
    return sorted(int(v.replace("_", "")) for v in text.split(",") if v.strip())


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--sizes",
        type=_sizes,
        default=_sizes("5000,10000,29000,113287"),
        help="training images, comma-separated (29000: Flickr30K, 113287: COCO)",
    )
    ap.add_argument("--image-dim", type=int, default=2048)
    ap.add_argument("--text-dim", type=int, default=768)
    ap.add_argument("--latent", type=int, default=64, help="dimension of the shared z")
    ap.add_argument(
        "--noise",
        type=float,
        default=2.0,
        help="noise per coordinate (the signal A z, B z has variance 1)",
    )
    ap.add_argument(
        "--function",
        default="cosine",
        choices=("linear", "cosine", "rbf"),
        help="cosine (unit diagonal, the scale the paper's kappas suit)",
    )
    ap.add_argument("--rank", type=int, default=None, help="cap on each factor's rank")
    ap.add_argument("--precision", type=float, default=1e-5)
    ap.add_argument(
        "--kappas",
        type=lambda s: [float(v) for v in s.split(",")],
        default=None,
        help="default: the paper's 0.1,0.5,1,5",
    )
    ap.add_argument(
        "--n-grid",
        type=lambda s: [int(v) for v in s.split(",")],
        default=None,
        help="values of n (default: the paper's 46, kept up to the rank)",
    )
    ap.add_argument("--layout", default="auto", choices=("auto", "flickr30k", "coco"))
    ap.add_argument("--threads", type=int, default=0, help="BLAS threads (0: all cores)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(HERE / "results" / "retrieval_scale.json"))
    ap.add_argument("--one-size", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--child-out", default=None, help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.one_size is not None:  # a child: one size, its result as JSON
        if args.threads:
            from threadpoolctl import threadpool_limits

            threadpool_limits(limits=args.threads)
        result = run_size(args, args.one_size)
        Path(args.child_out).write_text(json.dumps(result))
        return
    results = []
    for n in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "size.json"
            cmd = [sys.executable, __file__, *argv, "--one-size", str(n), "--child-out", str(out)]
            t = time.perf_counter()
            subprocess.run(cmd, check=True)
            results.append(json.loads(out.read_text()))
        st = results[-1]["steps"]
        print(
            f"n = {n:,}: "
            + ", ".join(
                f"{s} {st[s]['seconds']:.1f} s / {st[s]['peak_rss_gb']:.2f} GB"
                for s in ("data",) + STEPS
            )
            + f" (process {time.perf_counter() - t:.0f} s)",
            flush=True,
        )
    print_tables(results)
    env = {
        "cores": os.cpu_count(),
        "blas_threads": args.threads or "all",
        "load_average": os.getloadavg(),
        "memory": "VmHWM reset per step (clear_refs 5)",
        **{k: v for k, v in vars(args).items() if k not in ("one_size", "child_out", "out")},
    }
    write_result(args.out, {"environment": env, "results": results})


if __name__ == "__main__":
    main()
