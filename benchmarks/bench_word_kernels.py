"""Time and peak memory to build each named word kernel on the real Flickr 8K training split.

Every kernel is built from scratch in its own process with an empty cache for the similarity
stages (so ``dist-ext`` includes reading and lemmatising the D_ext corpus, ``align`` includes
tagging the 30,000 raw training captions and the EM, and a combination includes all its parts).
The shared upstream stages, preprocessed captions and the trained POS tagger, are built once
first (reported as ``upstream``) and linked into each run's cache. Peak memory is the process's
maximum resident set size. Targets: each kernel under 5 minutes on 2 cores, peak
under 6 GB.

    python benchmarks/bench_word_kernels.py [--data-dir DIR] [--kernels lin align ...]

Prints a table and writes ``benchmarks/results/word_kernels.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _results import write_result

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "word_kernels.json"
UPSTREAM_STAGES = ("text-preprocess", "pos-tagger")
TARGET_SECONDS = 300
TARGET_PEAK_MB = 6 * 1024


def _peak_mb() -> float:
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / 1024 if sys.platform != "darwin" else kb / 2**20


def child(name: str, data_dir: str, cache_dir: str) -> dict:
    """Build one kernel (or the upstream stages for ``name == "upstream"``) and measure it."""
    from kcca._cache import Cache
    from kcca.data import load_corpus
    from features.text._word_kernels import WordKernelBuilder

    t0 = time.perf_counter()
    corpus = load_corpus("flickr8k", data_dir, images=False)
    load_s = time.perf_counter() - t0
    builder = WordKernelBuilder(corpus, cache=Cache(cache_dir), progress=False)
    t0 = time.perf_counter()
    if name == "upstream":
        builder.training_tokens()
        from features.text._postag import load_tagger

        load_tagger(builder.tagger_config(), cache=builder.cache)
        extra = {}
    else:
        k = builder.kernel(name)
        m = k.matrix
        off = max(m.size - len(m), 1)
        extra = {"vocabulary": len(k.vocabulary),
                 "nonzero_offdiag_fraction": float(((m > 0).sum() - len(m)) / off)}
    seconds = time.perf_counter() - t0
    return {"kernel": name, "seconds": round(seconds, 2), "corpus_load_seconds": round(load_s, 2),
            "peak_mb": round(_peak_mb(), 1), **extra}


def run_child(name: str, data_dir: str, cache_dir: str) -> dict:
    cmd = [sys.executable, __file__, "--child", name, "--data-dir", data_dir,
           "--cache-dir", cache_dir]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    from features.text._word_kernels import WORD_KERNELS

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data-dir", default=os.environ.get("KCCA_DATA_DIR"))
    p.add_argument("--kernels", nargs="+", default=list(WORD_KERNELS),
                   choices=list(WORD_KERNELS))
    p.add_argument("--upstream-cache", default=None,
                   help="cache holding (or receiving) the preprocessed captions and POS tagger "
                   "(default: a fresh temporary folder, so they are built too)")
    p.add_argument("--out", default=str(RESULTS))
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    p.add_argument("--cache-dir", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if not args.data_dir:
        p.error("no data folder: pass --data-dir or set KCCA_DATA_DIR")
    if args.child:
        print(json.dumps(child(args.child, args.data_dir, args.cache_dir)))
        return 0

    with tempfile.TemporaryDirectory(prefix="bench-word-kernels-") as tmp:
        upstream = Path(args.upstream_cache or Path(tmp) / "upstream")
        upstream.mkdir(parents=True, exist_ok=True)
        rows = [run_child("upstream", args.data_dir, str(upstream))]
        print(f"upstream stages: {rows[0]['seconds']:.1f} s", flush=True)
        for name in args.kernels:
            run_dir = Path(tempfile.mkdtemp(prefix=f"{name.replace('+', '_')}-", dir=tmp))
            for stage in UPSTREAM_STAGES:
                if (upstream / stage).is_dir():
                    os.symlink(upstream / stage, run_dir / stage)
            rows.append(run_child(name, args.data_dir, str(run_dir)))
            print(f"  {name}: {rows[-1]['seconds']:.1f} s", flush=True)

    print()
    print(f"{'kernel':<16s} {'seconds':>8s} {'peak MB':>8s} {'words':>6s} {'nonzero':>8s}")
    for r in rows:
        nz = r.get("nonzero_offdiag_fraction")
        print(f"{r['kernel']:<16s} {r['seconds']:8.1f} {r['peak_mb']:8.0f} "
              f"{r.get('vocabulary', ''):>6} {'' if nz is None else f'{nz:8.3f}'}")
    ok = all(r["seconds"] <= TARGET_SECONDS and r["peak_mb"] <= TARGET_PEAK_MB
             for r in rows if r["kernel"] != "upstream")
    print(f"targets for each word kernel (<= {TARGET_SECONDS} s, peak <= {TARGET_PEAK_MB} MB): "
          f"{'met' if ok else 'NOT met'}; 'upstream' (caption preprocessing and POS tagger "
          "training, shared with the preprocessing pipeline and cached) is not a word kernel")
    report = {"benchmark": "word_kernels", "machine": platform.platform(),
              "python": platform.python_version(), "cpu_count": os.cpu_count(),
              "load_average_at_end": os.getloadavg(), "targets": {
                  "seconds": TARGET_SECONDS, "peak_mb": TARGET_PEAK_MB}, "targets_met": ok,
              "results": rows}
    out = Path(args.out)
    write_result(out, report, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
