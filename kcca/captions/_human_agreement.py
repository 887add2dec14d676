"""Human agreement on Flickr 8K, after Chen et al. (2015), Section 4.

1. Captioning upper bound (Section 4.1). Each of an image's five captions in turn is the
   candidate and the other four are its references (leave-one-out); every metric is computed
   over the images and averaged over the five rotations. **Not comparable with Chen et al.'s
   Table I**, which scores an *extra* (sixth) human caption against all 5 (c5) or 40 (c40)
   references: with 4 references instead of 5 every n-gram metric comes out lower.

2. Word prediction (Section 4.2). For a word w, caption k+1 "predicts" w for its image when it
   contains w, and the ground truth is the number c of the first k captions containing w.
   Weighted counts: a positive image (c > 0) weighs c, a negative one 1, so
   tp = sum of c over predicting images, fp = number of predicting images with c = 0,
   cw = sum of c over all images; H_p = tp / (tp + fp), H_r = tp / cw. With five captions,
   each caption is held out in turn and the k references are averaged over all C(4, k)
   subsets of the other four, in closed form: if n of the 5 captions contain w,
       held-out caption contains w:  E[c] = (n - 1) k / 4,  P(c = 0) = C(5 - n, k) / C(4, k)
       E[cw] summed over the 5 held-out choices = n k.
   The model (Chen et al., Table II): with p = P(w used | object present) and
   q = P(object present), E[cw] = kpq, E[tp] = kp^2 q, E[fp] = q (1 - p)^k p, so
       H~_p = pk / (pk + (1 - p)^k),   H~_r = p                                    (model)
   independent of q. Precision at human recall (PHR) of a system is its precision on the
   weighted precision-recall curve at recall = H_r; the model's PHR for humans is H~_p(H_r).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Hashable, Mapping, Sequence, Sized

import numpy as np

from kcca._cache import atomic_write
from kcca.captions._evaluate import DEFAULT_METRICS, evaluate_captions
from kcca.captions._scorer import CaptionInputError
from kcca.captions._tokenizer import tokenize

CHEN_TABLE_I = {  # Chen et al. (2015), Table I: an extra human caption vs 5 (c5) / 40 (c40)
    "BLEU-1": (0.663, 0.880),
    "BLEU-2": (0.469, 0.744),
    "BLEU-3": (0.321, 0.603),
    "BLEU-4": (0.217, 0.471),
    "METEOR": (0.252, 0.335),
    "ROUGE-L": (0.484, 0.626),
    "CIDEr-D": (0.854, 0.910),
}
NOT_COMPARABLE = (
    "Leave-one-out on Flickr 8K: each caption scored against the image's other 4 captions. "
    "Chen et al.'s Table I scores an extra human caption against 5 (MS COCO c5) or 40 (c40) "
    "references, so these numbers are NOT comparable with it (fewer references give lower "
    "scores)."
)


def _captions_per_image(captions: Mapping[Hashable, Sized], what: str) -> int:
    """The number m of captions of every image; ``what`` is refused unless all images have
    the same m >= 2."""
    counts = {len(c) for c in captions.values()}
    if len(counts) != 1 or min(counts) < 2:
        raise CaptionInputError(
            f"{what} needs the same number (>= 2) of captions per image; "
            f"found counts {sorted(counts)}"
        )
    return counts.pop()


# --------------------------------------------------------------------------- metrics (4.1)
def leave_one_out_metrics(
    captions: Mapping[Hashable, Sequence[str]],
    metrics: Sequence[str] = DEFAULT_METRICS,
    metric_params: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, dict]:
    """Human upper bound of each metric: caption j vs the other captions, j = 0..m-1.

    Returns ``{label: {"mean": float, "per_rotation": [float, ...]}}`` where rotation j uses
    caption j of every image as the candidate (all images need the same number m >= 2).
    ``metric_params``: constructor arguments per metric, as
    :func:`~kcca.captions._evaluate.evaluate_captions` takes them (the METEOR engine).
    """
    m = _captions_per_image(captions, "leave-one-out")
    per_rotation: dict[str, list[float]] = {}
    unavailable: dict[str, str] = {}
    for j in range(m):
        refs = {i: [c for n, c in enumerate(caps) if n != j] for i, caps in captions.items()}
        cands = {i: caps[j] for i, caps in captions.items()}
        ev = evaluate_captions(refs, cands, metrics, metric_params=metric_params)
        for label, score in ev.corpus.items():
            per_rotation.setdefault(label, []).append(score)
        unavailable.update(ev.unavailable)
    out = {
        label: {"mean": float(np.mean(v)), "per_rotation": v} for label, v in per_rotation.items()
    }
    for name, why in unavailable.items():
        out[name.upper()] = {"unavailable": why}
    return out


# ---------------------------------------------------------------------- word level (4.2)
@dataclass
class WordAgreement:
    """Weighted human precision and recall per word, for k = 1..m-1 references.

    Attributes:
        words: the vocabulary (most frequent words first).
        ks: the numbers of references k.
        tp, fp, cw: (len(ks), len(words)) expected weighted counts.
        n_images: images used.
    """

    words: list[str]
    ks: list[int]
    tp: np.ndarray
    fp: np.ndarray
    cw: np.ndarray
    n_images: int
    notes: list[str] = field(default_factory=list)

    @property
    def precision(self) -> np.ndarray:
        """H_p per (k, word); NaN where the word is never predicted."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.tp / (self.tp + self.fp)

    @property
    def recall(self) -> np.ndarray:
        """H_r per (k, word)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.tp / self.cw

    def overall(self) -> dict[int, tuple[float, float]]:
        """Pooled ("all words") (precision, recall) per k: counts summed over words."""
        out = {}
        for i, k in enumerate(self.ks):
            tp, fp, cw = self.tp[i].sum(), self.fp[i].sum(), self.cw[i].sum()
            out[k] = (float(tp / (tp + fp)), float(tp / cw))
        return out


def caption_word_sets(captions: Mapping[Hashable, Sequence[str]]) -> dict[Hashable, list[set]]:
    """Set of (PTB-tokenised, lower-cased) words of every caption."""
    return {i: [set(tokenize(c)) for c in caps] for i, caps in captions.items()}


def word_agreement(
    captions: Mapping[Hashable, Sequence[str]],
    vocabulary_size: int = 1000,
    words: Sequence[str] | None = None,
    stop_words: set[str] | None = None,
) -> WordAgreement:
    """Human word-prediction precision and recall (module docstring), k = 1..m-1.

    Args:
        captions: image id -> its m captions (same m for every image; Flickr 8K: 5).
        vocabulary_size: number of words, the most frequent by number of captions
            containing them (Chen et al. use 1,000 words), after removing ``stop_words``.
        words: an explicit vocabulary instead.
    """
    sets = caption_word_sets(captions)
    m = _captions_per_image(sets, "word agreement")
    if words is None:
        df = Counter(w for caps in sets.values() for s in caps for w in s)
        ranked = [
            w
            for w, _ in sorted(df.items(), key=lambda x: (-x[1], x[0]))
            if not stop_words or w not in stop_words
        ]
        words = ranked[:vocabulary_size]
    words = list(words)
    index = {w: j for j, w in enumerate(words)}
    # n[i, j] = number of the m captions of image i containing word j
    n = np.zeros((len(sets), len(words)), dtype=np.int64)
    for i, caps in enumerate(sets.values()):
        for s in caps:
            for w in s:
                j = index.get(w)
                if j is not None:
                    n[i, j] += 1
    others = m - 1
    ks = list(range(1, m))
    tp = np.zeros((len(ks), len(words)))
    fp = np.zeros_like(tp)
    cw = np.zeros_like(tp)
    for a, k in enumerate(ks):
        # held-out captions containing w: n of them, each with n - 1 positives among others
        tp[a] = (n * (n - 1)).sum(axis=0) * k / others
        p_none = np.array(
            [
                math.comb(others - (c - 1), k) / math.comb(others, k) if c > 0 else 0.0
                for c in range(m + 1)
            ]
        )
        fp[a] = (n * p_none[n]).sum(axis=0)
        cw[a] = n.sum(axis=0) * k  # sum over the m held-out choices of E[c]
    return WordAgreement(words=words, ks=ks, tp=tp, fp=fp, cw=cw, n_images=len(sets))


def model_precision(p: np.ndarray | float, k: int) -> np.ndarray:
    """Chen et al.'s model: H~_p = pk / (pk + (1 - p)^k) (with H~_r = p)."""
    p = np.asarray(p, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(p > 0, p * k / (p * k + (1 - p) ** k), 0.0)


def precision_at_human_recall(
    scores: np.ndarray, positives: np.ndarray, human_recall: float
) -> float:
    """PHR: a system's weighted precision at recall ``human_recall`` for one word.

    Args:
        scores: (n_images,) the system's confidence that the word applies to each image.
        positives: (n_images,) number of reference captions of each image using the word
            (a positive image weighs that number, a negative image 1, as for H_p and H_r).
        human_recall: the word's human recall H_r.

    Returns the highest precision among thresholds whose recall reaches ``human_recall``
    (interpolated precision), or 0 if no threshold reaches it.
    """
    scores = np.asarray(scores, dtype=float)
    positives = np.asarray(positives, dtype=float)
    if scores.shape != positives.shape:
        raise ValueError("scores and positives must have the same shape")
    total = positives.sum()
    if total <= 0:
        raise ValueError("the word has no positive image: recall is undefined")
    order = np.argsort(-scores, kind="stable")
    s, pos = scores[order], positives[order]
    tp = np.cumsum(pos)
    fp = np.cumsum(pos == 0)
    last = np.r_[s[1:] != s[:-1], True]  # thresholds between distinct scores
    tp, fp = tp[last], fp[last]
    recall = tp / total
    precision = tp / (tp + fp)
    ok = recall >= human_recall - 1e-12
    return float(precision[ok].max()) if ok.any() else 0.0


# ------------------------------------------------------------------------------ report
def human_agreement_report(
    captions: Mapping[Hashable, Sequence[str]],
    metrics: Sequence[str] = DEFAULT_METRICS,
    vocabulary_size: int = 1000,
    plot_path: str | None = None,
    metric_params: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict:
    """Both analyses as a JSON-ready dict (and a PNG plot when ``plot_path`` is given);
    ``metric_params`` as :func:`leave_one_out_metrics`."""
    loo = leave_one_out_metrics(captions, metrics, metric_params)
    wa = word_agreement(captions, vocabulary_size=vocabulary_size)
    kmax = wa.ks[-1]
    prec, rec = wa.precision[-1], wa.recall[-1]
    valid = np.isfinite(prec) & np.isfinite(rec)
    model = model_precision(rec[valid], kmax)
    overall = wa.overall()
    p_all, r_all = overall[kmax]
    report = {
        "note": NOT_COMPARABLE,
        "n_images": wa.n_images,
        "leave_one_out": loo,
        "chen2015_table1_c5_c40": CHEN_TABLE_I,
        "word_agreement": {
            "vocabulary_size": len(wa.words),
            "per_k_all_words": {
                str(k): {"precision": p, "recall": r} for k, (p, r) in overall.items()
            },
            "model_fit_k": kmax,
            "model_mean_abs_precision_error": float(np.mean(np.abs(model - prec[valid]))),
            "phr_model_all_words": float(model_precision(r_all, kmax)),
            "human_precision_all_words": p_all,
            "human_recall_all_words": r_all,
            "words": [
                {
                    "word": w,
                    "recall": float(rec[j]),
                    "precision": float(prec[j]),
                    "model_precision_at_human_recall": float(model_precision(rec[j], kmax)),
                }
                for j, w in enumerate(wa.words[:50])
            ],
        },
    }
    if plot_path:
        plot_word_agreement(wa, plot_path)
        report["plot"] = str(plot_path)
    return report


def plot_word_agreement(wa: WordAgreement, path: str) -> None:
    """Chen et al. Figure 3 (bottom): per-word points and the model curve (k = max), and
    the pooled points for k = 1..max with their model curves. Matplotlib Agg, PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.8))
    p = np.linspace(1e-3, 1, 400)
    kmax = wa.ks[-1]
    ax = axes[0]
    prec, rec = wa.precision[-1], wa.recall[-1]
    ok = np.isfinite(prec) & np.isfinite(rec)
    ax.scatter(rec[ok], prec[ok], s=6, alpha=0.5, label=f"words (k = {kmax})")
    ax.plot(p, model_precision(p, kmax), color="C0", lw=2, label=f"model, k = {kmax}")
    pa, ra = wa.overall()[kmax]
    ax.scatter([ra], [pa], color="red", s=40, zorder=3, label="all words")
    for j in range(min(15, len(wa.words))):
        if ok[j]:
            ax.annotate(wa.words[j], (rec[j], prec[j]), fontsize=7)
    ax.set(
        xlabel="human recall",
        ylabel="human precision",
        xlim=(0, 1),
        ylim=(0, 1),
        title=f"Flickr 8K word agreement ({len(wa.words)} words)",
    )
    ax.legend(loc="lower right", fontsize=8)
    ax = axes[1]
    for i, k in enumerate(wa.ks):
        pk, rk = wa.overall()[k]
        ax.plot(p, model_precision(p, k), color=f"C{i}", lw=1)
        ax.scatter([rk], [pk], color=f"C{i}", s=30, label=f"k = {k}: P {pk:.2f}, R {rk:.2f}")
    ax.set(
        xlabel="human recall",
        ylabel="human precision",
        xlim=(0, 1),
        ylim=(0, 1),
        title="all words, k references (model curves)",
    )
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=120, format=Path(path).suffix[1:] or "png"))
    plt.close(fig)
