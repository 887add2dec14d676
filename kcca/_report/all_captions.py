"""The report's all-captions section: the literature's retrieval protocol, when the run has it.

A run of ``kcca reproduce --protocol all-captions`` writes each system's all-captions ranks
beside its rankings file (:mod:`kcca._evaluate.protocol_ranks`). :func:`all_captions_rows`
computes the protocol's table from those files (:mod:`kcca._evaluate.protocol_table`: one row
per system and pool) and :func:`all_captions_html` renders it; a run without them shows no
section. A ranks file that cannot be read, that ranks another system, or whose images are not
those of the report's pool, is a :class:`~kcca.errors.DataError` naming it, as an unreadable
rankings file is.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any, Sequence

from kcca._evaluate.protocol_table import DIRECTIONS, FIGURES, protocol_rows, ranks_beside

#: the column groups of the table's first header row, by column prefix
DIRECTION_TITLES = {
    "i2t": "Image annotation (i2t)",
    "t2i": "Image search (t2i)",
}

EXPLANATION = (
    "The literature's protocol (from the run's <SYSTEM>.all-captions.json files): every "
    "test image in the pool and every one of its captions (the first five) are ranked "
    "together, not the paper's one caption per image. Image annotation (i2t): an image's "
    "rank is that of its best-ranked own caption; image search (t2i): every caption is a "
    "query, ranked against the pool's images. R@k in percent (higher is better), med r and "
    "mean r are 1-based ranks (lower is better); rsum is the sum of the six recalls. A pool "
    "of folds gives the mean over its folds, each ranked as a pool of its own."
)


def all_captions_rows(
    systems: Sequence[tuple[str, str, Path]], image_ids: Sequence[str]
) -> list[dict[str, Any]]:
    """The protocol's rows (:func:`kcca._evaluate.protocol_table.protocol_rows`) of each
    ``(shown name, system, results file)`` whose results file has an all-captions ranks
    file beside it, in the order given; empty when none has. Each file must rank the
    images ``image_ids`` (the report's pool), in that order."""
    ranked = []
    for shown, system, path in systems:
        ranked += [(shown, ranks) for _, ranks in ranks_beside({system: path}, image_ids)]
    return protocol_rows(ranked)


def _header() -> str:
    groups = "".join(
        f'<th colspan="{len(FIGURES)}">{escape(DIRECTION_TITLES[short])}</th>'
        for _, short in DIRECTIONS
    )
    figures = "".join(
        f'<th title="{escape(short + " " + label)}">{escape(label)}</th>'
        for _, short in DIRECTIONS
        for label, _ in FIGURES
    )
    return (
        '<thead><tr><th class="name" rowspan="2">system</th>'
        f'<th class="name" rowspan="2">protocol</th>{groups}<th rowspan="2">rsum</th></tr>'
        f"<tr>{figures}</tr></thead>"
    )


def _row(row: dict[str, Any]) -> str:
    figures = [f"{short} {label}" for _, short in DIRECTIONS for label, _ in FIGURES]
    cells = "".join(
        f'<td title="{escape(column)}">{row[column]:.1f}</td>' for column in [*figures, "rsum"]
    )
    return (
        f'<tr data-system="{escape(str(row["system"]))}">'
        f'<td class="name">{escape(str(row["system"]))}</td>'
        f'<td class="name">{escape(str(row["protocol"]))}</td>{cells}</tr>'
    )


def all_captions_html(rows: Sequence[dict[str, Any]]) -> str:
    """The section: what the protocol is, and the table of ``rows``; '' without rows."""
    if not rows:
        return ""
    body = "".join(_row(r) for r in rows)
    return (
        '<section id="all-captions"><h2>All-captions retrieval protocol</h2>'
        f'<p class="legend">{escape(EXPLANATION)}</p>'
        f'<table class="summary" id="summary-all-captions">{_header()}'
        f"<tbody>{body}</tbody></table></section>\n"
    )
