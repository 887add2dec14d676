"""``kcca demo``: run the system end to end on the embedded demo corpus (no downloads).

The systems and the image feature settings are the experiment files of ``experiments/demo``
(``--experiments`` names another folder): TRI5 and BoW5, and a ``run.toml`` with the seed and
the small codebooks of the small demo images. Stages (:data:`STAGES`, each a function reading
and extending :class:`DemoRun`): read the experiment files, generate the corpus (``--seed``),
print a summary, write a contact sheet; then the paper's pipeline (Section 4.1) through
:func:`kcca._systems.run_system`: image features, kernel blocks (pyramid image kernel; trigram
text kernel, and BoW5 for comparison), the KCCA grid (kappas x n for each p and d) with dev
selection of 15 models per task and the p/d choice on dev, Borda aggregation on the test pool,
and the test metrics printed beside chance, with an R@k plot (``recall_at_k.png``), rankings
files and an HTML report (``report/index.html``, :mod:`kcca._report`) in ``--out``. At the
default sizes (400 / 100 / 100 images of 64 px) a cold run takes about 75 s on two cores shared
with other jobs (the first run of a checkout: 74 s wall, 36 CPU-seconds, 0.44 GB peak memory at
a load average of 4-7, ``benchmarks/bench_commands.py``; the README has the warm run's figures).
"""

from __future__ import annotations

import argparse
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from kcca._cli.common import (
    add_backend_argument,
    add_protocol_argument,
    backend_from_args,
    check_grid_flags,
    run_config_from_args,
    subparser,
)
from kcca._cli.lines import command, with_path, wrap
from kcca._demo import DemoSettings, demo_experiments_dir, demo_run_table, demo_systems
from kcca.errors import DataError
from kcca.limits import MAX_DEMO_IMAGE_SIZE

DEMO = DemoSettings()

if TYPE_CHECKING:  # the corpus module imports NumPy: not at `kcca --help`
    from kcca.data._corpus import Corpus
    from kcca._systems.config import RunConfig

HELP = "run the pipeline on the embedded demo corpus (procedural images, grammar captions)"


@dataclass
class DemoRun:
    """State shared by the stages of one ``kcca demo`` run."""

    args: argparse.Namespace
    out: Path
    experiments: Path  # the folder of the demo's experiment files and run.toml
    config: RunConfig  # run.toml's [run] table, then the flags given
    corpus: Corpus | None = None
    outputs: dict[str, Path] = field(default_factory=dict)
    workspace: Any = None
    systems: list = field(default_factory=list)
    results: list = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)

    def say(self, text: str = "") -> None:
        print(text)


Stage = Callable[[DemoRun], None]


def add_parser(sub) -> argparse.ArgumentParser:
    p = subparser(sub, "demo", HELP, run)
    p.add_argument("--out", default="kcca-demo-out", help="output folder (default ./kcca-demo-out)")
    add_backend_argument(p, "the kernels and the KCCA solver")
    p.add_argument(
        "--experiments",
        default=None,
        help="folder of the demo's experiment files and run.toml (default experiments/demo, "
        "which an installed package also carries)",
    )
    d = DEMO
    p.add_argument(
        "--n-train", type=int, default=d.n_train, help=f"training images (default {d.n_train})"
    )
    p.add_argument(
        "--n-dev", type=int, default=d.n_dev, help=f"development images (default {d.n_dev})"
    )
    p.add_argument("--n-test", type=int, default=d.n_test, help=f"test images (default {d.n_test})")
    p.add_argument(
        "--image-size",
        type=int,
        default=d.image_size,
        help=f"side of the square images in pixels, {MIN_IMAGE_SIZE} to {MAX_DEMO_IMAGE_SIZE} "
        f"(default {d.image_size})",
    )
    p.add_argument(
        "--p",
        type=float,
        nargs="+",
        help="image kernel powers p searched on dev (default: the experiment files')",
    )
    p.add_argument(
        "--d",
        type=float,
        nargs="+",
        help="text diagonal factors d searched on dev (default: the experiment files')",
    )
    p.add_argument(
        "--kappas",
        type=float,
        nargs="+",
        help="KCCA regularisers (default: the experiment files')",
    )
    p.add_argument(
        "--n-count",
        type=int,
        help="values of n, geometric from 5 to the training size (default: the files')",
    )
    p.add_argument("--sheet", type=int, default=12, help="images on the contact sheet (default 12)")
    add_protocol_argument(p)
    return p


# ------------------------------------------------------------------ stages
def stage_systems(run: DemoRun) -> None:
    """Read the demo's experiment files (``--experiments``) first, so that a missing or
    faulty file is named before any image is drawn; their grid written out for
    ``--n-train`` training images."""
    a = run.args
    run.systems = demo_systems(
        a.n_train, p=a.p, d=a.d, kappas=a.kappas, n_count=a.n_count, folder=run.experiments
    )


def stage_corpus(run: DemoRun) -> None:
    """Generate the demo corpus from ``--seed``."""
    from kcca.data._demo import make_demo_corpus

    a = run.args
    seed = run.config.settings.seed
    run.corpus = make_demo_corpus(
        n_train=a.n_train, n_dev=a.n_dev, n_test=a.n_test, image_size=a.image_size, seed=seed
    )


def corpus_vocabulary(corpus: Corpus) -> set[str]:
    """Lower-cased whitespace tokens of every caption (punctuation tokens included)."""
    return {w.lower() for caps in corpus.captions.values() for c in caps for w in c.split()}


def stage_summary(run: DemoRun) -> None:
    """Print split sizes, caption and vocabulary counts, and captions of three images."""
    corpus = run.corpus
    assert corpus is not None  # stage_corpus ran first
    s = corpus.summary()
    run.say(f"demo corpus {corpus.name!r} (seed {run.config.settings.seed})")
    run.say("  splits: " + ", ".join(f"{k} {v}" for k, v in s["splits"].items()))
    run.say(f"  captions: {s['captions']} ({s['images_with_captions']} images x 5)")
    run.say(f"  vocabulary: {len(corpus_vocabulary(corpus))} word types")
    if corpus.crowd is not None:
        n_rel = sum(j.relevant() for j in corpus.crowd.values())
        run.say(f"  synthetic test-pool judgments: {len(corpus.crowd)} pairs, {n_rel} relevant")
    for image_id in corpus.split("train")[:3]:
        spec = corpus.images.spec(image_id)  # type: ignore[union-attr]  # the demo's DemoImages
        run.say(wrap(f"  {image_id}: {spec.describe()}", continuation="    "))
        for n, text in enumerate(corpus.captions[image_id]):
            run.say(wrap(f"    #{n} {text}", continuation="       "))


def stage_contact_sheet(run: DemoRun) -> None:
    """Write ``contact_sheet.png``: the first training images with their caption #0."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from kcca._cache import atomic_write

    corpus = run.corpus
    assert corpus is not None  # stage_corpus ran first
    ids = list(corpus.split("train") + corpus.split("dev") + corpus.split("test"))
    ids = ids[: max(1, run.args.sheet)]
    cols = min(4, len(ids))
    rows = -(-len(ids) // cols)
    fig = Figure(figsize=(2.6 * cols, 3.0 * rows))
    FigureCanvasAgg(fig)
    for k, image_id in enumerate(ids):
        ax = fig.add_subplot(rows, cols, k + 1)
        ax.imshow(corpus.load_image(image_id), interpolation="nearest")
        ax.set_axis_off()
        caption = textwrap.fill(corpus.captions[image_id][0], 30)
        ax.set_title(f"{image_id}\n{caption}", fontsize=7)
    fig.tight_layout()
    run.out.mkdir(parents=True, exist_ok=True)
    path = run.out / "contact_sheet.png"
    atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=100, format="png"))
    run.outputs["contact sheet"] = path
    run.say(with_path(f"wrote contact sheet of {len(ids)} images to ", path))


def stage_features(run: DemoRun) -> None:
    """Image features of every image (codebooks on training images, pyramid histograms)."""
    from kcca._cli.common import cache_from_args
    from kcca._systems.blocks import Workspace

    assert run.corpus is not None  # stage_corpus ran first
    run.workspace = Workspace(run.corpus, cache_from_args(run.args), run.config)
    t = time.perf_counter()
    res = run.workspace.image_features()
    words = (
        {k: cb.n_words for k, cb in res.codebooks.items()}
        if all(hasattr(cb, "n_words") for cb in res.codebooks.values())
        else {}
    )
    run.say(
        f"image features: {len(res.features)} images ({res.n_cached} cached) in "
        f"{time.perf_counter() - t:.1f}s" + (f", codebooks {words}" if words else "")
    )


def stage_kernels(run: DemoRun) -> None:
    """Kernel blocks: pyramid (image), trigram and BoW (text), train x train, dev/test x train."""
    t = time.perf_counter()
    ws = run.workspace
    img = ws.image_blocks(run.systems[0].image_kernel)
    shapes = f"train {img.train.shape}, dev {img.dev.shape}, test {img.test.shape}"
    for spec in run.systems:
        ws.text_blocks(spec.text_kernel, spec.preprocessing, spec.word_kernel)
    run.say(f"kernels: pyramid, trigram, bow ({shapes}) in {time.perf_counter() - t:.1f}s")


def stage_kcca(run: DemoRun) -> None:
    """KCCA grid per (p, d), 15 dev models per task, p/d on dev, Borda on test, metrics."""
    from kcca._systems.runner import run_system

    assert run.corpus is not None  # stage_corpus ran first
    for spec in run.systems:
        res = run_system(run.corpus, spec, workspace=run.workspace)
        run.results.append(res)
        g = spec.grid
        run.say(
            wrap(
                f"{spec.name}: {len(g.kappas)} kappas x {len(g.n_values())} n for each of "
                f"{len(g.p) * len(g.d)} (p, d); chose p={res.chosen['p']:g}, "
                f"d={res.chosen['d']:g} on dev; Borda of 15 models per task "
                f"({sum(res.timings.values()):.1f}s)"
            )
        )


def chance_levels(n: int, ks=(1, 5, 10)) -> dict[str, float]:
    """Expected R@k (percent) and median rank of a random ranking of ``n`` candidates."""
    out = {f"R@{k}": 100.0 * min(k, n) / n for k in ks}
    out["median rank"] = (n + 1) / 2
    return out


def metrics_table(results: list, n_test: int) -> str:
    """Test R@1/5/10 and median rank per task, one row per system, plus chance."""
    cols = ("R@1", "R@5", "R@10", "median rank")
    head = f"{'system':<8} {'task':<11}" + "".join(f"{c:>12}" for c in cols)
    lines = [head, "-" * len(head)]
    chance = chance_levels(n_test)
    for task in ("annotation", "search"):
        for res in results:
            m = res.table()[task]
            lines.append(f"{res.spec.name:<8} {task:<11}" + "".join(f"{m[c]:>12.1f}" for c in cols))
        lines.append(f"{'chance':<8} {task:<11}" + "".join(f"{chance[c]:>12.1f}" for c in cols))
    return "\n".join(lines)


def stage_metrics(run: DemoRun) -> None:
    """Print the test metrics beside chance; write one rankings file per system."""
    assert run.corpus is not None  # stage_corpus ran first
    n = len(run.corpus.split("test"))
    run.say(f"test pool: {n} images, {n} captions (caption #2)")
    run.say(metrics_table(run.results, n))
    run.out.mkdir(parents=True, exist_ok=True)
    for res in run.results:
        path = res.write_rankings(run.out / f"rankings_{res.spec.name}.json", run.corpus)
        run.outputs[f"rankings {res.spec.name}"] = path
    files = [str(run.outputs[f"rankings {res.spec.name}"]) for res in run.results]
    run.say(with_path("wrote rankings to ", run.out))
    if len(run.results) > 1:
        argv, what = [*files, "--compare"], "every metric, each system against the first"
    else:  # kcca evaluate refuses --compare with one file
        argv, what = files, "every metric"
    run.say(command(["kcca", "evaluate", *argv], "next: `", "`"))
    run.say(f"  ({what})")
    from kcca._systems.run import write_all_captions

    for res, path in zip(run.results, files):  # an earlier demo's ranks go when not ranked
        write_all_captions(Path(path), res.spec.name, run.corpus, res.protocol_ranks)
    if run.config.settings.protocol == "all-captions":
        _all_captions_stage(run, files)


def _all_captions_stage(run: DemoRun, files: list[str]) -> None:
    """``--protocol all-captions``: the table of the ranks written beside the rankings files,
    and the command that prints it again."""
    from kcca._evaluate.protocol_ranks import protocol_ranks_of
    from kcca._evaluate.protocol_table import protocol_rows, protocol_text

    assert run.corpus is not None  # stage_corpus ran first
    ranked = [
        (res.spec.name, protocol_ranks_of(res.spec.name, run.corpus, res.protocol_ranks))
        for res in run.results
    ]
    run.say(protocol_text(protocol_rows(ranked)))
    run.say(command(["kcca", "evaluate", "--protocol", "all-captions", *files], "next: `", "`"))


def stage_plot(run: DemoRun) -> None:
    """Write ``recall_at_k.png``: R@k for k = 1..N per task and system, and chance."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from kcca._cache import atomic_write
    from kcca._evaluate.original import original_ranks

    assert run.corpus is not None  # stage_corpus ran first
    n = len(run.corpus.split("test"))
    ks = np.arange(1, n + 1)
    fig = Figure(figsize=(10, 4))
    FigureCanvasAgg(fig)
    for j, task in enumerate(("annotation", "search")):
        ax = fig.add_subplot(1, 2, j + 1)
        for res in run.results:
            ranks = original_ranks(res.rankings[task])
            ax.plot(ks, 100 * (ranks[None, :] <= ks[:, None]).mean(axis=1), label=res.spec.name)
        ax.plot(ks, 100 * ks / n, "k--", label="chance")
        ax.set_xscale("log")
        ax.set_xlabel("k")
        ax.set_ylabel("R@k (%)")
        ax.set_title(f"image {task} (test, {n} queries)")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    path = run.out / "recall_at_k.png"
    atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=100, format="png"))
    run.outputs["R@k plot"] = path
    run.say(with_path("wrote R@k plot to ", path))


def stage_report(run: DemoRun) -> None:
    """Write the HTML report of ``--out`` (``report/index.html``, see ``kcca report``)."""
    from kcca._report import build_report

    path = build_report(run.out, run.out / "report", corpus=run.corpus)
    run.outputs["report"] = path
    run.say(with_path("wrote HTML report to ", path, " (open it in a browser)"))
    run.say(f"demo took {time.perf_counter() - run.started:.1f}s")


STAGES: list[tuple[str, Stage]] = [
    ("experiment files", stage_systems),
    ("corpus", stage_corpus),
    ("summary", stage_summary),
    ("contact sheet", stage_contact_sheet),
    ("image features", stage_features),
    ("kernels", stage_kernels),
    ("KCCA, dev selection, Borda", stage_kcca),
    ("test metrics", stage_metrics),
    ("R@k plot", stage_plot),
    ("HTML report", stage_report),
]
"""The demo's stages in order (see the module docstring)."""


#: the smallest --n-train: the demo grid's smallest n is 5 (:func:`demo_systems`) and the
#: centred training kernels have rank at most n_train - 1 (Section 4.1.3's n is capped at it)
MIN_TRAIN = 6
#: the smallest --image-size (:func:`kcca.data._demo.make_demo_corpus`)
MIN_IMAGE_SIZE = 32
#: the largest --image-size (:data:`kcca.limits.MAX_DEMO_IMAGE_SIZE`)
MAX_IMAGE_SIZE = MAX_DEMO_IMAGE_SIZE


def _bad(option: str, value: Any, need: str, fix: str) -> DataError:
    return DataError(f"{option} must be {need}, got {value!r}", fix=fix)


def check_args(args: argparse.Namespace) -> None:
    """Refuse out-of-range options before any work, naming the option, its value and the valid
    range (:class:`kcca.errors.DataError`, printed as ``error:`` / ``fix:``, exit status 2)."""
    counts = (
        (
            "--n-train",
            args.n_train,
            MIN_TRAIN,
            "the KCCA grid's smallest n is 5 and the centred training kernels have rank "
            "n_train - 1; default 400",
        ),
        ("--n-dev", args.n_dev, 1, "dev selection needs a dev pool; default 100"),
        ("--n-test", args.n_test, 1, "the test metrics need a test pool; default 100"),
        ("--image-size", args.image_size, MIN_IMAGE_SIZE, "pixels; default 64"),
        ("--n-count", args.n_count, 1, "the number of values of n from 5 to --n-train"),
        ("--sheet", args.sheet, 1, "images on the contact sheet; default 12"),
    )
    for option, value, low, why in counts:
        if value is not None and value < low:
            raise _bad(
                option, value, f"an integer >= {low}", f"give {option} {low} or more ({why})"
            )
    if args.image_size > MAX_IMAGE_SIZE:
        raise _bad(
            "--image-size",
            args.image_size,
            f"an integer from {MIN_IMAGE_SIZE} to {MAX_IMAGE_SIZE}",
            f"give --image-size {MAX_IMAGE_SIZE} or less (pixels a side; default 64; kcca "
            "report and kcca evaluate rebuild a demo corpus of at most that size from its name)",
        )
    check_grid_flags(args)
    if args.seed < 0:
        raise _bad("--seed", args.seed, "an integer >= 0", "give --seed 0 or a larger integer")
    if args.jobs == 0:
        raise _bad(
            "--jobs",
            args.jobs,
            "a number of workers >= 1, or -1 for all cores",
            "give --jobs 1 (the default), a larger number, or -1 for all cores",
        )
    out = Path(args.out)
    for folder in (out, *out.parents):  # the nearest existing path must be a folder
        if folder.exists():
            if not folder.is_dir():
                what = "names a file" if folder == out else f"lies under the file {str(folder)!r}"
                raise DataError(
                    f"--out must be a folder (new or existing), but {args.out!r} {what}",
                    fix="give --out a folder path (the default is "
                    "kcca-demo-out), or move the file away",
                )
            break


def run(args: argparse.Namespace) -> int:
    """Run every stage of :data:`STAGES` in order on one shared :class:`DemoRun`."""
    from kcca._cli.environment_faults import check_outputs

    check_args(args)
    check_outputs(args, ("--out", args.out, True))
    experiments = Path(args.experiments) if args.experiments else demo_experiments_dir()
    config = run_config_from_args(
        args, demo_run_table(experiments), backend=backend_from_args(args)
    )
    state = DemoRun(args=args, out=Path(args.out), experiments=experiments, config=config)
    for _name, stage in STAGES:
        stage(state)
    return 0
