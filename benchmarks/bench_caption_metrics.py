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

``--meteor-warm`` compares per-item speed *after* start-up instead (no other metric runs):

    python benchmarks/bench_caption_metrics.py --meteor-warm [--n-items 5000] \
        [--items FILE | --coco] [--warmup-items 1000] [--meteor-repeats 3]

The jar runs in one stdio process started by pycocoevalcap's own ``Meteor`` class; it is
warmed up (JVM, table, JIT) by scoring a warm-up batch with ``compute_score``, then
``compute_score`` (one ``SCORE`` line per item, then one ``EVAL``) is timed on the items.
Ours (``kcca.captions.Meteor(engine="python")``) runs in this process: the cached resources
are loaded and a warm-up batch scored (numba compilation, if any, happens there), then
``score_tokens`` is timed on the same tokens. The warm-up batch is made of other items
than the timed ones where the item source has enough (Flickr 8K: the images after the
first ``--n-items``), so that nothing our engine remembers between calls is the timed
items' own work. Items: Flickr 8K train+dev+test (candidate = caption #0, references =
#1-#4, tokenised with ``kcca.captions._tokenizer.tokenize``); ``--items FILE`` a json
``{"references": {id: [tokenised str, ...]}, "candidates": {id: tokenised str}}``;
``--coco`` the COCO fixture ``tests/kcca/captions/data/coco_outside_captions.json.gz``
(raw text, tokenised here). Also reported: our first call in a fresh process (resource
loading and any compilation included).
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
DEFAULT_WARM_OUT = ROOT / "benchmarks" / "results" / "meteor_warm.json"


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
from kcca.captions._meteor import Meteor
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

    from kcca.captions._meteor import meteor_available
    from kcca.captions._tokenizer import tokenize

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


COCO_FIXTURE = ROOT / "tests" / "kcca" / "captions" / "data" / "coco_outside_captions.json.gz"


def _flickr_items(data_dir: str | None) -> list[tuple[str, list[str], str]]:
    """Flickr 8K train, dev and test images as ``(id, tokenised references #1-#4,
    tokenised candidate #0)``."""
    from kcca.captions._tokenizer import tokenize
    from kcca.data._flickr8k import load_flickr8k
    from kcca.data._paths import resolve_data_dir

    corpus = load_flickr8k(resolve_data_dir(data_dir), images=False, judgments=False,
                           lemmas=False)
    out = []
    for split in ("train", "dev", "test"):
        for i in corpus.split(split):
            caps = corpus.captions[i]
            out.append((str(i), [" ".join(tokenize(c)) for c in caps[1:5]],
                        " ".join(tokenize(caps[0]))))
    return out


def _file_items(path: str) -> list[tuple[str, list[str], str]]:
    """``{"references": {id: [tokenised str, ...]}, "candidates": {id: tokenised str}}``."""
    data = json.loads(Path(path).read_text())
    refs, cands = data["references"], data["candidates"]
    return [(str(i), list(refs[i]), cands[i]) for i in cands]


def _coco_items(path: Path = COCO_FIXTURE) -> list[tuple[str, list[str], str]]:
    """The COCO fixture ``{"sources": [{"name", "items": [{"id", "references": [raw, ...],
    "candidate": raw}]}]}``, tokenised with ``kcca.captions._tokenizer.tokenize``."""
    import gzip

    from kcca.captions._tokenizer import tokenize

    with gzip.open(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    out = []
    for source in data["sources"]:
        for item in source["items"]:
            out.append((f"{source['name']}/{item['id']}",
                        [" ".join(tokenize(r)) for r in item["references"]],
                        " ".join(tokenize(item["candidate"]))))
    return out


#: items then scored one per call, each side (the cost of a call however small: a caption
#: reward in a training loop scores a few items at a time)
SINGLE_CALLS = 200


def _jar_warm(timed: list, warmup: list, repeats: int) -> dict:
    """pycocoevalcap's ``Meteor`` (one jar process): ``compute_score`` on the warm-up
    batch, then timed ``compute_score`` calls on the items (the median is reported)."""
    from pycocoevalcap.meteor.meteor import Meteor as CocoMeteor

    def as_coco(items):
        return ({k: refs for k, refs, _ in items}, {k: [cand] for k, _, cand in items})

    t0 = time.perf_counter()
    jar = CocoMeteor()
    jar.compute_score(*as_coco(warmup))
    startup = time.perf_counter() - t0
    gts, res = as_coco(timed)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        corpus, per_item = jar.compute_score(gts, res)
        times.append(time.perf_counter() - t0)
    single = []
    for k, refs, cand in timed[:SINGLE_CALLS]:
        t0 = time.perf_counter()
        jar.compute_score({k: refs}, {k: [cand]})
        single.append(time.perf_counter() - t0)
    del jar
    return {"start_and_warmup_s": startup, "seconds": times,
            "median_s": statistics.median(times), "corpus": corpus,
            "one_item_median_ms": 1e3 * statistics.median(single),
            "per_item": [float(x) for x in per_item]}


def _ours_warm(timed: list, warmup: list, repeats: int) -> dict:
    """``Meteor(engine="python").score_tokens`` in this process, after loading the cached
    resources and scoring the warm-up batch."""
    from kcca.captions._meteor import Meteor

    def as_tokens(items):
        return [[r.split(" ") for r in refs] for _, refs, _ in items], \
            [cand.split(" ") for _, _, cand in items]

    metric = Meteor(engine="python")
    t0 = time.perf_counter()
    metric.score_tokens(*as_tokens(warmup))
    startup = time.perf_counter() - t0
    refs, cands = as_tokens(timed)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        corpus, per_item = metric.score_tokens(refs, cands)
        times.append(time.perf_counter() - t0)
    single = []
    for one_refs, one_cand in zip(refs[:SINGLE_CALLS], cands[:SINGLE_CALLS]):
        t0 = time.perf_counter()
        metric.score_tokens([one_refs], [one_cand])
        single.append(time.perf_counter() - t0)
    return {"load_and_warmup_s": startup, "seconds": times,
            "median_s": statistics.median(times), "corpus": corpus,
            "one_item_median_ms": 1e3 * statistics.median(single),
            "per_item": per_item.tolist()}


def _ours_fresh(timed: list) -> dict:
    """Our first call in a fresh process (cached index): resource loading and any
    compilation included, as :func:`_meteor_run` measures it."""
    import tempfile

    from kcca._cache import default_cache_dir

    data = {"references": [[r.split(" ") for r in refs] for _, refs, _ in timed],
            "candidates": [cand.split(" ") for _, _, cand in timed]}
    with tempfile.TemporaryDirectory() as tmp:
        items = Path(tmp) / "items.json"
        items.write_text(json.dumps(data))
        run = _meteor_run("python", items, Path(default_cache_dir()))
    return {k: run[k] for k in ("seconds", "process_seconds", "peak_rss_mb")}


def _meteor_warm(items: list, n_items: int, n_warmup: int, repeats: int, source: str) -> dict:
    """The warm comparison of the module docstring on the first ``n_items`` items."""
    from kcca.captions._meteor import meteor_available

    timed = items[:n_items]
    rest = items[n_items:]
    warmup = rest[:n_warmup] if rest else timed[:n_warmup]
    for k, refs, cand in timed + warmup:
        if any("|||" in t or "  " in t for t in [*refs, cand]):
            raise ValueError(f"item {k}: '|||' or a double space; pycocoevalcap would send "
                             "the references as they are, ours cleans them")
    out: dict = {"source": source, "items": len(timed), "warmup_items": len(warmup),
                 "warmup_disjoint": bool(rest),
                 "references": sum(len(r) for _, r, _ in timed), "repeats": repeats}
    ok, why = meteor_available("python")
    if not ok:
        out["note"] = why
        return out
    ours = _ours_warm(timed, warmup, repeats)
    out["ours"] = {k: v for k, v in ours.items() if k != "per_item"}
    out["ours_fresh_process"] = _ours_fresh(timed)
    if not meteor_available("java")[0]:
        out["note"] = "no Java: only our engine was timed"
        return out
    jar = _jar_warm(timed, warmup, repeats)
    out["jar"] = {k: v for k, v in jar.items() if k != "per_item"}
    diffs = [abs(a - b) for a, b in zip(ours["per_item"], jar["per_item"])]
    out.update({
        "speedup": jar["median_s"] / ours["median_s"],
        "max_abs_per_item_difference": max(diffs),
        "items_differing": sum(d != 0.0 for d in diffs),
        "corpus_difference": abs(ours["corpus"] - jar["corpus"]),
    })
    return out


def _print_meteor_warm(m: dict) -> None:
    print(f"METEOR after start-up, {m['source']}: {m['items']} items "
          f"({m['references']} references), warm-up {m['warmup_items']} "
          f"{'other ' if m['warmup_disjoint'] else ''}items, median of {m['repeats']}")
    if "ours" not in m:
        print(f"  {m.get('note')}")
        return
    o, f = m["ours"], m["ours_fresh_process"]
    print(f"  ours (in process, resources loaded): {o['median_s']:.3f} s "
          f"({1e3 * o['median_s'] / m['items']:.3f} ms an item)")
    print(f"  ours, first call in a fresh process: {f['seconds']:.3f} s "
          f"({f['process_seconds']:.2f} s whole process)")
    if "jar" in m:
        j = m["jar"]
        print(f"  warm jar (pycocoevalcap compute_score): {j['median_s']:.3f} s "
              f"({1e3 * j['median_s'] / m['items']:.3f} ms an item; start + warm-up "
              f"{j['start_and_warmup_s']:.1f} s)")
        print(f"  speed-up {m['speedup']:.2f}x; max |per-item difference| "
              f"{m['max_abs_per_item_difference']:.1e} ({m['items_differing']} items differ); "
              f"corpus {o['corpus']!r} vs {j['corpus']!r}")
        print(f"  one item a call (median of {SINGLE_CALLS} calls): ours "
              f"{o['one_item_median_ms']:.2f} ms, warm jar {j['one_item_median_ms']:.2f} ms")
    else:
        print(f"  {m.get('note')}")
        print(f"  one item a call (median of {SINGLE_CALLS} calls): ours "
              f"{o['one_item_median_ms']:.2f} ms")


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
    ap.add_argument("--meteor-warm", action="store_true",
                    help="only METEOR, timed after start-up: warm jar against ours")
    ap.add_argument("--n-items", type=int, default=5000,
                    help="items timed by --meteor-warm (default 5000)")
    ap.add_argument("--warmup-items", type=int, default=1000,
                    help="warm-up batch of --meteor-warm (default 1000)")
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--items", default=None, help="--meteor-warm items: a json "
                     '{"references": {id: [tokenised str, ...]}, "candidates": {id: str}}')
    src.add_argument("--coco", action="store_true", help="--meteor-warm items: the COCO "
                     "fixture tests/kcca/captions/data/coco_outside_captions.json.gz")
    args = ap.parse_args(argv)

    if args.meteor_warm:
        if args.items:
            items, source = _file_items(args.items), f"items of {args.items}"
        elif args.coco:
            items, source = _coco_items(), f"COCO fixture {COCO_FIXTURE.name}"
        else:
            items = _flickr_items(args.data_dir)
            source = "Flickr 8K train+dev+test, candidate #0 vs references #1-#4"
        result = {"meteor_warm": _meteor_warm(items, args.n_items, args.warmup_items,
                                              args.meteor_repeats, source),
                  "machine": {"python": sys.version.split()[0],
                              "platform": platform.platform(), "cpus": os.cpu_count()}}
        _print_meteor_warm(result["meteor_warm"])
        out = args.out if args.out != str(DEFAULT_OUT) else str(DEFAULT_WARM_OUT)
        write_result(out, result)
        return 0

    from kcca.data._flickr8k import load_flickr8k
    from kcca.data._paths import resolve_data_dir

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
