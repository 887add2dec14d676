"""How much the NN systems' Table 11 figures owe to score ties (prints a table, writes JSON).

    python scripts/nn_tie_rule.py --data-dir /path/to/data [--cache-dir DIR] [-o ties.json]

NN annotation (eq. 2) scores every pool caption by its similarity to the captions of the query
image's nearest training image; with F1 or bag-of-words similarities hundreds of pool captions
share the same score (often 0), the original one among them. Every table puts the original
item last among equal scores (``ties="last"``, never in its favour). This script recomputes
the test R@1/5/10 and median rank of the NN systems that have one text kernel (NN5_F1,
NN5_F1^idf, NN5_BoW5) with the original item first among ties, and midway, beside the paper's
Table 11 value, so the effect of the convention can be read off. Image kernel and text
kernels come from the cache of ``kcca reproduce`` (computed when missing).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

RULES = ("last", "mean", "first")
METRICS = ("R@1", "R@5", "R@10", "median rank")


def nn_scores(ws, spec) -> dict[str, np.ndarray]:
    """Test scores of an NN system with one text kernel: task -> (queries, candidates)."""
    from kcca.nn import nn_annotation_scores, nn_search_scores

    (candidate,) = spec.candidate_text_kernels
    text = ws.nn_text_blocks(spec, candidate)
    image = ws.image_blocks(spec.image_kernel)
    return {"annotation": np.asarray(nn_annotation_scores(image["test"], text["test"])),
            "search": np.asarray(nn_search_scores(image["test"], text["test"]))}


def figures(scores: np.ndarray, ties: str) -> dict[str, float]:
    """R@k (percent) and median rank of the original item (the diagonal) under ``ties``."""
    from kcca.evaluate.original import original_item_metrics, original_ranks_from_scores

    ranks = original_ranks_from_scores(scores, ties=ties)
    return {m: v.aggregate for m, v in original_item_metrics(ranks).items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default=None, help="folder holding flickr8k/ ($KCCA_DATA_DIR)")
    p.add_argument("--cache-dir", default=None, help="cache of kcca reproduce (default its own)")
    p.add_argument("--experiments", default=str(Path(__file__).resolve().parents[1]
                                                 / "experiments" / "hodosh2013"))
    p.add_argument("-o", "--output", default=None, help="JSON file to write")
    args = p.parse_args(argv)

    from kcca.paper.tables import paper_value
    from kcca.systems import load_specs
    from kcca.systems.scripting import open_workspace

    ws = open_workspace(args.data_dir, args.cache_dir, jobs=1, progress=False)
    specs = [s for s in load_specs(args.experiments)
             if s.model == "nn" and len(s.candidate_text_kernels) == 1]
    out = []
    print(f"{'system':<12} {'task':<10} {'ties':<6} " + " ".join(f"{m:>12}" for m in METRICS))
    for spec in specs:
        for task, scores in nn_scores(ws, spec).items():
            n_tied = int(((scores == np.diag(scores)[:, None]).sum(axis=1) > 1).sum())
            for rule in RULES:
                row = figures(scores, rule)
                out.append({"system": spec.name, "task": task, "ties": rule, **row,
                            "queries with ties": n_tied})
                print(f"{spec.name:<12} {task:<10} {rule:<6} "
                      + " ".join(f"{row[m]:>12.1f}" for m in METRICS))
            paper = {m: paper_value("11", spec.name, task, m)[0] for m in METRICS}
            out.append({"system": spec.name, "task": task, "ties": "paper", **paper,
                        "queries with ties": n_tied})
            print(f"{spec.name:<12} {task:<10} {'paper':<6} "
                  + " ".join(f"{paper[m]:>12.1f}" for m in METRICS)
                  + f"   ({n_tied} of {scores.shape[0]} queries have ties)")
    if args.output:
        Path(args.output).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
