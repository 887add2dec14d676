"""The header of the tables ``kcca reproduce`` writes: where the numbers came from (command,
data, date, commit, machine) and how they were made (the run configuration,
:meth:`kcca._systems.config.RunConfig.header`, or a rebuild from rankings files).
:func:`kcca._paper.report.write_report` adds the relevance rule, the rankings read, the settings
chosen on dev and the significance tests."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from kcca.data._corpus import SPLITS, Corpus
from kcca._provenance import git_commit, machine, now

if TYPE_CHECKING:
    from kcca._systems.config import RunConfig


def table_header(
    command: str, corpus: Corpus | None, run_lines: Sequence[str], *, splits: str | None = None
) -> list[str]:
    """The command, the data (``splits``: the folder of split files replacing the released
    ones), date, commit and machine, then ``run_lines`` (:func:`run_lines`,
    :func:`rebuild_lines`)."""
    if corpus is not None:
        sizes = ", ".join(f"{s} {len(corpus.split(s))}" for s in SPLITS)
        data = f"data: {corpus.name} ({sizes}{', splits from ' + splits if splits else ''})"
    else:
        data = "data: none at hand (compact results files only)"
    return [
        f"command: `{command}`",
        data,
        f"date: {now()}",
        f"commit: {git_commit()}",
        f"machine: {machine()}",
        *run_lines,
    ]


def run_lines(
    config: RunConfig,
    systems: Sequence[str],
    minutes: float,
    *,
    failed: Sequence[str] = (),
    grid: dict[str, Any] | None = None,
) -> list[str]:
    """A run's lines: its settings (``config``; ``grid``: the ``p`` / ``d`` given on the
    command line in place of the experiment files'), then the systems it ran, where, and how
    long it took."""
    p, d = (grid or {}).get("p"), (grid or {}).get("d")
    grid_note = f"; grid overridden: p={p or 'file'}, d={d or 'file'}" if p or d else ""
    scheduler = config.execution.scheduler
    return [
        config.header() + grid_note,
        f"this run: {', '.join(systems)}"
        + (f" on the Dask cluster {scheduler}" if scheduler else "")
        + f", {minutes:.1f} min"
        + (f"; FAILED: {', '.join(failed)}" if failed else ""),
    ]


def rebuild_lines(with_corpus: bool) -> list[str]:
    """The lines of tables rebuilt from rankings files (``kcca tables``);
    without the corpus they come from the compact results files alone."""
    lines = [
        "mode: --tables-only (tables rebuilt from the rankings files; each "
        "system's run settings are in details.json beside them)"
    ]
    if not with_corpus:
        lines.append(
            "no corpus data at hand: tables rebuilt from the compact results "
            "files (*.ranks.npz); Tables 8-10 and the Random row's judged "
            "columns need the data (--data-dir or KCCA_DATA_DIR)"
        )
    return lines
