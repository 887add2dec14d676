"""``kcca tables``: rebuild the paper's tables and plots from existing rankings files.

No system runs: every rankings file of ``--rankings-dir`` (default ``<out>/rankings``, as
``kcca reproduce`` writes them) is read, and ``table<N>.md``, ``table<N>.csv`` and the plots
are written to ``--out``, exactly as at the end of a ``kcca reproduce`` run
(:func:`kcca._cli.reproduce_cmd.build_tables`, which ``kcca reproduce --tables-only`` also
calls). Without the data (``--data-dir`` or ``$KCCA_DATA_DIR``) the tables come from the
compact results files, and Tables 8-10 and the Random row's judged columns are left empty.
"""

from __future__ import annotations

import argparse

from kcca._cli.common import subparser
from kcca._cli.reproduce_cmd import add_table_arguments, build_tables

HELP = "rebuild the paper's tables and plots from existing rankings files (runs no system)"


def add_parser(sub) -> argparse.ArgumentParser:
    p = subparser(sub, "tables", HELP, run)
    add_table_arguments(
        p,
        systems="systems whose tables to write (paper or short names, looked up in "
        "--experiments; each must have results; default: every rankings file)",
        force="rewrite the tables of an --out folder that already holds some when the data "
        "is not at hand (refused without it)",
    )
    # the run-only settings that build_tables never reads
    p.set_defaults(images_dir=None)
    return p


def run(args: argparse.Namespace) -> int:
    return build_tables(args)
