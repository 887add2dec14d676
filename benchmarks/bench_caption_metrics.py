"""Side-by-side timing: BLEU-1..4 + ROUGE-L + CIDEr-D *including tokenisation*, ours vs
pycocoevalcap 1.2, on Flickr 8K test images (candidate = caption #0, references = #1-#4).

    pip install pycocoevalcap==1.2      # the optional extra "coco"; its tokeniser needs Java
    python benchmarks/bench_caption_metrics.py [--data-dir DIR] [--repeats 5]

pycocoevalcap runs its PTBTokenizer (Java, one JVM per call: references, then candidates,
as ``COCOEvalCap.evaluate`` does) and Bleu(4), Rouge, Cider; ours runs
``kcca.captions.evaluate_captions(..., ("bleu", "rouge_l", "cider_d"))`` on the raw text.
Each side is timed ``--repeats`` times (wall clock); the medians and their ratio are printed
and written to ``benchmarks/results/caption_metrics.json`` together with the corpus scores of
both sides (which must agree).
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=None, help="folder holding flickr8k/ "
                    "(default $KCCA_DATA_DIR)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    args = ap.parse_args(argv)

    from kcca.data.flickr8k import load_flickr8k
    from kcca.data.paths import resolve_data_dir

    corpus = load_flickr8k(resolve_data_dir(args.data_dir), images=False, judgments=False,
                           lemmas=False)
    ids = list(corpus.split("test"))
    refs = {i: list(corpus.captions[i][1:5]) for i in ids}
    cands = {i: corpus.captions[i][0] for i in ids}

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

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
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
    print(f"written: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
