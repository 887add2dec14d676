"""The all-captions protocol's table: one row per system and pool, as the literature prints it.

Per direction, image annotation (i2t) and image search (t2i): R@1, R@5, R@10 (percent), the
median and mean rank; then ``rsum``, the sum of the six recalls
(:mod:`kcca._evaluate.retrieval_protocol`). Each row names its pool ("all-captions 1K",
"all-captions 1K (mean of 5 folds)", "all-captions 5K"), so the protocol is in the table
itself. ``kcca evaluate --protocol all-captions`` prints it; ``kcca reproduce`` writes it as
``all-captions.md`` / ``all-captions.csv`` when a system was run with that protocol.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Sequence

from kcca._evaluate.protocol_ranks import (
    ProtocolRanks,
    protocol_ranks_path,
    read_protocol_ranks,
    rerun_with_protocol,
)
from kcca._evaluate.retrieval_protocol import DirectionMetrics, RetrievalProtocolResult

#: the direction prefixes of the columns
DIRECTIONS = (("annotation", "i2t"), ("search", "t2i"))
#: a direction's figures, by column suffix
FIGURES = (
    ("R@1", "r1"),
    ("R@5", "r5"),
    ("R@10", "r10"),
    ("med r", "median_rank"),
    ("mean r", "mean_rank"),
)
COLUMNS = (
    "system",
    "protocol",
    *(f"{short} {label}" for _, short in DIRECTIONS for label, _ in FIGURES),
    "rsum",
)


def protocol_rows(systems: Sequence[tuple[str, ProtocolRanks]]) -> list[dict[str, Any]]:
    """One row per system and pool (whole test set first): column -> value."""
    rows = []
    for name, ranks in systems:
        for result in ranks.results():
            rows.append(_row(name, result))
    return rows


def _row(name: str, result: RetrievalProtocolResult) -> dict[str, Any]:
    row: dict[str, Any] = {"system": name, "protocol": result.protocol}
    for direction, short in DIRECTIONS:
        metrics: DirectionMetrics = getattr(result, direction)
        for label, field in FIGURES:
            row[f"{short} {label}"] = getattr(metrics, field)
    row["rsum"] = result.rsum
    return row


def _cells(row: dict[str, Any], decimals: int = 1) -> list[str]:
    """A row's cells in the order of :data:`COLUMNS`, every figure to ``decimals`` decimals."""
    return [
        str(row[c]) if c in ("system", "protocol") else f"{row[c]:.{decimals}f}" for c in COLUMNS
    ]


def protocol_text(rows: Sequence[dict[str, Any]]) -> str:
    """The rows as plain text under a title: one aligned block per direction, then rsum, so
    that no line is wider than a terminal's 100 columns."""
    blocks = [
        (f"image {direction} ({short})", [f"{short} {label}" for label, _ in FIGURES])
        for direction, short in DIRECTIONS
    ]
    blocks.append(("rsum (the sum of the six recalls)", ["rsum"]))
    lines = [
        "All-captions retrieval protocol: every caption of every test image in the pool",
    ]
    for title, columns in blocks:
        head = ["system", "protocol", *(c.split(" ", 1)[1] if " " in c else c for c in columns)]
        table = [head] + [
            [str(r["system"]), str(r["protocol"]), *(f"{r[c]:.1f}" for c in columns)] for r in rows
        ]
        widths = [max(len(line[i]) for line in table) for i in range(len(head))]
        lines += ["", title]
        lines += [
            "  ".join(
                cell.ljust(w) if i < 2 else cell.rjust(w)
                for i, (cell, w) in enumerate(zip(line, widths))
            ).rstrip()
            for line in table
        ]
    return "\n".join(lines)


#: decimals of every figure of the CSV, whatever its kind (R@k and rsum in percent, med r and
#: mean r as ranks): one rounding for the whole table, stated with it (:data:`ROUNDING_NOTE`)
CSV_DECIMALS = 2
ROUNDING_NOTE = (
    f"The CSV gives every figure to {CSV_DECIMALS} decimals (R@k and rsum in percent, med r "
    "and mean r as ranks); this table to 1."
)


def protocol_csv(rows: Sequence[dict[str, Any]]) -> str:
    """The rows as CSV with a header, every figure to :data:`CSV_DECIMALS` decimals (whole
    ranks and recalls of a small pool read ``1.00``, ``40.00``: one rounding per column)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(_cells(row, CSV_DECIMALS) for row in rows)
    return buf.getvalue()


#: the first line of the Markdown table (how a file is recognised as one)
MARKDOWN_TITLE = "# All-captions retrieval protocol"


def is_protocol_table(path: Path) -> bool:
    """Whether ``path`` is an ``all-captions.md`` / ``.csv`` this module wrote: its first line
    is :data:`MARKDOWN_TITLE` or the CSV header of :data:`COLUMNS`."""
    try:
        with path.open("r", encoding="utf-8", errors="replace") as fh:
            first = fh.readline().rstrip("\n")
    except OSError:
        return False
    return first in (MARKDOWN_TITLE, ",".join(COLUMNS))


def protocol_markdown(rows: Sequence[dict[str, Any]], header: Sequence[str]) -> str:
    """The table as Markdown under the run's ``header`` lines."""
    lines = [MARKDOWN_TITLE, ""]
    lines += [f"    {h}" for h in header] + [""]
    lines.append(
        "Every test image and the first five captions of each form the pool. Image "
        "annotation (i2t): an image's rank is that of its best-ranked own caption; image "
        "search (t2i): every caption is a query. R@k in percent; med r and mean r are "
        "1-based ranks; rsum is the sum of the six recalls. A pool of folds gives the "
        "mean over its folds, each ranked as a pool of its own. " + ROUNDING_NOTE
    )
    lines += ["", "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(_cells(r)) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def ranks_beside(
    results_files: dict[str, Path], image_ids: Sequence[str] | None = None
) -> list[tuple[str, ProtocolRanks]]:
    """``(system, ranks)`` of each system whose results file has an all-captions ranks file
    beside it (:func:`kcca._evaluate.protocol_ranks.protocol_ranks_path`), in the order given.
    A ranks file that cannot be read, that names another system, (``image_ids``: the test
    images of the results' pool, in order) that ranks other images, or that disagrees with the
    results file (:func:`kcca._evaluate.protocol_agreement.check_agreement`) is a
    :class:`~kcca.errors.DataError` naming it: its figures would belong to another run."""
    from kcca.errors import DataError
    from kcca._evaluate.paper_systems import paper_name
    from kcca._evaluate.protocol_agreement import check_agreement

    out = []
    for system, path in results_files.items():
        beside = protocol_ranks_path(path)
        if not beside.is_file():
            continue
        ranks = read_protocol_ranks(beside)
        if paper_name(ranks.system) != paper_name(system):
            raise DataError(
                f"{beside}: holds the all-captions ranks of {ranks.system!r}, not of "
                f"{system!r} (whose results are {path})",
                fix=rerun_with_protocol(path, system),
            )
        if image_ids is not None and list(ranks.images) != list(image_ids):
            raise DataError(
                f"{beside}: ranks other test images than {path} ({len(ranks.images)} images "
                f"of corpus {ranks.corpus!r}, split {ranks.split!r}; the results' pool has "
                f"{len(image_ids)}): it comes from another run",
                fix=rerun_with_protocol(path, system),
            )
        if Path(path).is_file():
            check_agreement(ranks, beside, path, system)
        out.append((system, ranks))
    return out
