"""Judgment-only reproductions: Tables 7-10, the BLEU_pre filter and relevance counts.

None of these needs a system's output (Appendix A; Section 4.3.2; Table 7 is recomputed from
the paper's own Tables 11-12 as a check of the rank-correlation code):

* :func:`table7_from_paper`: Spearman rho / Kendall tau-b between system rankings (n = 30);
* :func:`tables8_9`: Cohen's kappa of binarised expert vs BLEU / ROUGE over the expert pairs,
  for the four reference sets R5, R1-gold (Table 8), R4, R1-other (Table 9);
* :func:`table10`: kappa of binarised crowd vs expert scores over the expert pairs, crowd-
  unjudged pairs counting as not relevant (a), and precision / recall / F1 of crowd
  (fraction >= 2/3) against expert thresholds (b);
* :func:`bleu_pre_filter`: how much of the 10^6 test pairs BLEU_pre >= 0.25 removes, and how
  many good pairs (expert >= 8/3, >= 3) it loses;
* :func:`relevance_counts`: pairs added and the 1 / 2 / 3 / 4+ histograms per rule;
* :func:`expert_alpha`: Krippendorff's alpha of the three expert judges;
* :func:`random_bleu_rouge`: the Random row of Table 2's BLEU / ROUGE columns (expectation).

Expert and crowd thresholds are compared exactly (fractions of integer votes / score sums).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import numpy as np

from kcca.data._corpus import Corpus
from kcca.data._errors import DataError
from kcca._evaluate.bleu_rouge import PLAIN, ROUGE_STYLE, pool_score_matrix
from kcca._evaluate.relevance import PRESETS, corpus_relevance
from kcca._evaluate.statistics import cohen_kappa, kendall_tau_b, krippendorff_alpha, spearman_rho
from kcca._paper import numbers as P


# ------------------------------------------------------------------------------ Table 7
def table7_from_paper() -> dict:
    """Table 7 recomputed from the paper's Tables 11-12:
    {(human, automatic): {task: (rho, tau)}}."""
    out: dict = {}
    for human, auto in P.TABLE7:
        out[(human, auto)] = {}
        for task in ("annotation", "search"):
            h = [P.TABLE12[s][task][human] for s in P.SYSTEMS]
            a = [P.TABLE11[s][task][auto] for s in P.SYSTEMS]
            out[(human, auto)][task] = (spearman_rho(h, a), kendall_tau_b(h, a))
    return out


# ----------------------------------------------------------------------- pair tables
def _expert_pairs(corpus: Corpus, split: str):
    """Pool-grid indices of the expert pairs and their score sums / judge counts."""
    if corpus.expert is None:
        raise DataError(f"corpus {corpus.name!r} was loaded without expert judgments")
    pool = corpus.pool(split)
    img = {p[0]: i for i, p in enumerate(pool)}
    cap = {p[1]: j for j, p in enumerate(pool)}
    keys = [k for k in corpus.expert if k[0] in img and k[1] in cap]
    if not keys:
        raise DataError(f"no expert pair of corpus {corpus.name!r} lies in the {split} pool")
    rows = np.array([img[k[0]] for k in keys])
    cols = np.array([cap[k[1]] for k in keys])
    sums = np.array([sum(corpus.expert[k].scores) for k in keys])
    n = np.array([len(corpus.expert[k].scores) for k in keys])
    return keys, rows, cols, sums, n


def _at_least(sums: np.ndarray, n: np.ndarray, t: Fraction) -> np.ndarray:
    return sums * t.denominator >= n * t.numerator


def tables8_9(corpus: Corpus, split: str = "test", other_index: int | None = None) -> dict:
    """Kappa of expert (rows) vs BLEU / ROUGE (columns) for each reference set.

    Returns ``{refs: {"columns", "rows", "kappa" (ours), "paper", "n_pairs"}}``. BLEU uses the
    plain preprocessing, ROUGE stop-word removal and stemming (Section 4.2.2).
    """
    _, rows, cols, sums, n = _expert_pairs(corpus, split)
    out = {}
    for refs, spec in P.TABLE8_9.items():
        scores = {
            m: pool_score_matrix(
                corpus,
                split,
                m,
                refs,
                PLAIN if m == "bleu" else ROUGE_STYLE,
                other_index=other_index,
            )[rows, cols]
            for m in ("bleu", "rouge")
        }
        kappa = [
            [
                cohen_kappa(_at_least(sums, n, te), scores[m] >= th - 1e-12)
                for m, th in spec["columns"]
            ]
            for te in P.EXPERT_ROWS
        ]
        out[refs] = {
            "columns": spec["columns"],
            "rows": P.EXPERT_ROW_LABELS,
            "kappa": kappa,
            "paper": spec["kappa"],
            "n_pairs": int(rows.size),
        }
    return out


def _crowd_on_expert_pairs(corpus: Corpus):
    """Expert score sums and crowd votes on every expert pair; unjudged by the crowd = 0 yes."""
    if corpus.expert is None or corpus.crowd is None:
        raise DataError(f"corpus {corpus.name!r} needs both expert and crowd judgments")
    keys = list(corpus.expert)
    if not keys:
        raise DataError(f"corpus {corpus.name!r} has no expert pairs")
    sums = np.array([sum(corpus.expert[k].scores) for k in keys])
    n = np.array([len(corpus.expert[k].scores) for k in keys])
    judged = np.array([k in corpus.crowd for k in keys])
    yes = np.array([corpus.crowd[k].yes if k in corpus.crowd else 0 for k in keys])
    votes = np.array([corpus.crowd[k].n_judges if k in corpus.crowd else 1 for k in keys])
    return sums, n, yes, votes, judged


def table10(corpus: Corpus, lay_threshold_b: Fraction = Fraction(2, 3)) -> dict:
    """Table 10: (a) kappa crowd vs expert; (b) precision / recall / F1 of the crowd rule.

    Over every expert pair (5,822 on Flickr 8K); a pair the crowd did not judge counts as not
    relevant (only 2,329 expert pairs were crowd-judged; counting the others as not relevant is what
    reproduces the printed kappas, docs/paper-notes.md#judgment-only-tables). (a) rows: expert >= 4,
    11/3, 10/3, 3, 8/3; columns: crowd fraction yes = 1, >= 0.6, >= 0.3. (b) crowd relevant =
    fraction yes >= ``lay_threshold_b`` (the printed 0.66), against expert >= each row threshold.
    """
    sums, n, yes, votes, judged = _crowd_on_expert_pairs(corpus)
    a = []
    for te in P.EXPERT_ROWS:
        expert_rel = _at_least(sums, n, te)
        a.append(
            [
                cohen_kappa(expert_rel, yes * tl.denominator >= votes * tl.numerator)
                for tl in P.TABLE10A_COLUMNS
            ]
        )
    lay = yes * lay_threshold_b.denominator >= votes * lay_threshold_b.numerator
    b = []
    for te in P.EXPERT_ROWS:
        ex = _at_least(sums, n, te)
        tp = float((lay & ex).sum())
        prec = tp / lay.sum() if lay.any() else float("nan")
        rec = tp / ex.sum() if ex.any() else float("nan")
        f1 = 2 * prec * rec / (prec + rec) if prec + rec > 0 else 0.0
        b.append((prec, rec, f1))
    return {
        "rows": P.EXPERT_ROW_LABELS,
        "columns": P.TABLE10A_COLUMN_LABELS,
        "kappa": a,
        "paper": P.TABLE10A,
        "prf": b,
        "lay_threshold_b": str(lay_threshold_b),
        "n_pairs": int(sums.size),
        "n_crowd_judged": int(judged.sum()),
    }


# ------------------------------------------------------------------ BLEU_pre filter
def bleu_pre_filter(
    corpus: Corpus,
    split: str = "test",
    thresholds: Sequence[float] = (0.25, 0.26),
    plain_thresholds: Sequence[float] = (0.330, 0.3334),
) -> dict:
    """Section 4.3.2's filter: BLEU_pre (stemmed, stop words removed, R5) >= threshold.

    For each threshold: % of all pool pairs removed, % of expert pairs >= 8/3 and >= 3 lost,
    and among crowd-judged pairs that the filter removes, % judged "no" by all / a majority.
    ``plain_thresholds`` do the same for BLEU without preprocessing (the printed 0.333 acts
    as 0.3334, i.e. "> 1/3").
    """
    pre = pool_score_matrix(corpus, split, "bleu", "R5", ROUGE_STYLE)
    plain = pool_score_matrix(corpus, split, "bleu", "R5", PLAIN)
    _, rows, cols, sums, n = _expert_pairs(corpus, split)
    good = {"8/3": _at_least(sums, n, Fraction(8, 3)), "3": _at_least(sums, n, Fraction(3))}
    pool = corpus.pool(split)
    img = {p[0]: i for i, p in enumerate(pool)}
    cap = {p[1]: j for j, p in enumerate(pool)}
    ck = [k for k in (corpus.crowd or {}) if k[0] in img and k[1] in cap]
    crow = np.array([img[k[0]] for k in ck], dtype=int)
    ccol = np.array([cap[k[1]] for k in ck], dtype=int)
    # ck is empty when there are no crowd judgments
    cyes = np.array([corpus.crowd[k].yes for k in ck])  # type: ignore[index]
    cno = np.array([corpus.crowd[k].no for k in ck])  # type: ignore[index]

    def stats(matrix: np.ndarray, th: float) -> dict:
        removed = matrix < th - 1e-12
        out = {"removed %": 100.0 * float(removed.mean())}
        for name, mask in good.items():
            out[f"lost % of expert >= {name}"] = 100.0 * float(removed[rows, cols][mask].mean())
        if ck:
            gone = removed[crow, ccol]
            out["crowd pairs removed"] = int(gone.sum())
            if gone.any():
                out["% of those all no"] = 100.0 * float((cyes[gone] == 0).mean())
                out["% of those majority no"] = 100.0 * float((cno[gone] > cyes[gone]).mean())
        return out

    return {
        "bleu_pre": {th: stats(pre, th) for th in thresholds},
        "bleu_pre nonzero %": 100.0 * float((pre > 0).mean()),
        "plain_bleu": {th: stats(plain, th) for th in plain_thresholds},
        "n_pairs": int(pre.size),
        "n_expert": int(rows.size),
    }


def random_bleu_rouge(corpus: Corpus, split: str = "test") -> dict:
    """Table 2's Random row for BLEU / ROUGE, in expectation: the mean over all pool pairs.

    A uniformly random first caption has expected score equal to the mean of the score
    matrix (R5 references; plain BLEU, stemmed stop-word-free ROUGE). No judgments needed.
    """
    return {m: float(pool_score_matrix(corpus, split, m, "R5").mean()) for m in ("bleu", "rouge")}


# -------------------------------------------------------------------- counts and alpha
def relevance_counts(corpus: Corpus, split: str = "test") -> dict:
    """Per rule: pairs added to the originals and the 1 / 2 / 3 / 4+ histograms per task."""
    out = {}
    for name in PRESETS:
        m = corpus_relevance(corpus, split, name)
        out[name] = {
            "added": m.n_added,
            "rule": m.rule.describe(),
            "captions (relevant images)": m.count_histogram("search"),
            "images (relevant captions)": m.count_histogram("annotation"),
            "judged pairs": m.n_judged_pairs,
            "outside pool": m.n_outside_pool,
        }
    return out


def expert_alpha(corpus: Corpus) -> dict:
    """Krippendorff's alpha of the expert judges (3 scores per pair) at each level."""
    if corpus.expert is None:
        raise DataError(f"corpus {corpus.name!r} was loaded without expert judgments")
    width = max(len(j.scores) for j in corpus.expert.values())
    data = np.full((width, len(corpus.expert)), np.nan)
    for u, j in enumerate(corpus.expert.values()):
        data[: len(j.scores), u] = j.scores
    return {level: krippendorff_alpha(data, level) for level in ("nominal", "ordinal", "interval")}
