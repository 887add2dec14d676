"""Options shared by every subcommand, and helpers to turn them into objects."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kcca.errors import DataError

if TYPE_CHECKING:  # the cache imports NumPy and joblib: not at `kcca --help`
    from kcca._cache import Cache


#: the options every subcommand accepts: (flags, add_argument keywords); each defaults to
#: ``argparse.SUPPRESS`` so that :func:`finalize` can tell which were given
COMMON_OPTIONS: tuple[tuple[tuple[str, ...], dict[str, Any]], ...] = (
    (("--data-dir",), {"help": "folder holding the data sets (default: $KCCA_DATA_DIR)"}),
    (
        ("--cache-dir",),
        {"help": "folder for cached stages (default: $KCCA_CACHE_DIR or ~/.cache/kcca)"},
    ),
    (
        ("--no-cache",),
        {"action": "store_true", "help": "compute everything afresh and store nothing"},
    ),
    (("--seed",), {"type": int, "help": "seed for every random choice (default 0)"}),
    (
        ("--jobs", "-j"),
        {"type": int, "help": "parallel workers (joblib; -1 = all cores; default 1)"},
    ),
    (
        ("--quiet", "-q"),
        {"action": "store_true", "help": "no progress bars or info messages"},
    ),
    (
        ("--verbose",),
        {
            "action": "store_true",
            "help": "show info messages, and on an error the full traceback (default: progress "
            "and results; one message and a fix on an error)",
        },
    ),
)


def add_common_options(parser: argparse.ArgumentParser) -> None:
    """``--data-dir``, ``--cache-dir``, ``--seed``, ``--jobs``, ``--quiet``, ``--verbose``.

    Each is accepted before or after the subcommand.
    """
    g = parser.add_argument_group("common options")
    for flags, options in COMMON_OPTIONS:
        g.add_argument(*flags, default=argparse.SUPPRESS, **options)


DEFAULTS = {
    "data_dir": None,
    "cache_dir": None,
    "no_cache": False,
    "seed": 0,
    "jobs": 1,
    "quiet": False,
    "verbose": False,
}


def subparser(sub, name: str, help: str, func) -> argparse.ArgumentParser:
    """Create a subcommand parser that also accepts the common options."""
    p = sub.add_parser(name, help=help, description=help)
    add_common_options(p)
    p.set_defaults(func=func)
    return p


def finalize(args: argparse.Namespace) -> argparse.Namespace:
    """Fill the common options not given with their defaults (``args.given_options`` names
    those given, so a run configuration file may supply the others)."""
    args.given_options = frozenset(k for k in DEFAULTS if hasattr(args, k))
    for k, v in DEFAULTS.items():
        if not hasattr(args, k):
            setattr(args, k, v)
    return args


def seed_if_given(args: argparse.Namespace) -> int | None:
    """``--seed`` when given, else None (a run configuration file may then supply it)."""
    return args.seed if "seed" in getattr(args, "given_options", frozenset(DEFAULTS)) else None


def image_config_from_args(args: argparse.Namespace) -> Any:
    """``--image-config JSON`` as an ``ImageFeatureConfig`` with ``--seed`` (None: not given)."""
    text = getattr(args, "image_config", None)
    if not text:
        return None
    from features._image_features import ImageFeatureConfig

    from kcca.data._documents import parse_json

    fix = (
        "give a JSON object of ImageFeatureConfig fields, e.g. --image-config "
        '\'{"vocabulary": {"color": 32, "texture": 64, "sift": 64}}\''
    )
    try:
        fields = parse_json(text, "--image-config")
    except DataError as exc:
        raise DataError(str(exc), fix=fix) from None
    try:
        return ImageFeatureConfig(**{"seed": args.seed, **fields})
    except (TypeError, ValueError) as exc:
        raise DataError(f"--image-config: {exc}", fix=fix) from None


def run_config_from_args(
    args: argparse.Namespace, file_values: dict[str, Any] | None = None, **execution: Any
) -> Any:
    """The :class:`kcca._systems.config.RunConfig` of a command: ``file_values`` (an
    experiment folder's ``[run]`` table, :func:`kcca._systems.config.load_run_table`), then
    the flags given (``--seed``, ``--jobs``, ``--quiet``, ``--image-config``, ``--precision``,
    ``--search-rank``; a flag not given leaves the file's value), then ``execution``."""
    from kcca._systems.config import RunConfig

    given = getattr(args, "given_options", frozenset(DEFAULTS))
    values: dict[str, Any] = dict(file_values or {})
    for name in ("seed", "jobs"):
        if name in given or name not in values:
            values[name] = getattr(args, name)
    if "quiet" in given or "progress" not in values:
        values["progress"] = not args.quiet
    image = image_config_from_args(args)
    if image is not None:
        values["image_config"] = image
    elif values.get("image_config") is not None and "seed" in given:
        values["image_config"] = dataclasses.replace(values["image_config"], seed=args.seed)
    for name in ("precision", "search_rank"):
        if getattr(args, name, None) is not None:
            values[name] = getattr(args, name)
    if getattr(args, "protocol", "paper") != "paper":
        values["protocol"] = args.protocol
    values.update(execution)
    return RunConfig.of(**values)


def cache_from_args(args: argparse.Namespace) -> Cache:
    from kcca._cache import Cache, default_cache_dir

    if getattr(args, "no_cache", False):
        return Cache(None)
    root = getattr(args, "cache_dir", None) or default_cache_dir()
    return Cache(root)


def add_experiments_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    """``--experiments DIR`` (``what`` it is searched for) and ``--splits DIR`` (split files
    replacing the released ones), as ``kcca reproduce`` and ``kcca fit-model`` take them."""
    parser.add_argument(
        "--experiments",
        default=None,
        help=f"{what} (default experiments/hodosh2013 of the source tree, else "
        "of the current folder)",
    )
    parser.add_argument(
        "--splits",
        default=None,
        help="folder with Flickr_8k.{train,dev,test}Images.txt replacing the released splits",
    )


def add_backend_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """``--backend auto|numpy|cupy`` for the array backend of ``what``."""
    parser.add_argument(
        "--backend",
        default="auto",
        choices=("auto", "numpy", "cupy"),
        help=f"array backend of {what} (default auto: cupy on the GPU when one "
        "is present, else numpy)",
    )


def add_relevance_argument(parser: argparse.ArgumentParser, help: str) -> None:
    """``--relevance paper|two-thirds|majority``: the crowd relevance rule (default paper)."""
    parser.add_argument(
        "--relevance",
        default="paper",
        choices=("paper", "two-thirds", "majority"),
        help=help,
    )


def add_scheduler_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """``--scheduler ADDRESS``, a Dask scheduler; ``what`` runs there."""
    parser.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help=f"Dask scheduler address (tcp://host:port): {what}",
    )


def add_grid_arguments(parser: argparse.ArgumentParser, whose: str, note: str) -> None:
    """``--p`` and ``--d``, values replacing those of ``whose`` grid
    (:meth:`kcca._systems.spec.SystemSpec.with_grid`)."""
    for name in ("p", "d"):
        parser.add_argument(
            f"--{name}",
            type=float,
            nargs="+",
            default=None,
            help=f"override {whose} {name} grid ({note})",
        )


#: an example of each grid flag, with the paper's values
GRID_FLAG_EXAMPLES = {
    "p": "--p 2 3 (the paper's image kernel powers)",
    "d": "--d 1 3 8 (the paper's d is in [1, 15])",
    "kappas": "--kappas 0.1 0.5 1 5 (the paper's)",
}


def check_grid_flags(args: argparse.Namespace) -> None:
    """``--p``, ``--d`` and (where the command has it) ``--kappas``: finite values within the
    grids' bounds (:data:`kcca._systems.spec.GRID_BOUNDS`), else a :class:`DataError` naming
    the flag, with an example (argparse reads ``inf``)."""
    from kcca._systems.spec import GRID_BOUNDS, within_grid_bound

    for name, example in GRID_FLAG_EXAMPLES.items():
        need = GRID_BOUNDS[name][0]
        for v in getattr(args, name, None) or ():
            if not within_grid_bound(name, v):
                raise DataError(
                    f"--{name} values must be finite numbers {need}, got {v:g}",
                    fix=f"give finite values {need}, e.g. {example}",
                )


def check_count(flag: str, value: int | None, fix: str) -> None:
    """A count flag (``--top``, ``-k``, ...) must be 1 or more when given; else a
    :class:`DataError` naming the flag and its value, with ``fix``."""
    if value is not None and value < 1:
        raise DataError(f"{flag} must be 1 or more, got {value}", fix=fix)


def add_precision_argument(parser: argparse.ArgumentParser, hidden: bool = False) -> None:
    """``--precision``, the incomplete-Cholesky precision of the solver (``hidden``: left out
    of ``--help``, for a command whose run.toml sets it)."""
    parser.add_argument(
        "--precision",
        type=float,
        default=None,
        help=argparse.SUPPRESS
        if hidden
        else "incomplete-Cholesky precision of the solver (default its own)",
    )


def add_protocol_argument(parser: argparse.ArgumentParser, ranking: bool = True) -> None:
    """``--protocol``: the paper's test pool, or also the later literature's pools of every
    test caption (:mod:`kcca._evaluate.protocol_ranks`)."""
    from kcca._names import PROTOCOLS

    what = (
        "test protocol: paper (default: the one-caption test pool of the paper's tables) or "
        "all-captions (also every caption of every test image, as the later literature "
        "reports: R@1/5/10, median and mean rank, rsum for the whole test set and, on "
        "COCO's 5,000 images, the mean of five 1K folds; written beside each rankings file "
        "as <SYSTEM>.all-captions.json, and printed or written as all-captions.md)"
        if ranking
        else "the protocol to evaluate: paper (default: the rankings files' one-caption "
        "pool) or all-captions (the <SYSTEM>.all-captions.json files a run with "
        "--protocol all-captions wrote beside them)"
    )
    parser.add_argument("--protocol", choices=PROTOCOLS, default="paper", help=what)


def backend_from_args(args: argparse.Namespace) -> str:
    """The concrete backend of ``--backend`` (``auto`` resolved); ``cupy`` without a GPU is a
    :class:`~kcca.errors.BackendUnavailableError` here, before any work."""
    from kcca._backend import get_xp, resolve_backend

    backend = resolve_backend(args.backend)
    get_xp(backend)
    return backend


def data_dir_from_args(args: argparse.Namespace) -> Path:
    from kcca.data._paths import resolve_data_dir

    return resolve_data_dir(getattr(args, "data_dir", None))
