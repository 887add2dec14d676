"""Readable text of the judgment-only reproductions beside the paper's values (``kcca evaluate
--paper-tables``); the systems' metrics are :mod:`kcca._evaluate.formatting`'s."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from kcca._line_width import WIDTH, wrap
from kcca._paper import numbers as P


def _grid(
    title: str, rows: Sequence[str], cols: Sequence[str], ours, paper, digits: int = 2
) -> list[str]:
    w = max(12, *(len(c) + 2 for c in cols))
    out = [title, f"{'':8}" + "".join(f"{c:>{w}}" for c in cols)]
    for i, r in enumerate(rows):
        cells = []
        for j in range(len(cols)):
            o = ours[i][j]
            p = paper[i][j] if paper is not None else None
            cells.append(f"{o:.{digits}f}" + (f" ({p:.{digits}f})" if p is not None else ""))
        out.append(f"{r:8}" + "".join(f"{c:>{w}}" for c in cells))
    return out


def max_gap(ours, paper) -> float:
    return float(np.nanmax(np.abs(np.asarray(ours, dtype=float) - np.asarray(paper, float))))


def _relevance_counts_lines(rep: dict) -> list[str]:
    """Relevance counts under each crowd rule (Section 4.3.2) beside the paper's."""
    L: list[str] = []
    L.append(
        "Relevance from crowd votes (Section 4.3.2): pairs added, queries with 1 / 2 / 3 "
        "/ 4+ relevant items"
    )
    L.append(f"  {'rule':<34} {'added':>5}   {'captions (images)':<19}   images (captions)")
    for name, c in rep["relevance_counts"].items():
        L.append(
            f"  {c['rule']:<34} {c['added']:5d}   "
            f"{_counts(c['captions (relevant images)']):<19}   "
            f"{_counts(c['images (relevant captions)'])}"
        )
    pc = P.RELEVANCE_COUNTS
    L.append(
        f"  paper: added {pc['added']}, captions {list(pc['search'])}, images "
        f"{list(pc['annotation_printed'])} as printed (a typo: sums to 950; the "
        f"file gives {list(pc['annotation'])})"
    )
    L.append("")
    return L


def _bleu_pre_filter_lines(rep: dict) -> list[str]:
    """The BLEU_pre filter of the test pairs (Section 4.3.1) beside the paper's figures."""
    L: list[str] = []
    f = rep["bleu_pre_filter"]
    L.append(f"BLEU_pre filter over {f['n_pairs']:,} test pairs ({f['n_expert']} expert pairs)")
    p: tuple[float, ...] | None  # the paper's figures of a threshold
    for th, s in f["bleu_pre"].items():
        p = P.BLEU_PRE_FILTER.get(float(th))
        L.append(
            f"  BLEU_pre >= {th}: removes {s['removed %']:.1f}% ({p[0] if p else '-'})"
            f", loses {s['lost % of expert >= 8/3']:.1f}% ({p[1] if p else '-'}) of "
            f"expert >= 8/3 and {s['lost % of expert >= 3']:.1f}% "
            f"({p[2] if p else '-'}) of >= 3"
        )
        if "% of those all no" in s:
            L.append(
                f"      crowd-judged pairs it removes: {s['crowd pairs removed']}, "
                f"all no {s['% of those all no']:.1f}% "
                f"({P.FILTERED_CROWD['all judges no'] if th == 0.25 else '-'}), "
                f"majority no {s['% of those majority no']:.1f}% "
                f"({P.FILTERED_CROWD['majority no'] if th == 0.25 else '-'})"
            )
    L.append(f"  non-zero BLEU_pre: {f['bleu_pre nonzero %']:.1f}% ({P.BLEU_PRE_NONZERO})")
    for th, s in f["plain_bleu"].items():
        printed = 0.333 if abs(th - 0.3334) < 1e-9 else th
        p = P.PLAIN_BLEU_FILTER.get(printed)
        L.append(
            f"  plain BLEU >= {th}: removes {s['removed %']:.1f}% "
            f"({p[0] if p else '-'}), loses {s['lost % of expert >= 8/3']:.1f}% "
            f"({p[1] if p else '-'}) of expert >= 8/3"
        )
    L.append("")
    return L


def _table7_lines(rep: dict) -> list[str]:
    """Table 7 (rank correlations of the metrics) recomputed from Tables 11-12."""
    L: list[str] = []
    L.append("Table 7 recomputed from the paper's Tables 11-12 (30 systems): rho / tau-b")
    L.append(f"  {'':26} {'annotation':<29}   search")
    gaps = []
    for (h, a), v in rep["table7"].items():
        cells = []
        for task in ("annotation", "search"):
            rho, tau = v[task]
            prho, ptau = P.TABLE7[(h, a)][task]
            gaps += [abs(rho - prho), abs(tau - ptau)]
            cells.append(f"{rho:+.3f} ({prho:+.2f}) / {tau:+.3f} ({ptau:+.2f})")
        L.append(f"  {h:>11} vs {a:<11} " + "   ".join(cells))
    L.append(f"  largest gap {max(gaps):.3f}")
    L.append("")
    return L


def _tables8_9_lines(rep: dict) -> list[str]:
    """Tables 8 and 9: kappa of the expert scores against BLEU / ROUGE thresholds."""
    L: list[str] = []
    for refs, t in rep["tables8_9"].items():
        table = "Table 8" if refs in ("R5", "R1-gold") else "Table 9"
        cols = [f"{m.upper()}>={th}" for m, th in t["columns"]]
        L += _grid(
            f"{table}, references {refs}: Cohen's kappa, expert (rows) vs "
            f"BLEU/ROUGE, {t['n_pairs']} expert pairs",
            t["rows"],
            cols,
            t["kappa"],
            t["paper"],
        )
        L.append(
            f"  largest gap {max_gap(t['kappa'], t['paper']):.3f}; cells within 0.02: "
            f"{int((np.abs(np.subtract(t['kappa'], t['paper'])) <= 0.02).sum())}"
            f"/{np.size(t['paper'])}"
        )
        L.append("")
    return L


def _table10_lines(rep: dict) -> list[str]:
    """Table 10: the expert against the crowd (kappa; precision / recall / F1)."""
    L: list[str] = []
    t = rep["table10"]
    L += _grid(
        f"Table 10(a): kappa, expert (rows) vs crowd fraction yes (columns), "
        f"{t['n_pairs']} expert pairs ({t['n_crowd_judged']} crowd-judged; the "
        "rest count as not relevant)",
        t["rows"],
        t["columns"],
        t["kappa"],
        t["paper"],
    )
    L.append(f"  largest gap {max_gap(t['kappa'], t['paper']):.3f}")
    L.append(
        f"Table 10(b): crowd (fraction yes >= {t['lay_threshold_b']}) vs expert: "
        "precision / recall / F1 (not printed in the paper's text)"
    )
    for r, (p, rc, f1) in zip(t["rows"], t["prf"]):
        L.append(f"  {r:8} {p:.3f} {rc:.3f} {f1:.3f}")
    L.append("")
    return L


def _random_row_lines(rep: dict) -> list[str]:
    """Table 2's Random row: expected BLEU / ROUGE."""
    L: list[str] = []
    r = rep["random_bleu_rouge"]
    pe, pb, pr = P.TABLE2["Random"]
    L.append(
        f"Table 2, Random row (expected over all test pairs, R5): BLEU "
        f"{r['bleu']:.2f} ({pb:.2f}), ROUGE {r['rouge']:.2f} ({pr:.2f}); the expert "
        f"column ({pe}) needs the random system's judged pairs, not identifiable in "
        "the release"
    )
    return L


def _expert_alpha_lines(rep: dict) -> list[str]:
    """Krippendorff's alpha of the three expert judges."""
    L: list[str] = []
    a = rep["expert_alpha"]
    L.append(
        "Krippendorff's alpha of the three expert judges: "
        + ", ".join(f"{k} {v:.3f}" for k, v in a.items())
        + f" (paper {P.KRIPPENDORFF_ALPHA}, level not stated)"
    )
    return L


#: each part of the text: the key of its results, its lines (in this order)
_SECTIONS = (
    ("relevance_counts", _relevance_counts_lines),
    ("bleu_pre_filter", _bleu_pre_filter_lines),
    ("table7", _table7_lines),
    ("tables8_9", _tables8_9_lines),
    ("table10", _table10_lines),
    ("random_bleu_rouge", _random_row_lines),
    ("expert_alpha", _expert_alpha_lines),
)


def paper_tables_text(rep: dict) -> str:
    """Format :func:`kcca._paper.agreement` results: ours (paper's value in brackets)."""
    L: list[str] = ["Judgment-only reproductions: ours (paper)", ""]
    for key, lines in _SECTIONS:
        if key in rep:
            L += lines(rep)
    return "\n".join(wrap_line(line) for line in L)


def wrap_line(line: str, width: int = WIDTH) -> str:
    """``line`` folded at ``width`` (a 100-column terminal), continuation lines indented 4
    past its own indent (:func:`kcca._line_width.wrap`)."""
    if len(line) <= width:
        return line
    indent = " " * (len(line) - len(line.lstrip()))
    return wrap(line.strip(), width, indent=indent, continuation=indent + "    ")


def _counts(histogram) -> str:
    """``[446, 202, 100, 252]`` as ``446 202 100 252``."""
    return " ".join(str(v) for v in histogram)
