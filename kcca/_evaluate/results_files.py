"""The files of a rankings folder: each system's results files, rankings files
(:mod:`.rankings_io`) and compact results files (:mod:`.compact`), and the run details beside
them (``details.json``).

A rankings file is a ``*.json`` whose ``"format"`` is ``"kcca-rankings"``; its header fields
(``format``, ``version``, ``system``, ``corpus``, ``split``) come before ``"tasks"``, so only
its first bytes are read to recognise it. A compact results file (``<SYSTEM>.ranks.npz``)
stands in for a system whose rankings file is absent, and is kept beside one that is present.
:func:`find_results` is the one place that looks for them.

``details.json`` holds one entry per system run into the folder (the settings chosen on dev,
the grid searched, the command and date): the runner adds to it (:func:`merge_details`, under
a lock on the folder shared by concurrent runs, which leaves no file behind) and the reports
read it (:func:`read_details`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from kcca._atomic_files import write_text_atomic
from kcca.data._documents import read_json
from kcca.data._errors import DataError
from kcca._evaluate.compact import SUFFIX, compact_path, read_compact
from kcca._evaluate.paper_systems import SYSTEMS, paper_name
from kcca._evaluate.rankings_io import FORMAT

log = logging.getLogger(__name__)

#: the folder of a ``kcca reproduce`` run folder that holds its rankings
RANKINGS_FOLDER = "rankings"
#: the run details beside the rankings
DETAILS_FILE = "details.json"

#: bytes read to recognise a rankings file by its header
HEAD_BYTES = 4096
_FIELD = re.compile(r'"(format|version|system|corpus|split)"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)')


def read_header(path: str | Path) -> dict | None:
    """The top-level fields of a rankings file (``None`` when it is not one).

    Files written by :func:`kcca._evaluate.rankings_io.write_rankings` put these fields before
    ``"tasks"``, so only the first bytes are read; otherwise the whole file is parsed (a file
    that looks like a rankings file but cannot be read is a :class:`DataError`).
    """
    path = Path(path)
    try:
        with path.open("rb") as fh:
            head = fh.read(HEAD_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    if '"format"' not in head or FORMAT not in head:
        return None
    cut = head.find('"tasks"')
    if cut >= 0:
        fields = {k: json.loads(v) for k, v in _FIELD.findall(head[:cut])}
        return fields if fields.get("format") == FORMAT else None
    try:
        data = read_json(path)
    except OSError as exc:
        raise DataError(f"{path}: looks like a rankings file but cannot be read ({exc})") from None
    except DataError as exc:
        raise DataError(
            f"looks like a rankings file but cannot be read: {exc}", fix=exc.fix
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    return {k: v for k, v in data.items() if k != "tasks"}


@dataclass(frozen=True)
class ResultsFile:
    """A system's results file found in a folder, with its header fields (not yet
    validated)."""

    path: Path
    system: str
    corpus: str
    split: str
    #: the compact results file of the same system (``path`` itself when it is one)
    compact: Path | None = None

    @property
    def is_compact(self) -> bool:
        return self.compact is not None and self.compact == self.path


def find_results(*folders: str | Path, tolerant: bool = False) -> list[ResultsFile]:
    """The results files of each folder in turn (not its subfolders), sorted by path within a
    folder: its rankings files, and the compact results files of systems without a rankings
    file beside them. A run folder's are ``find_results(run, run / RANKINGS_FOLDER)``.

    An unreadable compact file is a :class:`DataError`, or with ``tolerant`` an entry named
    after the file (reading it later gives the error)."""
    return [f for folder in folders for f in _results_in(Path(folder), tolerant)]


def _results_in(folder: Path, tolerant: bool) -> list[ResultsFile]:
    found = []
    for path in sorted(folder.glob("*.json")):
        head = read_header(path)
        if head is None:
            continue
        compact = compact_path(path)
        found.append(
            ResultsFile(
                path,
                str(head.get("system") or path.stem),
                str(head.get("corpus") or "flickr8k"),
                str(head.get("split") or "test"),
                compact if compact.is_file() else None,
            )
        )
    beside = {f.compact for f in found}
    for path in sorted(folder.glob("*" + SUFFIX)):
        if path in beside:
            continue
        try:
            c = read_compact(path)
        except DataError:
            if not tolerant:
                raise
            found.append(ResultsFile(path, path.name[: -len(SUFFIX)], "flickr8k", "test", path))
            continue
        found.append(ResultsFile(path, c.system, c.corpus or "flickr8k", c.split, path))
    return sorted(found, key=lambda f: f.path)


# ------------------------------------------------------------------------ run details
def read_details(rankings_dir: str | Path) -> dict[str, dict]:
    """Per system (:func:`~kcca._evaluate.paper_systems.paper_name`), the run details written
    beside the rankings (``details.json``); an unreadable file is logged and read as empty."""
    path = Path(rankings_dir) / DETAILS_FILE
    out: dict[str, dict] = {}
    if path.is_file():
        try:
            data = read_json(path)
        except (OSError, DataError) as exc:
            log.warning("%s: %s", path, exc)
            return out
        for d in data if isinstance(data, list) else []:
            if isinstance(d, dict) and "system" in d:
                out[paper_name(str(d["system"]))] = d
    return out


def merge_details(rankings_dir: str | Path, new: Sequence[dict]) -> Path:
    """Add (or replace, by system) entries of ``details.json``, in the paper's order of
    systems (:data:`~kcca._evaluate.paper_systems.SYSTEMS`), then others by name; written
    atomically, under a lock on the folder shared by the processes writing into it."""
    from kcca._evaluate.formatting import clean_numbers  # pulls in scipy: only when writing

    path = Path(rankings_dir) / DETAILS_FILE
    with _exclusive(path.parent):
        merged = read_details(rankings_dir)
        for d in new:
            merged[paper_name(str(d["system"]))] = d
        order = {s: i for i, s in enumerate(SYSTEMS)}
        data = sorted(
            merged.values(),
            key=lambda d: (order.get(paper_name(d["system"]), 99), str(d["system"])),
        )
        write_text_atomic(path, json.dumps(clean_numbers(data), indent=1, default=str))
    return path


@contextlib.contextmanager
def _exclusive(folder: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``folder`` itself, so that concurrent ``kcca reproduce``
    processes sharing a rankings folder do not lose each other's ``details.json`` entries.

    The lock is taken on the folder's own descriptor: no lock file is created, so none is left
    behind when the run ends.
    """
    try:
        import fcntl
    except ImportError:  # no POSIX locks (Windows): one process per rankings folder
        yield
        return
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing the last descriptor releases the lock


def chosen_text(chosen: dict | None) -> str:
    """A run's settings chosen on dev (the ``chosen`` entry of its details): ``p=2, d=3`` for
    KCCA, followed by :func:`combination_text` when the dev split chose how many models to
    combine; the text kernel for NN; '' when unknown."""
    if not chosen:
        return ""
    if "p" in chosen:
        pd = f"p={chosen['p']:g}, d={chosen['d']:g}"
        combination = chosen.get("combination")
        return f"{pd}, {combination_text(combination)}" if combination else pd
    tk = chosen.get("text_kernel", {})
    params = tk.get("params") or ""
    return f"NN, text kernel {tk.get('name')} {params}".strip()


def combination_text(combination: dict) -> str:
    """The models combined per task when the dev split chose their number (``combination``
    of a run's ``chosen`` entry), with the dev figures behind the choice: ``annotation: the
    best model alone (dev R@1+R@5+R@10 of the best 1 / 3 models: 170.2 / 168.0)``."""
    parts = []
    for task, c in combination.items():
        tried = c.get("candidates") or []
        kept = (
            "the best model alone"
            if c.get("models") == 1
            else f"Borda count of the best {c.get('models')}"
        )
        sizes = " / ".join(str(t.get("models")) for t in tried)
        scores = " / ".join(f"{t.get('dev R@1+R@5+R@10', float('nan')):.1f}" for t in tried)
        parts.append(f"{task}: {kept} ({c.get('by', 'dev')} of the best {sizes} models: {scores})")
    return "; ".join(parts)
