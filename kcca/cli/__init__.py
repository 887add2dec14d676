"""The ``kcca`` command. One module per subcommand, each with ``add_parser`` and ``run``.

A subcommand module defines ``add_parser(subparsers) -> argparse.ArgumentParser`` (which
sets ``func=run`` on its parser) and ``run(args) -> int``. Register it in ``SUBCOMMANDS``.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from typing import Sequence

from kcca import __version__

SUBCOMMANDS = (
    "kcca.cli.data_cmd",
    "kcca.cli.demo_cmd",
    "kcca.cli.preprocess_cmd",
    "kcca.cli.features_cmd",
    "kcca.cli.similar_words_cmd",
    "kcca.cli.evaluate_cmd",
    "kcca.cli.score_captions_cmd",
    "kcca.cli.caption_analysis_cmd",
    "kcca.cli.reproduce_cmd",
    "kcca.cli.report_cmd",
)


def build_parser() -> argparse.ArgumentParser:
    from kcca.cli.common import add_common_options

    parser = argparse.ArgumentParser(
        prog="kcca",
        description="Sentence-based image description and search as a ranking task "
        "(Hodosh, Young & Hockenmaier 2013).",
    )
    parser.add_argument("--version", action="version", version=f"kcca {__version__}")
    add_common_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in SUBCOMMANDS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:  # subcommand not built yet
                continue
            raise
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from kcca.cli.common import finalize

    finalize(args)
    logging.basicConfig(
        level=logging.WARNING if args.quiet else logging.INFO,
        format="%(levelname)s %(name)s: %(message)s",
    )
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    from kcca.data.errors import DataError

    try:
        return int(args.func(args) or 0)
    except DataError as exc:
        print(f"kcca: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
