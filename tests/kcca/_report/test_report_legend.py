"""The report's legend: a definition for every metric shown, and where the judgments come from."""

from __future__ import annotations

import dataclasses
import re
from html import unescape

from kcca._report import build_report
from kcca._report.gather import METRICS
from kcca._report.legend import DEFINITIONS, judgment_source, legend_html, metric_family


def _summary(html: str) -> str:
    return re.search(r'<section id="summary">(.*?)</section>', html, re.S).group(1)


def _defined(html: str) -> dict[str, str]:
    dl = re.search(r'<dl class="metrics">(.*?)</dl>', html, re.S).group(1)
    return {unescape(t): unescape(d) for t, d in re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", dl)}


def test_every_metric_column_has_a_definition():
    assert {metric_family(m) for m, _ in METRICS} <= set(DEFINITIONS)
    assert metric_family("R@10") == "R@k" and metric_family("S@1") == "S@k"
    assert metric_family("median rank") == "median rank"


def test_demo_page_defines_its_columns_and_says_the_judgments_are_synthetic(
        run_dir, corpus, tmp_path):
    html = build_report(run_dir, tmp_path / "out", corpus=corpus, thumb_size=32).read_text()
    summary = _summary(html)
    heads = {unescape(h) for h in re.findall(r"<th>(.*?)</th>", summary)} - {"p, d (dev)"}
    assert heads == {"R@1", "R@5", "R@10", "median rank", "S@1", "S@5", "S@10", "R-precision"}
    defined = _defined(summary)
    assert set(defined) == {metric_family(h) for h in heads} | {"chance"}
    assert "original item" in defined["R@k"] and "top k" in defined["R@k"]
    assert "median" in defined["median rank"] and "lower is better" in defined["median rank"]
    assert "at least one relevant item" in defined["S@k"]
    assert "paper: fraction yes >= 1/2" in defined["S@k"]  # the relevance rule in use
    assert "R relevant items" in defined["R-precision"] and "top R" in defined["R-precision"]
    judgments = unescape(re.search(r'<p class="judgments">(.*?)</p>', summary).group(1))
    assert "synthetic, not human" in judgments and "demo grammar" in judgments
    assert "synthetic crowd votes" in html
    # the legend comes after the tables, the judgments line before them
    assert summary.index('class="judgments"') < summary.index("<table") \
        < summary.index('<dl class="metrics">')


def test_flickr8k_judgments_are_the_papers_human_ones(corpus):
    flickr = dataclasses.replace(corpus, name="flickr8k", expert={})
    text, synthetic = judgment_source(flickr)
    assert not synthetic and "human" in text and "Hodosh et al. 2013" in text
    assert "CrowdFlowerAnnotations.txt" in text and "ExpertAnnotations.txt" in text
    none, _ = judgment_source(dataclasses.replace(corpus, name="mine", crowd=None))
    assert none.startswith("none in corpus 'mine'")


def test_expert_mean_is_defined_when_shown():
    defined = _defined(legend_html(["R@1", "expert mean"]))
    assert set(defined) == {"R@k", "expert mean", "chance"}
    assert "1-4" in defined["expert mean"] and "ranked first" in defined["expert mean"]
