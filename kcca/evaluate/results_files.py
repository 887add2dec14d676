"""Finding a system's results files in a folder: rankings files (:mod:`.rankings_io`) and
compact results files (:mod:`.compact`).

A rankings file is a ``*.json`` whose ``"format"`` is ``"kcca-rankings"``; its header fields
(``format``, ``version``, ``system``, ``corpus``, ``split``) come before ``"tasks"``, so only
its first bytes are read to recognise it. A compact results file (``<SYSTEM>.ranks.npz``)
stands in for a system whose rankings file is absent, and is kept beside one that is present.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from kcca.data.documents import read_json
from kcca.data.errors import DataError
from kcca.evaluate.compact import SUFFIX, compact_path, read_compact
from kcca.evaluate.rankings_io import FORMAT

#: bytes read to recognise a rankings file by its header
HEAD_BYTES = 4096
_FIELD = re.compile(r'"(format|version|system|corpus|split)"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)')


def read_header(path: str | Path) -> dict | None:
    """The top-level fields of a rankings file (``None`` when it is not one).

    Files written by :func:`kcca.evaluate.rankings_io.write_rankings` put these fields before
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


def find_results(folder: str | Path, *, tolerant: bool = False) -> list[ResultsFile]:
    """The rankings files of ``folder`` (not its subfolders) and the compact results files of
    systems without a rankings file beside them, sorted by path.

    An unreadable compact file is a :class:`DataError`, or with ``tolerant`` an entry named
    after the file (reading it later gives the error)."""
    folder = Path(folder)
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
