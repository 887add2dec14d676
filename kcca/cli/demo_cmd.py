"""``kcca demo``: run the system end to end on the embedded demo corpus (no downloads).

For now the run has three stages: generate the corpus (``--seed``), print a summary (split
sizes, captions, vocabulary, example captions) and write a contact sheet of a few images
with their first caption to ``--out``. It grows into the full pipeline (image and text
features, kernels, KCCA, Borda aggregation, metrics) as those parts land: each later step
is one more function appended to :data:`STAGES`, reading and extending :class:`DemoRun`.
"""

from __future__ import annotations

import argparse
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from kcca.cli.common import subparser
from kcca.data.corpus import Corpus

HELP = "run the pipeline on the embedded demo corpus (procedural images, grammar captions)"


@dataclass
class DemoRun:
    """State shared by the stages of one ``kcca demo`` run."""

    args: argparse.Namespace
    out: Path
    corpus: Corpus | None = None
    outputs: dict[str, Path] = field(default_factory=dict)

    def say(self, text: str = "") -> None:
        print(text)


Stage = Callable[[DemoRun], None]


def add_parser(sub) -> argparse.ArgumentParser:
    p = subparser(sub, "demo", HELP, run)
    p.add_argument("--out", default="kcca-demo-out",
                   help="output folder (default ./kcca-demo-out)")
    p.add_argument("--n-train", type=int, default=600, help="training images (default 600)")
    p.add_argument("--n-dev", type=int, default=200, help="development images (default 200)")
    p.add_argument("--n-test", type=int, default=200, help="test images (default 200)")
    p.add_argument("--image-size", type=int, default=96,
                   help="side of the square images in pixels (default 96)")
    p.add_argument("--sheet", type=int, default=12,
                   help="images on the contact sheet (default 12)")
    return p


# ------------------------------------------------------------------ stages
def stage_corpus(run: DemoRun) -> None:
    """Generate the demo corpus from ``--seed``."""
    from kcca.data.demo import make_demo_corpus

    a = run.args
    run.corpus = make_demo_corpus(n_train=a.n_train, n_dev=a.n_dev, n_test=a.n_test,
                                  image_size=a.image_size, seed=a.seed)


def corpus_vocabulary(corpus: Corpus) -> set[str]:
    """Lower-cased whitespace tokens of every caption (punctuation tokens included)."""
    return {w.lower() for caps in corpus.captions.values() for c in caps for w in c.split()}


def stage_summary(run: DemoRun) -> None:
    """Print split sizes, caption and vocabulary counts, and captions of three images."""
    corpus = run.corpus
    s = corpus.summary()
    run.say(f"demo corpus {corpus.name!r} (seed {run.args.seed})")
    run.say("  splits: " + ", ".join(f"{k} {v}" for k, v in s["splits"].items()))
    run.say(f"  captions: {s['captions']} ({s['images_with_captions']} images x 5)")
    run.say(f"  vocabulary: {len(corpus_vocabulary(corpus))} word types")
    if corpus.crowd is not None:
        n_rel = sum(j.relevant() for j in corpus.crowd.values())
        run.say(f"  synthetic test-pool judgments: {len(corpus.crowd)} pairs, {n_rel} relevant")
    for image_id in corpus.split("train")[:3]:
        spec = corpus.images.spec(image_id)
        run.say(f"  {image_id}: {spec.describe()}")
        for n, text in enumerate(corpus.captions[image_id]):
            run.say(f"    #{n} {text}")


def stage_contact_sheet(run: DemoRun) -> None:
    """Write ``contact_sheet.png``: the first training images with their caption #0."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    corpus = run.corpus
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
    fig.savefig(path, dpi=100)
    run.outputs["contact sheet"] = path
    run.say(f"wrote contact sheet of {len(ids)} images to {path}")


STAGES: list[tuple[str, Stage]] = [
    ("corpus", stage_corpus),
    ("summary", stage_summary),
    ("contact sheet", stage_contact_sheet),
]
"""The demo's stages in order; later issues append features, kernels, KCCA, Borda, metrics."""


def run(args: argparse.Namespace) -> int:
    """Run every stage of :data:`STAGES` in order on one shared :class:`DemoRun`."""
    state = DemoRun(args=args, out=Path(args.out))
    for _name, stage in STAGES:
        stage(state)
    return 0
