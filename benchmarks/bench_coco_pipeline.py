"""The whole COCO caption evaluation, ours against pycocoevalcap 1.2, on 5,000 COCO items.

    python benchmarks/bench_coco_pipeline.py [--repeats 3] [--items 5000]

Items: the Karpathy test images of MS COCO with published model captions, from the outside
fixture ``tests/kcca/captions/data/coco_outside_captions.json.gz`` (5,000 images, five or six
references each). Each side runs in a fresh process per repeat, from raw text to the scores
of BLEU-1..4, METEOR, ROUGE-L and CIDEr-D, timed inside the process after the imports:

* pycocoevalcap: what ``COCOEvalCap.evaluate`` does without SPICE: ``PTBTokenizer`` on the
  references, then on the candidates (Java, one JVM each), ``Bleu(4)``, ``Meteor()`` (starts
  the Meteor 1.5 jar: a JVM that reads its 61 MB paraphrase table), ``Rouge()``, ``Cider()``;
* ours: the same classes from :mod:`kcca.coco` (imports changed only; METEOR in Python from
  the cached paraphrase index, the cache warmed by one run before the timed ones);
* ours as ``kcca score-captions`` runs it: :func:`kcca.captions.evaluate_captions` on the raw
  text with its five metrics (plain CIDEr too, which pycocoevalcap does not compute).

Medians and their ratio are printed and written to ``benchmarks/results/coco_pipeline.json``,
with the largest per-item difference of every metric between the two sides (which must be
below 1e-12). In the same run, METEOR alone after start-up on the same 5,000 items
(``bench_caption_metrics.py --meteor-warm``'s measurement: pycocoevalcap's warm jar process
against our engine with its resources loaded, after a warm-up on 1,000 other items, the
fixture's COCO human captions), unless ``--no-meteor-warm``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _results import write_result

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "kcca" / "captions" / "data" / "coco_outside_captions.json.gz"
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "coco_pipeline.json"
SOURCE = "coco_karpathy_test_models"

_EVALUATE_WORKER = r'''
import json, sys, time
from kcca.captions import evaluate_captions
items = json.load(open(sys.argv[2], encoding="utf-8"))
refs = {it["id"]: it["references"] for it in items}
cands = {it["id"]: it["candidate"] for it in items}
t0 = time.perf_counter()
ev = evaluate_captions(refs, cands, ("bleu", "meteor", "rouge_l", "cider_d", "cider"))
seconds = time.perf_counter() - t0
names = {"BLEU-1": "Bleu_1", "BLEU-2": "Bleu_2", "BLEU-3": "Bleu_3", "BLEU-4": "Bleu_4",
         "METEOR": "METEOR", "ROUGE-L": "ROUGE_L", "CIDEr-D": "CIDEr", "CIDEr": "CIDEr_plain"}
print(json.dumps({"seconds": seconds,
                  "corpus": {names.get(k, k): v for k, v in ev.corpus.items()},
                  "per_item": {names.get(k, k): v.tolist() for k, v in ev.per_item.items()}}))
'''

_WORKER = r'''
import importlib, json, sys, time
package, items_path = sys.argv[1], sys.argv[2]
items = json.load(open(items_path, encoding="utf-8"))
def cls(module, name):
    return getattr(importlib.import_module(f"{package}.{module}"), name)
PTBTokenizer = cls("tokenizer.ptbtokenizer", "PTBTokenizer")
scorers = [(cls("bleu.bleu", "Bleu")(4), ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4"]),
           (None, "METEOR"), (cls("rouge.rouge", "Rouge")(), "ROUGE_L"),
           (cls("cider.cider", "Cider")(), "CIDEr")]
t0 = time.perf_counter()
tok = PTBTokenizer()
gts = tok.tokenize({it["id"]: [{"caption": r} for r in it["references"]] for it in items})
res = tok.tokenize({it["id"]: [{"caption": it["candidate"]}] for it in items})
scorers[1] = (cls("meteor.meteor", "Meteor")(), "METEOR")
per_item, corpus = {}, {}
for scorer, method in scorers:
    if isinstance(method, list):
        score, scores = scorer.compute_score(gts, res, verbose=0)
        for m, s, ss in zip(method, score, scores):
            corpus[m], per_item[m] = float(s), [float(x) for x in ss]
    else:
        score, scores = scorer.compute_score(gts, res)
        corpus[method], per_item[method] = float(score), [float(x) for x in scores]
seconds = time.perf_counter() - t0
print(json.dumps({"seconds": seconds, "corpus": corpus, "per_item": per_item}))
'''


def _run(package: str, items: Path) -> dict:
    """One fresh process: ``package``'s classes as COCOEvalCap runs them, or (``package``
    ``"evaluate_captions"``) kcca's own front end."""
    worker = _EVALUATE_WORKER if package == "evaluate_captions" else _WORKER
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", worker, package, str(items)],
                          capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise RuntimeError(f"{package} run failed: {proc.stderr[-2000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process_seconds"] = time.perf_counter() - t0
    return out


def _meteor_warm(items: list, sources: list, repeats: int) -> dict:
    """METEOR alone after start-up on ``items`` (tokenised as pycocoevalcap does), warm-up on
    the fixture's COCO human items; printed and returned."""
    from bench_caption_metrics import _meteor_warm as measure
    from bench_caption_metrics import _print_meteor_warm

    from kcca.coco.tokenizer.ptbtokenizer import PTBTokenizer

    def tokenised(batch):
        tok = PTBTokenizer()
        gts = tok.tokenize({it["id"]: [{"caption": r} for r in it["references"]] for it in batch})
        res = tok.tokenize({it["id"]: [{"caption": it["candidate"]}] for it in batch})
        return [(i, gts[i], res[i][0]) for i in gts]

    warmup = next(s for s in sources if s["name"] == "coco_karpathy_test_human")["items"]
    timed = tokenised(items)
    result = measure(timed + tokenised(warmup), len(timed), len(warmup), repeats, SOURCE)
    _print_meteor_warm(result)
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--items", type=int, default=5000, help="how many COCO items (<= 5000)")
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    ap.add_argument("--no-meteor-warm", action="store_true",
                    help="skip METEOR alone after start-up (warm jar against ours)")
    args = ap.parse_args(argv)
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as f:
        sources = json.load(f)["sources"]
    items = next(s for s in sources if s["name"] == SOURCE)["items"][: args.items]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "items.json"
        path.write_text(json.dumps(items), encoding="utf-8")
        _run("kcca.coco", path)  # warms the METEOR cache (paraphrase index)
        ours = [_run("kcca.coco", path) for _ in range(args.repeats)]
        theirs = [_run("pycocoevalcap", path) for _ in range(args.repeats)]
        front = [_run("evaluate_captions", path) for _ in range(args.repeats)]
    ours_s = statistics.median(r["seconds"] for r in ours)
    front_s = statistics.median(r["seconds"] for r in front)
    theirs_s = statistics.median(r["seconds"] for r in theirs)
    max_diff = {
        m: max(abs(a - b) for a, b in zip(ours[0]["per_item"][m], theirs[0]["per_item"][m]))
        for m in theirs[0]["per_item"]
    }
    front_diff = {
        m: max(abs(a - b) for a, b in zip(front[0]["per_item"][m], theirs[0]["per_item"][m]))
        for m in theirs[0]["per_item"]
    }
    print(f"{len(items)} COCO items, BLEU-1..4 + METEOR + ROUGE-L + CIDEr-D from raw text, "
          f"medians of {args.repeats} fresh processes:")
    print(f"  pycocoevalcap 1.2 (Java tokeniser and Meteor jar): {theirs_s:.2f} s")
    print(f"  kcca.coco (no Java):                               {ours_s:.2f} s")
    print(f"  ratio: {theirs_s / ours_s:.1f}x")
    print(f"  evaluate_captions (kcca score-captions), plain CIDEr too: {front_s:.2f} s "
          f"({theirs_s / front_s:.1f}x)")
    print(f"  largest per-item difference: {max(max_diff.values()):.3g} "
          f"({', '.join(f'{m} {d:.2g}' for m, d in max_diff.items())}); "
          f"evaluate_captions: {max(front_diff.values()):.3g}")
    meteor_warm = None if args.no_meteor_warm else _meteor_warm(items, sources, args.repeats)
    write_result(args.out, {
        "meteor_warm": meteor_warm,
        "items": len(items), "source": SOURCE, "repeats": args.repeats,
        "ours_seconds": [r["seconds"] for r in ours],
        "theirs_seconds": [r["seconds"] for r in theirs],
        "ours_process_seconds": [r["process_seconds"] for r in ours],
        "theirs_process_seconds": [r["process_seconds"] for r in theirs],
        "ours_median_s": ours_s, "theirs_median_s": theirs_s, "ratio": theirs_s / ours_s,
        "evaluate_captions_seconds": [r["seconds"] for r in front],
        "evaluate_captions_median_s": front_s, "evaluate_captions_ratio": theirs_s / front_s,
        "evaluate_captions_max_per_item_difference": front_diff,
        "corpus_ours": ours[0]["corpus"], "corpus_theirs": theirs[0]["corpus"],
        "max_per_item_difference": max_diff,
    })
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
