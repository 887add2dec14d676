"""What a run folder holds: rankings files, tables, plots, and the corpus they were made on.

A run folder is the ``--out`` of ``kcca demo`` (``rankings_<SYSTEM>.json``, ``*.png``) or of
``kcca reproduce`` (``rankings/<SYSTEM>.json``, ``rankings/details.json``, ``table*.{md,csv}``,
plots). A rankings file is any ``*.json`` directly in the folder or in ``rankings/`` whose
``"format"`` is ``"kcca-rankings"`` (:mod:`kcca._evaluate.rankings_io`); its ``"corpus"`` and
``"split"`` say which pool it ranks, and :func:`load_run_corpus` rebuilds that corpus. A
compact results file (``<SYSTEM>.ranks.npz``, :mod:`kcca._evaluate.compact`) stands in for a
system whose rankings file is absent (the committed results of a fresh clone), and is kept
beside one that is present, for a report made without the data.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from pathlib import Path

from kcca.data._corpus import Corpus
from kcca.data._documents import read_json
from kcca.data._errors import DataError
from kcca._evaluate.rankings_io import FORMAT
from kcca._evaluate.results_files import DETAILS_FILE, RANKINGS_FOLDER, ResultsFile, find_results

#: ``kcca.data._demo.make_demo_corpus`` names its corpus ``demo-TRAIN-DEV-TEST-SIZEpx-sSEED``.
DEMO_NAME = re.compile(r"demo-(\d+)-(\d+)-(\d+)-(\d+)px-s(-?\d+)")


#: a results file found in a run folder (:class:`kcca._evaluate.results_files.ResultsFile`)
RankingsFile = ResultsFile


@dataclass
class RunFolder:
    """The contents of a run folder that the report uses."""

    root: Path
    rankings: list[RankingsFile]
    plots: list[Path] = field(default_factory=list)
    tables_csv: list[Path] = field(default_factory=list)
    tables_md: list[Path] = field(default_factory=list)
    details: list[dict] = field(default_factory=list)

    @property
    def corpus_name(self) -> str:
        return self.rankings[0].corpus

    @property
    def split(self) -> str:
        return self.rankings[0].split


def scan_run_folder(run_dir: str | Path, exclude: Path | None = None) -> RunFolder:
    """Find rankings files, plots (``*.png``, recursively), ``table*.csv`` / ``table*.md``.

    ``exclude`` (the report's own output folder, when inside the run folder) is skipped.
    Errors name the folder and say how to make a run folder.
    """
    root = Path(run_dir)
    fix = (
        f"give the --out folder of `kcca demo --out {root}` or `kcca reproduce --out "
        f"{root}` (e.g. results/hodosh2013)"
    )
    if not root.exists():
        raise DataError(f"run folder {root} does not exist: {fix}")
    if not root.is_dir():
        raise DataError(f"{root} is not a folder: {fix}")
    rankings = find_results(root, root / RANKINGS_FOLDER)
    if not rankings:
        looked = f'looked for *.json and rankings/*.json with "format": "{FORMAT}", and *.ranks.npz'
        if any(root.glob("table*.md")):  # a results folder: never suggest writing a demo into it
            raise DataError(
                f"no rankings files in {root} ({looked}), only tables: remake "
                "them with the data (this rewrites the tables too)",
                fix=f"kcca reproduce --out {root} --force",
            )
        raise DataError(
            f"no rankings files in {root} ({looked}): make a run there with "
            f"`kcca demo --out {root}` or, with the data, `kcca reproduce --out "
            f"{root}`",
            fix=f"kcca demo --out {root}",
        )
    pools = {(r.corpus, r.split) for r in rankings}
    if len(pools) > 1:
        listed = "; ".join(
            f"{r.path.name}: corpus {r.corpus!r}, split {r.split!r}" for r in rankings
        )
        raise DataError(
            f"rankings files in {root} rank different pools ({listed}): put the "
            "runs of one corpus and split in their own folder"
        )
    excluded = exclude.resolve() if exclude is not None else None

    def keep(p: Path) -> bool:
        return excluded is None or excluded not in p.resolve().parents

    plots = [p for p in sorted(root.rglob("*.png")) if p.is_file() and keep(p)]
    details: list[dict] = []
    for path in (root / DETAILS_FILE, root / RANKINGS_FOLDER / DETAILS_FILE):
        if path.is_file():
            try:
                data = read_json(path)
            except (OSError, DataError):  # run details are optional: the report goes on
                continue
            if isinstance(data, list):
                details.extend(d for d in data if isinstance(d, dict))
    return RunFolder(
        root,
        rankings,
        plots,
        sorted(root.glob("table*.csv")),
        sorted(root.glob("table*.md")),
        details,
    )


def read_table_csv(path: Path) -> list[dict[str, str]]:
    """Rows of a ``table,system,task,metric,ours,paper`` CSV written by ``kcca reproduce``."""
    with path.open(newline="", encoding="utf-8") as fh:
        return [row for row in csv.DictReader(fh)]


def table_header_lines(path: Path) -> list[str]:
    """The ``- key: value`` lines at the top of a ``table*.md`` (command, date, commit...)."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            break
        if line.startswith("- "):
            lines.append(line[2:])
    return lines


def load_run_corpus(
    name: str,
    *,
    data_dir: str | Path | None = None,
    seed: int = 0,
    splits_dir: str | Path | None = None,
    source: str = "",
) -> Corpus:
    """The corpus a rankings file names: Flickr 8K, a demo corpus, or a JSON split file.

    ``demo-TRAIN-DEV-TEST-SIZEpx-sSEED`` is regenerated from its sizes and seed within the
    limits of :func:`kcca.data._demo.check_named_demo` (``source``, the file naming it, is
    named when it is over them; plain ``demo`` from ``seed``); ``flickr8k`` is read from
    ``data_dir`` (else ``$KCCA_DATA_DIR``) with images and judgments; ``flickr8k-splits-X``
    (``kcca reproduce --splits X``) needs ``splits_dir``.
    """
    from kcca.data import load_corpus

    flickr8k = name == "flickr8k" or name.startswith("flickr8k-splits-")
    if splits_dir is not None and not flickr8k:
        raise DataError(
            f"--splits replaces the splits of Flickr 8K, and the rankings rank corpus {name!r}",
            fix="drop --splits (it is for rankings made with `kcca reproduce --splits`)",
        )
    m = DEMO_NAME.fullmatch(name)
    if m:
        from kcca.data._demo import check_named_demo, make_demo_corpus

        n_train, n_dev, n_test, size, s = map(int, m.groups())
        check_named_demo(name, n_train, n_dev, n_test, size, source=source)
        return make_demo_corpus(
            n_train=n_train, n_dev=n_dev, n_test=n_test, image_size=size, seed=s
        )
    if name == "demo":
        return load_corpus("demo", seed=seed)
    if flickr8k:
        if name != "flickr8k" and splits_dir is None:
            raise DataError(
                f"the rankings rank corpus {name!r} (Flickr 8K with replaced "
                "splits): pass --splits with the folder given to `kcca reproduce "
                "--splits`"
            )
        from kcca.data._paths import resolve_data_dir

        root = resolve_data_dir(data_dir)
        if splits_dir is not None:
            from kcca.data._flickr8k import load_flickr8k_with_splits

            return load_flickr8k_with_splits(root, splits_dir)
        return load_corpus("flickr8k", root, lemmas=False)
    if name.endswith(".json"):
        return load_corpus(name)
    raise DataError(
        f"rankings name corpus {name!r}, which the report cannot rebuild: pass "
        "--corpus flickr8k, demo, or a JSON split file"
    )
