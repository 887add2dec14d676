"""Table 12 under the paper's judging protocol: how good the relevance model is, and what it
changes per system (prints tables, writes JSON and a reliability plot).

    python scripts/judging_protocol_check.py --data-dir /path/to/data \\
        [--rankings results/hodosh2013/rankings] [-o protocol.json] [--plot reliability.png]

The paper judged only its own systems' top 10, and only pairs with BLEU_pre >= 0.25; the rest
count as not relevant (``kcca._evaluate.judging_protocol``). For our rankings this prints

1. the relevance model's quality: out-of-fold predictions (5 seeded folds over the judged
   pairs that pass the filter) against the observed verdicts, per probability bin, and its
   Brier score against the constant base rate;
2. per system and task: how many of our top-10 pairs are unjudged, how many of those the
   paper's filter would have removed, and S@1/5/10 as counted (unjudged = not relevant), as
   imputed, and at the protocol's bound, beside the paper.

It reads the test pool's judgments and the committed test rankings; nothing is chosen here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

KS = (1, 5, 10)


def out_of_fold(relevant: np.ndarray, judged: np.ndarray, bleu_pre: np.ndarray,
                folds: int = 5, seed: int = 0) -> tuple[np.ndarray, np.ndarray, float]:
    """Out-of-fold P(relevant | BLEU_pre) of the judged non-original pairs passing the filter:
    (predictions, verdicts, base rate)."""
    from sklearn.model_selection import KFold

    from kcca._evaluate.judging_protocol import fit_relevance_model

    n = min(relevant.shape)
    off = ~np.eye(*relevant.shape, dtype=bool)
    idx = np.flatnonzero(judged & off & (bleu_pre >= 0.25 - 1e-12))
    y = relevant.ravel()[idx].astype(float)
    pred = np.zeros(idx.size)
    for train, test in KFold(folds, shuffle=True, random_state=seed).split(idx):
        keep = np.zeros(relevant.size, dtype=bool)
        keep[idx[train]] = True
        keep[np.arange(n) * relevant.shape[1] + np.arange(n)] = True  # originals (excluded)
        keep = keep.reshape(relevant.shape)
        model = fit_relevance_model(relevant & keep, judged & keep, bleu_pre)
        pred[test] = model.probability(bleu_pre.ravel()[idx[test]])
    return pred, y, float(y.mean())


def reliability(pred: np.ndarray, y: np.ndarray,
                edges: tuple[float, ...] = (0, 0.02, 0.05, 0.1, 0.2, 0.4, 1.0001)) -> list[dict]:
    rows = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (pred >= lo) & (pred < hi)
        if m.any():
            rows.append({"bin": f"[{lo:g}, {min(hi, 1):g})", "pairs": int(m.sum()),
                         "predicted %": 100 * float(pred[m].mean()),
                         "observed %": 100 * float(y[m].mean())})
    return rows


def compact_tasks(path: Path, pool) -> tuple[str, dict[str, np.ndarray]]:
    """A compact results file's top lists as whole rankings: each query's top candidates, then
    the others in pool order. Exact for every figure printed here, which reads the first
    ``JUDGED_DEPTH`` (10) places only (the compact files keep 25)."""
    from kcca._evaluate.compact import check_pool, read_compact
    from kcca._evaluate.judging_protocol import JUDGED_DEPTH

    compact = read_compact(path)
    check_pool(compact, pool)
    if compact.depth < JUDGED_DEPTH:
        raise SystemExit(f"error: {path} keeps the top {compact.depth} per query; the protocol "
                         f"reads the top {JUDGED_DEPTH}")
    out = {}
    for task, top in compact.top.items():
        n = len(compact.candidate_ids[task])
        rest = np.ones((top.shape[0], n), dtype=bool)
        rest[np.arange(top.shape[0])[:, None], top] = False
        others = np.nonzero(rest)[1].reshape(top.shape[0], n - top.shape[1])
        out[task] = np.concatenate([top, others], axis=1)
    return compact.system, out


def system_rows(rankings_dir: Path, corpus, rel, pre, model) -> list[dict]:
    from kcca._evaluate.judged_metrics import success_at_k
    from kcca._evaluate.judging_protocol import protocol_metrics, protocol_pairs
    from kcca._evaluate.rankings_io import read_rankings
    from kcca._evaluate.results_files import RANKINGS_FOLDER, find_results
    from kcca._paper.numbers import SYSTEMS
    from kcca._paper.tables import paper_value

    found = {}
    # rankings or compact files (not details.json), in the folder and in its rankings/
    for entry in find_results(rankings_dir, Path(rankings_dir) / RANKINGS_FOLDER):
        if entry.is_compact:
            system, ranked = compact_tasks(entry.path, corpus.pool("test"))
        else:
            r = read_rankings(entry.path, corpus.pool("test"))
            system, ranked = r.system, dict(r.tasks)
        found[system] = ranked
    rows = []
    for system in [s for s in SYSTEMS if s in found] + [s for s in found if s not in SYSTEMS]:
        tasks = found[system]
        est = protocol_metrics(tasks, rel.relevant, rel.judged, pre, model, ks=KS)
        todo = protocol_pairs(tasks, rel.judged, pre)
        for task, r in tasks.items():
            relq, judq = rel.for_task(task)
            top = r[:, :10]
            unjudged = ~np.take_along_axis(judq, top, axis=1)
            passing = np.take_along_axis(todo if task == "annotation" else todo.T, top, axis=1)
            row = {"system": system, "task": task,
                   "unjudged top-10 %": 100 * float(unjudged.mean()),
                   "of them passing the filter %": 100 * float(passing.sum() / unjudged.sum())
                   if unjudged.any() else 0.0}
            for k in KS:
                row[f"S@{k}"] = success_at_k(r, relq, k).aggregate
                row[f"S@{k} imputed"] = est[task][f"S@{k} imputed"].aggregate
                row[f"S@{k} bound"] = est[task][f"S@{k} bound"].aggregate
                row[f"S@{k} paper"] = paper_value("12", system, task, f"S@{k}")[0]
            rows.append(row)
    return rows


def plot(rows: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    x = [r["predicted %"] for r in rows]
    y = [r["observed %"] for r in rows]
    ax.plot([0, max(x + y)], [0, max(x + y)], color="grey", lw=0.8)
    ax.scatter(x, y, s=[max(10, r["pairs"] / 50) for r in rows])
    ax.set_xlabel("predicted relevant % (out of fold)")
    ax.set_ylabel("judged relevant %")
    ax.set_title("P(relevant | BLEU_pre), judged pairs passing the filter", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default=None, help="folder holding flickr8k/ ($KCCA_DATA_DIR)")
    p.add_argument("--rankings", default=str(Path(__file__).resolve().parents[1] / "results"
                                             / "hodosh2013" / "rankings"))
    p.add_argument("-o", "--output", default=None, help="JSON file to write")
    p.add_argument("--plot", default=None, help="reliability plot (PNG) to write")
    args = p.parse_args(argv)

    from kcca.data._flickr8k import load_flickr8k
    from kcca.data._paths import resolve_data_dir
    from kcca._evaluate.bleu_rouge import ROUGE_STYLE, pool_score_matrix
    from kcca._evaluate.judging_protocol import fit_relevance_model
    from kcca._evaluate.relevance import corpus_relevance

    corpus = load_flickr8k(resolve_data_dir(args.data_dir), images=False)
    rel = corpus_relevance(corpus, "test")
    pre = pool_score_matrix(corpus, "test", "bleu", "R5", ROUGE_STYLE)
    model = fit_relevance_model(rel.relevant, rel.judged, pre)
    pred, y, base = out_of_fold(rel.relevant, rel.judged, pre)
    brier, brier0 = float(np.mean((pred - y) ** 2)), float(np.mean((base - y) ** 2))
    rel_rows = reliability(pred, y)
    print(f"relevance model: {model.n_fitted:,} judged pairs pass the filter, "
          f"{100 * base:.2f} % relevant; out-of-fold Brier {brier:.4f} (base rate {brier0:.4f})")
    print("| bin | pairs | predicted % | observed % |\n|---|---|---|---|")
    for r in rel_rows:
        print(f"| {r['bin']} | {r['pairs']:,} | {r['predicted %']:.1f} | {r['observed %']:.1f} |")
    rows = system_rows(Path(args.rankings), corpus, rel, pre, model)
    print("\n| system | task | unjudged top-10 % | of them passing % | "
          + " | ".join(f"S@{k} / imputed / bound (paper)" for k in KS) + " |")
    print("|---|---|---|---|" + "---|" * len(KS))
    for r in rows:
        cells = " | ".join(f"{r[f'S@{k}']:.1f} / {r[f'S@{k} imputed']:.1f} / "
                           f"{r[f'S@{k} bound']:.1f} ({r[f'S@{k} paper']})" for k in KS)
        print(f"| {r['system']} | {r['task']} | {r['unjudged top-10 %']:.1f} | "
              f"{r['of them passing the filter %']:.1f} | {cells} |")
    if args.plot:
        plot(rel_rows, args.plot)
    if args.output:
        Path(args.output).write_text(json.dumps(
            {"model": {"n_fitted": model.n_fitted, "base_rate": base, "brier_oof": brier,
                       "brier_base_rate": brier0, "reliability": rel_rows},
             "systems": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
