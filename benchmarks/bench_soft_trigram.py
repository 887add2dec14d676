"""The soft trigram kernel's two engines (eq. 20/21): numba on the CPU against the array-API
engine (CuPy on a GPU, or NumPy), on real Flickr 8K captions.

    python benchmarks/bench_soft_trigram.py [--n 400] [--backend cupy] [--jobs 2] [--data-dir DIR]

The items are the first ``--n`` training images, five captions each, lower-cased and split
on whitespace, alphabetic tokens, stop words kept (the costliest case: more distinct
trigrams). The word kernel is synthetic but shaped like the paper's (Section 4.1.2): the
identity plus, for each word, similarities in (0, 1) to about ``--neighbours`` other words
of the vocabulary (symmetric; most words' thresholded neighbourhoods are that small). Both
engines compute the symmetric ``n x n`` block; the numba engine runs on ``--jobs`` threads
after a warm-up (its compilation is not timed), the array-API engine after a warm-up on a few
items. Prints seconds, the ratio and the largest relative difference; the quadratic
extrapolation to the 6,000 training items is printed beside them. Writes
``benchmarks/results/soft_trigram.json`` (or ``--out``).
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np

from _results import write_result

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "soft_trigram.json"


def _captions(data_dir: str | None, n: int) -> list[list[list[str]]]:
    from kcca.data._flickr8k import load_flickr8k
    from kcca.data._paths import resolve_data_dir

    corpus = load_flickr8k(resolve_data_dir(data_dir), images=False, judgments=False,
                           lemmas=False)
    ids = list(corpus.split("train"))[:n]
    return [[[w for w in c.lower().split() if w.isalpha()] for c in corpus.captions[i]]
            for i in ids]


def _word_kernel(vocabulary: list[str], neighbours: int, seed: int):
    from features.text._word_kernel import WordKernel

    rng = np.random.default_rng(seed)
    v = len(vocabulary)
    m = np.eye(v)
    for i in range(v):
        js = rng.integers(0, v, neighbours)
        vals = rng.uniform(0.05, 0.95, neighbours)
        m[i, js] = np.maximum(m[i, js], vals)
    m = np.maximum(m, m.T)
    np.fill_diagonal(m, 1.0)
    return WordKernel("synthetic", vocabulary, m)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=400, help="training images (items)")
    ap.add_argument("--backend", default="numpy", choices=("numpy", "cupy"),
                    help="the array-API engine's namespace")
    ap.add_argument("--jobs", type=int, default=2, help="threads of the numba engine")
    ap.add_argument("--tile", type=int, default=64, help="items per tile (array-API engine)")
    ap.add_argument("--seq-chunk", type=int, default=2048,
                    help="distinct sequences per device step (array-API engine)")
    ap.add_argument("--neighbours", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    args = ap.parse_args(argv)

    from features.text._sequences import item_spans
    from features.text._soft_trigram import SoftSequenceSet, WordIds, compile_item, soft_block, \
        soft_block_xp

    captions = _captions(args.data_dir, args.n)
    vocabulary = sorted({w for item in captions for c in item for w in c})
    kappa = _word_kernel(vocabulary, args.neighbours, args.seed)
    ids = WordIds(kappa.vocabulary)
    items = SoftSequenceSet.pack([compile_item(item_spans(c), ids) for c in captions])
    kmat, n_kernel = kappa.matrix, ids.n_kernel

    small = items.take(list(range(min(8, len(items)))))
    soft_block(small, small, kmat, n_kernel, symmetric=True, n_jobs=1, progress=False)
    t0 = time.perf_counter()
    want = soft_block(items, items, kmat, n_kernel, symmetric=True, n_jobs=args.jobs,
                      progress=False)
    numba_s = time.perf_counter() - t0

    soft_block_xp(small, small, kmat, n_kernel, backend=args.backend, symmetric=True,
                  tile=args.tile, seq_chunk=args.seq_chunk)
    t0 = time.perf_counter()
    got = soft_block_xp(items, items, kmat, n_kernel, backend=args.backend, symmetric=True,
                        tile=args.tile, seq_chunk=args.seq_chunk)
    if args.backend == "cupy":
        import cupy

        cupy.cuda.Device().synchronize()
    xp_s = time.perf_counter() - t0
    rel = float(np.max(np.abs(got - want)) / np.max(np.abs(want)))
    scale = (6000 / args.n) ** 2
    result = {
        "items": args.n, "vocabulary": len(vocabulary), "neighbours": args.neighbours,
        "numba_seconds": numba_s, "numba_threads": args.jobs,
        "xp_seconds": xp_s, "xp_backend": args.backend, "tile": args.tile,
        "seq_chunk": args.seq_chunk, "xp_over_numba": xp_s / numba_s,
        "max_relative_difference": rel,
        "numba_6000_estimate_s": numba_s * scale, "xp_6000_estimate_s": xp_s * scale,
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
    }
    if args.backend == "cupy":
        import cupy

        result["machine"]["gpu"] = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"soft trigram kernel, {args.n} x {args.n} symmetric block, {len(vocabulary)} words")
    print(f"{'engine':<28}{'seconds':>10}{'6,000 est. s':>14}")
    print(f"{'numba, ' + str(args.jobs) + ' threads':<28}{numba_s:>10.2f}"
          f"{numba_s * scale:>14.0f}")
    print(f"{'array API, ' + args.backend:<28}{xp_s:>10.2f}{xp_s * scale:>14.0f}")
    print(f"array API / numba: {xp_s / numba_s:.2f}x the time; max relative difference "
          f"{rel:.1e}")
    out = Path(args.out)
    write_result(out, result, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
