"""The HTML page: summary tables and plots as static HTML, the query browser as JSON + JS.

Every text from the run (system names, ids, captions, notes) goes through :func:`html.escape`
in static HTML, and the browser's data is JSON inside ``<script type="application/json">``
with ``<``, ``>`` and ``&`` escaped as ``\\u003c`` etc., so no caption can close the script;
the page's JavaScript inserts text with ``textContent`` only. CSS and JS are inlined; images
are relative links (``thumbs/``, ``plots/``) or ``data:`` URIs, never network addresses.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any, Sequence

from kcca._names import TASKS
from kcca._report.all_captions import all_captions_html
from kcca._report.assets import static_text
from kcca._report.gather import METRICS, ReportData
from kcca._report.legend import judgments_html, legend_html

TASK_TITLES = {
    "annotation": "Image annotation (query images, ranked captions)",
    "search": "Image search (query captions, ranked images)",
}


def fmt(metric: str, value: float | None) -> str:
    """R@k and the like with one decimal, median rank as printed, expert mean with two."""
    if value is None:
        return "-"
    if metric == "expert mean":
        return f"{value:.2f}"
    if metric == "median rank" and float(value).is_integer():
        return f"{value:.0f}"
    return f"{value:.1f}"


def diff_class(metric: str, ours: float | None, paper: float | None) -> str:
    """``better`` / ``worse`` than the paper (direction per metric), ``close`` within 5 %."""
    if ours is None or paper is None:
        return ""
    diff = ours - paper
    if abs(diff) <= max(0.05 * abs(paper), 0.05):
        return "close"
    higher = dict(METRICS).get(metric, True)
    return "better" if (diff > 0) == higher else "worse"


def _cell(metric: str, ours: float | None, paper: float | None, has_paper: bool) -> str:
    cls = diff_class(metric, ours, paper)
    body = f'<span class="ours">{escape(fmt(metric, ours))}</span>'
    title = f"ours {fmt(metric, ours)}"
    if has_paper:
        if paper is None:
            body += '<span class="paper">paper -</span>'
        else:
            diff = (ours - paper) if ours is not None else None
            sign = "" if diff is None else ("+" if diff >= 0 else "\u2212")
            dtext = "" if diff is None else f" \u00b7 {sign}{fmt(metric, abs(diff))}"
            body += f'<span class="paper">paper {escape(fmt(metric, paper))}{dtext}</span>'
            title += f", paper {fmt(metric, paper)}"
    cls_attr = f' class="{cls}"' if cls else ""
    return f'<td{cls_attr} title="{escape(title)}">{body}</td>'


def summary_html(data: ReportData) -> str:
    """One table per task: a row per system (ours, the paper's value, the difference), chance;
    the judgments' source above them, the shown metrics' definitions below."""
    parts = []
    if data.has_paper:
        parts.append(
            '<p class="legend">Cells: ours, below it the paper\'s value and the '
            'difference. <span class="better">better than the paper</span>'
            '<span class="worse">worse</span><span class="close">within 5 %</span>'
            "R@k, S@k, R-precision in percent (higher is better); median rank "
            "(lower is better).</p>"
        )
    else:
        parts.append(
            '<p class="legend">R@k, S@k, R-precision in percent (higher is better); '
            "median rank (lower is better).</p>"
        )
    if data.judgment_source:
        parts.append(judgments_html(data.judgment_source))
    show_chosen = any(s.chosen for s in data.systems)
    shown: list[str] = []
    for task in TASKS:
        systems = [s for s in data.systems if task in s.metrics]
        if not systems:
            continue
        cols = [m for m, _ in METRICS if any(m in s.metrics[task] for s in systems)]
        shown.extend(m for m in cols if m not in shown)
        head = "".join(f"<th>{escape(m)}</th>" for m in cols)
        rows = []
        for s in systems:
            paper = s.paper.get(task, {}) if data.has_paper else {}
            name = escape(s.name)
            if s.paper_name and s.paper_name != s.name:
                name += f' <span class="paper">{escape(s.paper_name)}</span>'
            cells = "".join(
                _cell(m, s.metrics[task].get(m), paper.get(m), data.has_paper) for m in cols
            )
            chosen = f"<td>{escape(s.chosen)}</td>" if show_chosen else ""
            rows.append(
                f'<tr data-system="{escape(s.name)}"><td class="name">{name}</td>'
                f"{chosen}{cells}</tr>"
            )
        chance = "".join(
            f"<td>{escape(fmt(m, data.chance.get(m)))}</td>" if m in data.chance else "<td></td>"
            for m in cols
        )
        rows.append(
            f'<tr class="chance"><td class="name">chance</td>'
            f"{'<td></td>' if show_chosen else ''}{chance}</tr>"
        )
        chosen_head = "<th>p, d (dev)</th>" if show_chosen else ""
        parts.append(
            f"<h3>{escape(TASK_TITLES[task])}</h3>"
            f'<table class="summary" id="summary-{task}"><thead><tr>'
            f'<th class="name">system</th>{chosen_head}{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>"
        )
    parts.append(legend_html(shown, data.relevance_rule))
    return "\n".join(parts)


def plots_html(plots: Sequence[tuple[str, str]]) -> str:
    if not plots:
        return '<p class="notes">No plots (*.png) in the run folder.</p>'
    figs = "".join(
        f'<figure><a href="{escape(url)}"><img src="{escape(url)}" '
        f'alt="{escape(title)}"></a>'
        f"<figcaption>{escape(title)}</figcaption></figure>"
        for title, url in plots
    )
    return f'<div class="plots">{figs}</div>'


def browser_html(data: ReportData, task: str) -> str:
    """Controls and an empty table that the page's JavaScript fills."""
    what = "image id or gold caption" if task == "annotation" else "caption id or text"
    cand = "top-{k} captions" if task == "annotation" else "top-{k} images"
    return (
        f'<section id="{task}"><h2>{escape(TASK_TITLES[task])}</h2>'
        '<div class="controls">'
        f'<input type="search" class="filter" id="filter-{task}" placeholder="filter: {what}" '
        f'aria-label="filter {task} queries">'
        f'<select class="sort" id="sort-{task}" aria-label="order">'
        '<option value="pool">pool order</option>'
        '<option value="best">gold rank, best first</option>'
        '<option value="worst">gold rank, worst first</option></select>'
        '<span class="count"></span></div>'
        f'<table class="queries" id="queries-{task}"><thead><tr><th>query</th>'
        f"<th>{escape(cand.format(k=data.top_k))} of the chosen system</th></tr></thead>"
        "<tbody></tbody></table>"
        '<button type="button" class="more">show more</button></section>'
    )


def page_data(data: ReportData, thumbs: Sequence[str]) -> dict[str, Any]:
    """The JSON the query browser reads."""
    systems = []
    for s in data.systems:
        entry: dict[str, Any] = {"name": s.name}
        for task in TASKS:
            if task in s.top:
                entry[task] = {"top": s.top[task].tolist(), "rank": s.gold_rank[task].tolist()}
        systems.append(entry)
    judgments = {}
    for (i, j), jd in data.judgments.items():
        item: dict[str, Any] = {}
        if "crowd" in jd:
            yes, no, rel = jd["crowd"]
            item["c"] = [int(yes), int(no), 1 if rel else 0]
        if "expert" in jd:
            item["e"] = [int(v) for v in jd["expert"]]
        judgments[f"{i},{j}"] = item
    return {
        "n": len(data.image_ids),
        "k": data.top_k,
        "images": data.image_ids,
        "captionIds": data.caption_ids,
        "captions": data.captions,
        "thumbs": list(thumbs),
        "systems": systems,
        "judgments": judgments,
        "relevanceRule": data.relevance_rule or "no crowd judgments",
    }


def script_json(obj: Any) -> str:
    """JSON safe inside ``<script>``: ``<``, ``>``, ``&`` (and U+2028/9) as ``\\uXXXX``."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    for ch, rep in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(ch, rep)
    return text


#: more notes than this (judged coverage of many systems) fold away, so the summary table shows
MAX_OPEN_NOTES = 6


def _run_notes_html(run_notes: str) -> str:
    """The folded "How the run was made" list (nothing when there are no run notes)."""
    if not run_notes:
        return ""
    return (
        '<details><summary>How the run was made</summary><ul class="notes">'
        f"{run_notes}</ul></details>"
    )


def _notes_html(items: str, count: int) -> str:
    """The summary's notes: a list, folded into a ``<details>`` when there are many."""
    if not count:
        return ""
    if count <= MAX_OPEN_NOTES:
        return f'<ul class="notes">{items}</ul>'
    return (
        f'<details class="notes"><summary>Judged coverage and other notes ({count})'
        f'</summary><ul class="notes">{items}</ul></details>'
    )


def render_page(
    data: ReportData,
    thumbs: Sequence[str],
    plots: Sequence[tuple[str, str]],
    *,
    generated: str = "",
) -> str:
    """The whole page as one string."""
    title = f"kcca report: {data.run_dir.name or data.run_dir}"
    n = len(data.image_ids)
    options = "".join(
        f'<option value="{k}">{escape(s.name)}</option>' for k, s in enumerate(data.systems)
    )
    notes = "".join(f"<li>{escape(t)}</li>" for t in data.notes)
    run_notes = "".join(f"<li>{escape(t)}</li>" for t in data.run_notes)
    rule = f"; crowd relevance {escape(data.relevance_rule)}" if data.relevance_rule else ""
    votes = "synthetic crowd votes" if data.synthetic_judgments else "crowd votes"
    all_captions = all_captions_html(data.all_captions)
    all_captions_link = '<a href="#all-captions">All captions</a>' if all_captions else ""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<style>
{static_text("report.css")}
</style>
</head>
<body>
<header>
<h1>{escape(title)}</h1>
<p>Run folder <code>{escape(str(data.run_dir))}</code>: {len(data.systems)} system(s) on the
{escape(data.split)} pool of corpus <code>{escape(data.corpus_name)}</code> ({n} images, {n}
captions){rule}.{(" Generated " + escape(generated) + ".") if generated else ""}</p>
<nav><a href="#summary">Summary</a>{all_captions_link}<a href="#plots">Plots</a>
<a href="#annotation">Query images</a><a href="#search">Query captions</a></nav>
</header>
<main>
<section id="summary"><h2>Summary: rank of the original item and judged relevance (test)</h2>
{_notes_html(notes, len(data.notes))}
{_run_notes_html(run_notes)}
{summary_html(data)}
</section>
{all_captions}<section id="plots"><h2>Plots</h2>
{plots_html(plots)}
</section>
<section id="browser"><h2>Browse queries</h2>
<noscript><p>The query browser needs JavaScript; the summary and plots above do not.</p></noscript>
<div class="controls"><label>system <select id="system">{options}</select></label>
<span class="legend"><span class="mark gold">gold</span> the original item;
<span class="mark rel">&#10003; 3/3</span> {votes}, relevant;
<span class="mark notrel">&#10007; 0/3</span> not relevant;
<span class="mark expert">E 3.33</span> mean expert score (1-4)</span></div>
</section>
{browser_html(data, "annotation")}
{browser_html(data, "search")}
</main>
<script type="application/json" id="report-data">{script_json(page_data(data, thumbs))}</script>
<script>
{static_text("report.js")}
</script>
</body>
</html>
"""
