"""Evaluation of ranked image annotation and search (Hodosh et al. 2013, Section 4, App. A-B).

Modules, one concept each:

* ``original``: rank of the original item, R@k, median rank (Section 4.3.1, Tables 3, 11);
* ``relevance``: binary relevance from crowd votes, with named rules (Section 4.3.2);
* ``judged_metrics``: S@k and R-precision over relevance judgments (4.3.3, Tables 4, 5, 12);
* ``expert``: graded expert scores of the first caption (4.2.1, Tables 1-2);
* ``bleu_rouge``: the paper's unigram BLEU / ROUGE and BLEU_pre (4.2.2, eq. 28);
* ``statistics``: McNemar, Fisher's randomisation test, Cohen's kappa, Krippendorff's alpha,
  Spearman / Kendall rank correlations;
* ``rankings_io``, ``compact``, ``results_files``: the rankings file format read by ``kcca
  evaluate``, the compact results files, and finding both in a folder;
* ``system``: every metric for one system's rankings, and paired significance tests;
* ``formatting``: what ``kcca evaluate`` prints for rankings files (text, JSON, CSV);
* ``retrieval_protocol``: the later literature's all-captions protocol (five captions per test
  image in the pool; COCO 1K / 5K), for comparison with its published figures.

The paper's printed numbers and the reports beside them are in :mod:`kcca._paper`.

Every metric returns per-query values and the aggregate (``original.PerQuery``).
"""

from kcca._evaluate.original import (
    PerQuery,
    median_rank,
    original_item_metrics,
    original_ranks,
    original_ranks_from_scores,
    rankings_from_scores,
    recall_at_k,
)
from kcca._evaluate.relevance import PRESETS, RelevanceMatrix, RelevanceRule, relevance_matrix
from kcca._evaluate.retrieval_protocol import RetrievalProtocolResult, retrieval_protocol

__all__ = [
    "PRESETS",
    "PerQuery",
    "RelevanceMatrix",
    "RelevanceRule",
    "RetrievalProtocolResult",
    "median_rank",
    "original_item_metrics",
    "original_ranks",
    "original_ranks_from_scores",
    "rankings_from_scores",
    "recall_at_k",
    "relevance_matrix",
    "retrieval_protocol",
]
