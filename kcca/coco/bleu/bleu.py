"""pycocoevalcap's ``Bleu``: BLEU-1..n of the COCO evaluation (Chen et al. 2015, eq. 1-3)."""

from __future__ import annotations

from collections.abc import Mapping

from kcca.captions._bleu import Bleu as _Bleu
from kcca.captions._bleu import corpus_stats
from kcca.coco.bleu.bleu_scorer import BleuScorer
from kcca.coco._compat import ordered_inputs, tokens


__all__ = ["Bleu", "BleuScorer"]  # pycocoevalcap's module imports BleuScorer too


class Bleu:
    """``Bleu(n).compute_score(gts, res, verbose=1) -> ([BLEU-1..n], [[per item] * n])``.

    Corpus and per-item scores are lists of floats, items in ``gts``'s order; with
    ``verbose > 0`` the corpus counts and the length ratio are printed, as pycocoevalcap
    prints them. A drop-in for pycocoevalcap's ``pycocoevalcap.bleu.bleu.Bleu`` (see its
    documentation for the interface): ``gts`` maps image ids to tokenised references,
    ``res`` to a one-element list holding the tokenised candidate.

    Parameters
    ----------
    n : int, default=4
        Highest n-gram order.

    See Also
    --------
    kcca.captions.Bleu : the scorer behind it.

    Examples
    --------
    >>> from kcca.coco.bleu.bleu import Bleu
    >>> gts = {1: ["a dog runs on the grass", "a brown dog is running"]}
    >>> res = {1: ["a brown dog runs on the grass"]}
    >>> score, scores = Bleu(2).compute_score(gts, res, verbose=0)
    >>> [round(s, 3) for s in score], Bleu(2).method()
    ([1.0, 1.0], 'Bleu')
    """

    def __init__(self, n: int = 4):
        self._n = n
        self._scorer = _Bleu(n)

    def compute_score(
        self, gts: Mapping, res: Mapping, verbose: int = 1
    ) -> tuple[list[float], list[list[float]]]:
        _, refs, cands = ordered_inputs(gts, res)
        ref_tokens, cand_tokens = tokens(self._scorer.split, refs, cands)
        corpus, per_item = self._scorer.score_tokens(ref_tokens, cand_tokens)
        if verbose > 0:
            testlen, reflen, guess, correct = corpus_stats(ref_tokens, cand_tokens, self._n)
            total_test, total_ref = int(testlen.sum()), int(reflen.sum())
            print(
                {
                    "testlen": total_test,
                    "reflen": total_ref,
                    "guess": [int(g) for g in guess.sum(axis=0)],
                    "correct": [int(c) for c in correct.sum(axis=0)],
                }
            )
            print("ratio:", (total_test + 1e-15) / (total_ref + 1e-9))
        return [float(c) for c in corpus], [[float(s) for s in row] for row in per_item]

    def method(self) -> str:
        return "Bleu"
