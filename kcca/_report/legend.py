"""The report's legend: what each metric of the summary means and where the judgments come from.

The definitions follow Hodosh et al. 2013 as the code computes them: R@k and the median rank
in :mod:`kcca._evaluate.original` (Section 4.3.1), S@k and R-precision in
:mod:`kcca._evaluate.judged_metrics` over the binary relevance of the crowd judgments
(:mod:`kcca._evaluate.relevance`, Sections 4.3.2-4.3.3), the expert mean in
:mod:`kcca._evaluate.expert` (Section 4.2.1, Table 2).
"""

from __future__ import annotations

import re
from html import escape
from typing import Sequence

from kcca.data._corpus import Corpus

ORIGINAL = (
    "original item (annotation: the caption written for the query image; search: "
    "the image the query caption was written for)"
)

#: one line per metric family, in the summary's column order
DEFINITIONS: dict[str, str] = {
    "R@k": f"recall at k: the percentage of queries whose {ORIGINAL} is among the top k "
    "results (Section 4.3.1).",
    "median rank": "the median over queries of the rank of the original item (1 = first; for "
    "an even number of queries the mean of the two middle ranks); lower is "
    "better.",
    "S@k": "success rate at k: the percentage of queries with at least one relevant item "
    "among the top k (Section 4.3.3).",
    "R-precision": "for a query with R relevant items (its original included), the "
    "percentage of relevant items among its top R results, averaged over "
    "queries; relevance as for S@k (Section 4.3.3).",
    "expert mean": "image annotation only: the mean expert score (1-4, the mean of three "
    "judges' scores) of the caption ranked first, over the images whose first "
    "caption was judged (Table 2).",
    "chance": "the expected value for a random ranking of the N candidates: R@k = 100 k / N, "
    "median rank (N + 1) / 2.",
}


SYNTHETIC = (
    "synthetic, not human: generated from the demo grammar. A test-pool caption is "
    "relevant to an image when the image contains every object the caption mentions, "
    "with the attributes it names (each pair gets 3 of 3 simulated yes votes, or "
    "none); there are no expert scores."
)


def metric_family(metric: str) -> str:
    """``R@5`` -> ``R@k``, ``S@10`` -> ``S@k``; other names unchanged."""
    m = re.fullmatch(r"([RS])@\d+", metric)
    return f"{m.group(1)}@k" if m else metric


def judgment_source(corpus: Corpus) -> tuple[str, bool]:
    """One sentence on where ``corpus``'s judgments come from, and whether they are synthetic."""
    name = corpus.name
    if name == "demo" or name.startswith("demo-"):
        if corpus.crowd is None:
            return "none: the demo corpus was built without its synthetic judgments.", False
        return SYNTHETIC, True
    flickr = name == "flickr8k" or name.startswith("flickr8k-")
    kinds = []
    if corpus.crowd is not None:
        kinds.append("crowd yes/no votes" + (" (CrowdFlowerAnnotations.txt)" if flickr else ""))
    if corpus.expert is not None:
        kinds.append(
            "expert scores, three judges on a 1-4 scale"
            + (" (ExpertAnnotations.txt)" if flickr else "")
        )
    if not kinds:
        return f"none in corpus {name!r}: R@k and the median rank need none.", False
    if flickr:
        return "human, released with Hodosh et al. 2013: " + " and ".join(kinds) + ".", False
    return f"those of corpus {name!r}: " + " and ".join(kinds) + ".", False


def judgments_html(source: str) -> str:
    """The summary's line on where the judgments come from."""
    return f'<p class="judgments"><strong>Judgments:</strong> {escape(source)}</p>'


def legend_html(metrics: Sequence[str], relevance_rule: str | None = None) -> str:
    """Definitions of the metric families among ``metrics`` (summary columns) and chance."""
    families = list(dict.fromkeys(metric_family(m) for m in metrics))
    rows = []
    for family in [*families, "chance"]:
        text = DEFINITIONS.get(family)
        if text is None:
            continue
        if family == "S@k":
            rule = f" ({relevance_rule})" if relevance_rule else ""
            text += (
                f" Relevance comes from the crowd votes under the relevance rule{rule}; "
                "the original always counts as relevant, an unjudged pair as not."
            )
        rows.append(f"<dt>{escape(family)}</dt><dd>{escape(text)}</dd>")
    return f'<dl class="metrics">{"".join(rows)}</dl>' if rows else ""
