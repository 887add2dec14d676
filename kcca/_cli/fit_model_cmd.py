"""``kcca fit-model``: fit a system and save it as a model file for ``kcca query`` / ``annotate``.

The system is an experiment file (``--experiment FILE``, or ``--system NAME`` from
``experiments/hodosh2013``) fitted on Flickr 8K or on a corpus in Karpathy's JSON format
(``--corpus FILE.json``, as ``kcca reproduce`` takes it), or the demo system (``--demo``) on
the embedded demo corpus with ``kcca demo``'s settings. A system whose kernels read vectors
files (``vectors``) keeps what ranks new items from their vectors (:mod:`kcca._model.vectors`:
for linear and cosine functions the folded directions only, else the training vectors).
:func:`kcca._model.fit_system` runs the system (cached stages: p and d and the 15 models per
task chosen on dev, Section 4.1.3), keeps the chosen models' KCCA directions and the
kernels' fitted state, and projects the test pools; the file holds data only (JSON and
``.npy`` arrays, :mod:`kcca._model.file_format`).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from kcca._cli.common import (
    add_experiments_arguments,
    add_grid_arguments,
    add_precision_argument,
    cache_from_args,
    check_grid_flags,
    data_dir_from_args,
    run_config_from_args,
    seed_if_given,
    subparser,
)
from kcca._cli.environment_faults import check_outputs
from kcca._cli.lines import command, with_path, wrap
from kcca._cli.reproduce_cmd import add_corpus_argument
from kcca.errors import DataError

HELP = "fit a system and save it as a model file (for kcca query / kcca annotate)"


def add_parser(sub) -> argparse.ArgumentParser:
    p = subparser(sub, "fit-model", HELP, run)
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--experiment", help="experiment file (.toml / .json) of a KCCA system")
    what.add_argument(
        "--system", help="a system of --experiments by paper or short name (e.g. BoW5)"
    )
    what.add_argument(
        "--demo",
        action="store_true",
        help="the demo system on the embedded demo corpus (kcca demo's settings)",
    )
    p.add_argument(
        "--out",
        required=True,
        help="model file to write (e.g. bow5.kcca.npz; data only, see kcca/_model/file_format.py)",
    )
    add_experiments_arguments(
        p,
        "folder searched by --system; with --demo, a folder of demo systems instead of "
        "experiments/demo",
    )
    p.add_argument(
        "--demo-system",
        default=None,
        help="which system of the demo's folder with --demo (TRI5 or BoW5; default TRI5)",
    )
    add_corpus_argument(p)
    p.add_argument(
        "--images-dir",
        default=None,
        help="image folder of a --corpus JSON file (leave it out for systems whose image "
        "kernel reads vectors files only)",
    )
    add_grid_arguments(p, "the system's", "searched on dev")
    p.add_argument(
        "--image-config",
        default=None,
        help="JSON of ImageFeatureConfig fields (default: the paper's codebooks)",
    )
    add_precision_argument(p)
    p.add_argument(
        "--compress",
        type=int,
        default=0,
        choices=range(10),
        metavar="0-9",
        help="deflate the arrays at this level, as np.savez_compressed (default 0: "
        "stored, larger file, fastest load)",
    )
    return p


def _spec(args: argparse.Namespace):
    from kcca._systems import load_spec, load_specs, select_specs
    from kcca._systems.spec import default_experiments_dir

    spec = (
        load_spec(args.experiment)
        if args.experiment
        else select_specs(load_specs(args.experiments or default_experiments_dir()), [args.system])[
            0
        ]
    )
    return spec.with_grid(p=args.p, d=args.d)


def _check_flag_combinations(args: argparse.Namespace) -> None:
    """Refuse a flag that the chosen system would ignore (never drop it silently)."""
    if args.demo and args.corpus != "flickr8k":
        raise DataError(
            f"--corpus gives the corpus of --system or --experiment ({args.corpus}); the demo "
            "system is fitted on the embedded demo corpus",
            fix="drop --corpus, or fit a system of that corpus with --experiment FILE",
        )
    if args.demo and args.splits:
        raise DataError(
            "--splits gives split files of Flickr 8K; the demo corpus makes its own splits",
            fix="drop --splits, or fit a Flickr 8K system (--system NAME or --experiment FILE)",
        )
    if not args.demo and args.demo_system:
        raise DataError(
            "--demo-system chooses a system of the demo and goes with --demo",
            fix="add --demo, or name a Flickr 8K system with --system NAME",
        )
    if args.experiment and args.experiments:
        raise DataError(
            "--experiments is the folder searched by --system; --experiment names its file "
            f"itself ({args.experiment})",
            fix="drop --experiments, or give --system NAME instead of --experiment FILE",
        )


def run(args: argparse.Namespace) -> int:
    from kcca._model import fit_system, save_model
    from kcca._model.build import demo_spec_and_corpus

    start = time.perf_counter()
    check_grid_flags(args)
    _check_flag_combinations(args)
    check_outputs(args, ("--out", args.out, False))
    cache = cache_from_args(args)
    if args.demo:
        overrides = {
            "seed": seed_if_given(args),
            "system": args.demo_system,
            "folder": args.experiments,
        }
        if args.p:
            overrides["p"] = list(args.p)
        if args.d:
            overrides["d"] = list(args.d)
        spec, corpus, image_config = demo_spec_and_corpus(**overrides)
        config = run_config_from_args(
            args, {"seed": image_config.seed, "image_config": image_config}
        )
    else:
        from kcca._cli.reproduce_cmd import json_corpus_file, load_run_corpus, optional_data_dir

        spec = _spec(args)
        json_file = json_corpus_file(args)
        data_dir = optional_data_dir(args) if json_file else data_dir_from_args(args)
        corpus = load_run_corpus(args, data_dir)
        config = run_config_from_args(args)
    print(
        wrap(
            f"fitting {spec.label} on {corpus.name} "
            f"(train {len(corpus.split('train'))}, dev {len(corpus.split('dev'))}, "
            f"test {len(corpus.split('test'))})"
        )
    )
    model = fit_system(corpus, spec, config=config, cache=cache)
    print(wrap(model.describe()))  # what was computed is shown before the file is written
    for task, m in model.info["test_metrics"].items():
        scores = ", ".join(f"{k} {v:.1f}" for k, v in m.items())
        print(wrap(f"test {task}: {scores}", indent="  ", continuation="    "))
    stages = "; ".join(f"{k} {v:.1f}s" for k, v in model.info["timings"].items())
    print(wrap(f"stages: {stages}", indent="  ", continuation="    "))
    out = save_model(model, args.out, compress=args.compress)
    size = out.stat().st_size / 2**20
    print(with_path("wrote ", out, f" ({size:.1f} MiB) in {time.perf_counter() - start:.1f}s"))
    print(next_query(model, out))
    return 0


def next_query(model, out: Path) -> str:
    """``next:`` and a command that queries the model file ``out`` and runs: vectors files for
    a side whose kernel reads them, else a sentence of the model's own words
    (:func:`~kcca._cli.query_cmd.example_sentence`: a Flickr 8K query means nothing to the demo
    model); split into lines that fit and still run as printed."""
    from kcca._cli.query_cmd import example_sentence
    from kcca._model.vectors import VectorsEncoder

    if isinstance(model.text, VectorsEncoder):
        argv, what = ["kcca", "query", "--vectors", "CAPTION_VECTORS"], " (captions' vectors)"
    elif isinstance(model.image, VectorsEncoder):
        argv, what = ["kcca", "annotate", "--vectors", "IMAGE_VECTORS"], " (images' vectors)"
    else:
        argv, what = ["kcca", "query", example_sentence(model)], ""
    return command([*argv, "--model", str(out)], "next: `", f"`{what}")
