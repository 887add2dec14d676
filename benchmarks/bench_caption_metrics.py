"""Side-by-side timing: BLEU-1..4 + ROUGE-L + CIDEr-D *including tokenisation*, ours vs
pycocoevalcap 1.2, on Flickr 8K test images (candidate = caption #0, references = #1-#4);
then METEOR: our Python engine against the Meteor 1.5 jar on the same 1,000 items.

    pip install pycocoevalcap==1.2      # the optional extra "coco"; its tokeniser needs Java
    python benchmarks/bench_caption_metrics.py [--data-dir DIR] [--repeats 5] [--no-meteor]

pycocoevalcap runs its PTBTokenizer (Java, one JVM per call: references, then candidates,
as ``COCOEvalCap.evaluate`` does) and Bleu(4), Rouge, Cider; ours runs
``kcca.captions.evaluate_captions(..., ("bleu", "rouge_l", "cider_d"))`` on the raw text.
Each side is timed ``--repeats`` times (wall clock); the medians and their ratio are printed
and written to ``benchmarks/results/caption_metrics.json`` together with the corpus scores of
both sides (which must agree).

METEOR (needs pycocoevalcap; the jar side needs Java): both engines get the same tokens (our
PTB tokeniser) and each run is a fresh process, so that every start-up counts: the jar's
(JVM, loading the 61 MB paraphrase table) and ours (loading the cached paraphrase index and
the jar's word lists; the seconds are measured inside the process after the imports, and the
whole process's wall time is reported too). The first Python run uses an empty cache folder
and builds the index (the cold run). Each process reports its peak resident memory (the
JVM's for the jar). Per-item and corpus scores of the two engines are compared.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from _results import write_result

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "caption_metrics.json"


def _ours(refs, cands):
    from kcca.captions import evaluate_captions

    ev = evaluate_captions(refs, cands, ("bleu", "rouge_l", "cider_d"))
    return {k: ev.corpus[k] for k in ("BLEU-1", "BLEU-2", "BLEU-3", "BLEU-4", "ROUGE-L",
                                      "CIDEr-D")}


def _theirs(refs, cands):
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.rouge.rouge import Rouge
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    tok = PTBTokenizer()
    gts = tok.tokenize({i: [{"caption": c} for c in v] for i, v in refs.items()})
    res = tok.tokenize({i: [{"caption": c}] for i, c in cands.items()})
    b, _ = Bleu(4).compute_score(gts, res, verbose=0)
    r, _ = Rouge().compute_score(gts, res)
    c, _ = Cider().compute_score(gts, res)
    return {"BLEU-1": b[0], "BLEU-2": b[1], "BLEU-3": b[2], "BLEU-4": b[3],
            "ROUGE-L": float(r), "CIDEr-D": float(c)}


def _ours_pretokenised(gts, res):
    from kcca.captions import evaluate_captions

    ev = evaluate_captions(gts, res, ("bleu", "rouge_l", "cider_d"), tokenize=False)
    return ev.corpus


def _theirs_pretokenised(gts, res):
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.rouge.rouge import Rouge

    Bleu(4).compute_score(gts, res, verbose=0)
    Rouge().compute_score(gts, res)
    Cider().compute_score(gts, res)


def _time(fn, refs, cands, repeats):
    times, scores = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        scores = fn(refs, cands)
        times.append(time.perf_counter() - t0)
    return times, scores


_WORKER = """
import json, resource, sys, time
from kcca.captions.meteor import Meteor
data = json.load(open(sys.argv[2]))
t0 = time.perf_counter()
corpus, per_item = Meteor(engine=sys.argv[1], cache_dir=sys.argv[3]).score_tokens(
    data["references"], data["candidates"])
seconds = time.perf_counter() - t0
print(json.dumps({"seconds": seconds, "corpus": corpus, "per_item": per_item.tolist(),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "child_peak_rss_mb":
                      resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


def _meteor_run(engine: str, items: Path, cache: Path) -> dict:
    """One fresh process scoring the items with ``engine``; its own report plus wall time."""
    import subprocess

    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _WORKER, engine, str(items), str(cache)],
                          capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"METEOR {engine} run failed: {proc.stderr[-2000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process_seconds"] = wall
    return out


def _meteor(refs: dict, cands: dict, repeats: int) -> dict:
    """Our METEOR engine against the jar on the same tokens, each run a fresh process."""
    import tempfile

    from kcca.captions.meteor import meteor_available
    from kcca.captions.tokenizer import tokenize

    ok, why = meteor_available("python")
    if not ok:
        return {"note": why}
    ids = list(cands)
    data = {"references": [[tokenize(r) for r in refs[i]] for i in ids],
            "candidates": [tokenize(cands[i]) for i in ids]}
    with tempfile.TemporaryDirectory() as tmp:
        items = Path(tmp) / "items.json"
        items.write_text(json.dumps(data))
        cache = Path(tmp) / "cache"
        cold = _meteor_run("python", items, cache)  # empty cache: builds the index
        warm = [_meteor_run("python", items, cache) for _ in range(repeats)]
        out = {
            "items": len(ids),
            "python_cold": {k: cold[k] for k in ("seconds", "process_seconds", "peak_rss_mb")},
            "python_seconds": [r["seconds"] for r in warm],
            "python_median_s": statistics.median(r["seconds"] for r in warm),
            "python_process_median_s": statistics.median(r["process_seconds"] for r in warm),
            "python_peak_rss_mb": max(r["peak_rss_mb"] for r in warm),
            "python_corpus": warm[0]["corpus"],
        }
        if meteor_available("java")[0]:
            jar = [_meteor_run("java", items, cache) for _ in range(repeats)]
            java_items = jar[0]["per_item"]
            out.update({
                "java_seconds": [r["seconds"] for r in jar],
                "java_median_s": statistics.median(r["seconds"] for r in jar),
                "java_process_median_s": statistics.median(r["process_seconds"] for r in jar),
                "java_peak_rss_mb": max(r["child_peak_rss_mb"] for r in jar),
                "java_corpus": jar[0]["corpus"],
                "max_abs_per_item_difference": max(
                    abs(a - b) for a, b in zip(warm[0]["per_item"], java_items)),
                "corpus_difference": abs(warm[0]["corpus"] - jar[0]["corpus"]),
            })
            out["speedup"] = out["java_median_s"] / out["python_median_s"]
            out["speedup_processes"] = (out["java_process_median_s"]
                                        / out["python_process_median_s"])
        else:
            out["note"] = "no Java: only our engine was timed"
    return out


def _print_meteor(m: dict) -> None:
    if "python_median_s" not in m:
        print(f"METEOR: {m.get('note')}")
        return
    print(f"METEOR, {m['items']} items, each run a fresh process (seconds inside it; whole "
          "process in brackets):")
    c = m["python_cold"]
    print(f"  ours, first run (builds the index): {c['seconds']:.2f} s "
          f"({c['process_seconds']:.2f} s), peak {c['peak_rss_mb']:.0f} MB")
    print(f"  ours, cached index:                 {m['python_median_s']:.2f} s "
          f"({m['python_process_median_s']:.2f} s), peak {m['python_peak_rss_mb']:.0f} MB")
    if "java_median_s" in m:
        print(f"  jar (pycocoevalcap's command):      {m['java_median_s']:.2f} s "
              f"({m['java_process_median_s']:.2f} s), JVM peak {m['java_peak_rss_mb']:.0f} MB")
        print(f"  speed-up {m['speedup']:.1f}x ({m['speedup_processes']:.1f}x whole processes); "
              f"max |per-item difference| {m['max_abs_per_item_difference']:.1e}, "
              f"corpus {m['python_corpus']:.6f} vs {m['java_corpus']:.6f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=None, help="folder holding flickr8k/ "
                    "(default $KCCA_DATA_DIR)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    ap.add_argument("--no-meteor", action="store_true", help="skip the METEOR comparison")
    ap.add_argument("--meteor-repeats", type=int, default=3,
                    help="fresh-process runs per METEOR engine (default 3)")
    ap.add_argument("--meteor-only", action="store_true",
                    help="only the METEOR comparison")
    args = ap.parse_args(argv)

    from kcca.data.flickr8k import load_flickr8k
    from kcca.data.paths import resolve_data_dir

    corpus = load_flickr8k(resolve_data_dir(args.data_dir), images=False, judgments=False,
                           lemmas=False)
    ids = list(corpus.split("test"))
    refs = {i: list(corpus.captions[i][1:5]) for i in ids}
    cands = {i: corpus.captions[i][0] for i in ids}

    if args.meteor_only:
        result = {"setting": "Flickr 8K test, 1,000 images, candidate #0 vs references #1-#4",
                  "meteor": _meteor(refs, cands, args.meteor_repeats),
                  "machine": {"python": sys.version.split()[0],
                              "platform": platform.platform(), "cpus": os.cpu_count()}}
        _print_meteor(result["meteor"])
        write_result(args.out, result)
        return 0
    _ours(refs, cands)  # warm-up: imports
    ours_t, ours_s = _time(_ours, refs, cands, args.repeats)
    result = {
        "setting": "Flickr 8K test, 1,000 images, candidate #0 vs references #1-#4; "
                   "BLEU-1..4 + ROUGE-L + CIDEr-D including tokenisation",
        "repeats": args.repeats,
        "ours_seconds": ours_t, "ours_median_s": statistics.median(ours_t),
        "ours_scores": ours_s,
        "machine": {"python": sys.version.split()[0], "platform": platform.platform(),
                    "cpus": os.cpu_count()},
    }
    try:
        import pycocoevalcap  # noqa: F401
        from importlib.metadata import version

        result["pycocoevalcap_version"] = version("pycocoevalcap")
        _theirs(refs, cands)  # warm-up: imports, JVM file cache
        theirs_t, theirs_s = _time(_theirs, refs, cands, args.repeats)
        result.update({
            "pycocoevalcap_seconds": theirs_t,
            "pycocoevalcap_median_s": statistics.median(theirs_t),
            "pycocoevalcap_scores": theirs_s,
            "speedup": statistics.median(theirs_t) / statistics.median(ours_t),
            "max_abs_score_difference": max(abs(ours_s[k] - theirs_s[k]) for k in ours_s),
        })
        # the metrics alone, on pycocoevalcap's tokens (no tokenisation on either side)
        from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

        tok = PTBTokenizer()
        gts = tok.tokenize({i: [{"caption": c} for c in v] for i, v in refs.items()})
        res = tok.tokenize({i: [{"caption": c}] for i, c in cands.items()})
        o_t, _ = _time(_ours_pretokenised, gts, res, args.repeats)
        t_t, _ = _time(_theirs_pretokenised, gts, res, args.repeats)
        result["metrics_only"] = {
            "ours_median_s": statistics.median(o_t),
            "pycocoevalcap_median_s": statistics.median(t_t),
            "speedup": statistics.median(t_t) / statistics.median(o_t),
        }
    except ImportError:
        result["pycocoevalcap_version"] = None
        result["note"] = "pycocoevalcap not installed: only our time was measured"

    if not args.no_meteor:
        result["meteor"] = _meteor(refs, cands, args.meteor_repeats)
    print(result["setting"])
    print(f"ours:          median {result['ours_median_s']:.3f} s over {args.repeats} runs")
    if result.get("pycocoevalcap_version"):
        print(f"pycocoevalcap: median {result['pycocoevalcap_median_s']:.3f} s "
              f"({result['pycocoevalcap_version']}, tokeniser in Java)")
        print(f"speed-up:      {result['speedup']:.1f}x; max |score difference| "
              f"{result['max_abs_score_difference']:.2e}")
        mo = result["metrics_only"]
        print(f"metrics only (pre-tokenised, no Java): ours {mo['ours_median_s']:.3f} s, "
              f"pycocoevalcap {mo['pycocoevalcap_median_s']:.3f} s, {mo['speedup']:.1f}x")
    if "meteor" in result:
        _print_meteor(result["meteor"])
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
