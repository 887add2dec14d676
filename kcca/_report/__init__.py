"""A static HTML report of a run folder (``kcca report RUN_DIR -o OUT``).

:mod:`~kcca._report.rundir` finds the rankings files, tables and plots of a run folder and
rebuilds its corpus (:mod:`~kcca._report.run_corpus`: the captions JSON of a run made on
one); :mod:`~kcca._report.gather` evaluates every system and collects the per-query top-k
with judgments; :mod:`~kcca._report.assets` writes thumbnails and copies plots;
:mod:`~kcca._report.render` writes the page (summary beside the paper, plots, a query browser
in plain JavaScript); :mod:`~kcca._report.legend` defines each metric it shows and says where
the judgments come from (human for Flickr 8K, synthetic for the demo);
:mod:`~kcca._report.all_captions` adds the literature's all-captions protocol when the run was
ranked under it (``<SYSTEM>.all-captions.json`` beside the rankings). The page needs no
server and loads nothing from the network. :mod:`~kcca._report.browser` opens a page in
headless Chromium (screenshots, tests).
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

from kcca.data._corpus import Corpus
from kcca._cache import write_text_atomic
from kcca.errors import DataFolderNotGiven

__all__ = ["build_report"]


def build_report(
    run_dir: str | Path,
    out_dir: str | Path | None = None,
    *,
    corpus: Corpus | None = None,
    corpus_name: str | None = None,
    images_dir: str | Path | None = None,
    data_dir: str | Path | None = None,
    splits_dir: str | Path | None = None,
    seed: int = 0,
    top_k: int = 10,
    thumb_size: int = 128,
    embed: bool = False,
    relevance: str = "paper",
    progress: bool = False,
) -> Path:
    """Write ``out_dir/index.html`` (default ``run_dir/report``) and return its path.

    The corpus is ``corpus`` when given, else rebuilt from ``corpus_name``, from the captions
    JSON the run's recorded command names, or from the name the rankings files record
    (:func:`kcca._report.run_corpus.report_corpus`; ``images_dir``: the image folder of a
    captions JSON, without which the page shows image ids for thumbnails). When the data
    folder is not found but every system has a compact results file (the committed results
    of a fresh clone), the page is made from those: ids for captions and images, no
    judgment marks, and a note saying how to get the data. ``embed`` inlines
    thumbnails and plots as data URIs (one file); otherwise they go to ``thumbs/`` and
    ``plots/`` beside the page.
    """
    from kcca._report.assets import copy_plots, write_thumbnails
    from kcca._report.gather import gather
    from kcca._report.render import render_page
    from kcca._report.run_corpus import recorded_images_dir, report_corpus
    from kcca._report.rundir import scan_run_folder

    root = Path(run_dir)
    out = Path(out_dir) if out_dir is not None else root / "report"
    same = out.resolve() == root.resolve()
    run = scan_run_folder(root, exclude=out / "plots" if same else out)
    if corpus is None:
        try:
            corpus = report_corpus(
                run,
                corpus_name=corpus_name,
                images_dir=images_dir,
                data_dir=data_dir,
                seed=seed,
                splits_dir=splits_dir,
            )
        except DataFolderNotGiven:
            if not all(r.compact is not None for r in run.rankings):
                raise
            warn_without_data(progress)
    data = gather(run, corpus, top_k=top_k, relevance=relevance, progress=progress)
    out.mkdir(parents=True, exist_ok=True)
    if corpus is not None and corpus.images is None:
        warn_without_images(progress, recorded_images_dir(run))
    thumbs = (
        write_thumbnails(
            data.image_ids, corpus.load_image, out, size=thumb_size, embed=embed, progress=progress
        )
        if corpus is not None and corpus.images is not None
        else [""] * len(data.image_ids)
    )
    plots = copy_plots(data.plots, root, out, embed=embed)
    page = render_page(
        data, thumbs, plots, generated=_dt.datetime.now().isoformat(timespec="seconds")
    )
    path = out / "index.html"
    return write_text_atomic(path, page)


def warn_without_data(enabled: bool = True) -> None:
    """Say on stderr that the report is made from compact results, and how to get the rest."""
    import sys

    if enabled:
        print(
            "note: no data folder (--data-dir or $KCCA_DATA_DIR): the report shows ids "
            "instead of captions and images, without judgment marks; data/README.md says "
            "how to get the data",
            file=sys.stderr,
        )


def warn_without_images(enabled: bool = True, recorded: Path | None = None) -> None:
    """Say on stderr that the corpus was read without its images, so the page shows ids, and
    the image folder the run was made with (``recorded``), which is read only when given."""
    import shlex
    import sys

    if enabled:
        made = (
            f"; the run was made with --images-dir {shlex.quote(str(recorded))}" if recorded else ""
        )
        print(
            "note: the corpus was read without its images: the report shows image ids "
            "instead of thumbnails (--images-dir DIR, the captions JSON's image folder, "
            f"adds them{made})",
            file=sys.stderr,
        )
