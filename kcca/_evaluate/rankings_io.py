"""The rankings file read by ``kcca evaluate``: a system's ranked candidates per query.

Format (JSON, UTF-8)::

    {
      "format": "kcca-rankings", "version": 1,
      "system": "TRI5SEM",                  # free text, optional
      "corpus": "flickr8k", "split": "test", # the pool the ids come from
      "tasks": {
        "annotation": {                      # queries: pool images; candidates: pool captions
          "candidates": ["img1.jpg#2", ...], # optional; default: the pool's order
          "rankings": {"img1.jpg": ["img7.jpg#2", "img1.jpg#2", ...], ...}
        },
        "search": {                          # queries: pool captions; candidates: pool images
          "rankings": {"img1.jpg#2": ["img1.jpg", 42, ...], ...},
          "gold_ties": {"img9.jpg#2": 948, ...}  # optional, see below
        }
      }
    }

A task may be left out. Every pool query must have a ranking, and each ranking must list every
candidate exactly once, best first; an entry is a candidate id or its 0-based index into
``candidates``. A missing or unknown query, a duplicate, missing, out-of-range or unknown
candidate, or a duplicate JSON key is an error naming the query and the id. Nothing is dropped
or re-ordered: rankings are returned as integer arrays with rows in pool query order and
entries as pool candidate indices (docs/design.md#scores-and-rankings).

``gold_ties`` (optional) records, per query, how many other candidates share the original
item's score; they are ranked ahead of it (a tie never favours the original item), so
``kcca evaluate --ties first|mean`` can move the original item to the front or the middle of
its tie. Queries not listed have none; a task without the key has no record. Systems that rank
raw scores (NN, eq. 2) record it; Borda rankings (KCCA) record an empty one, their order being
decided by Borda's own rules (Sec. 4.1.3).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import numpy as np

from kcca.data._errors import DataError
from kcca.data._documents import read_json
from kcca._cache import remove_stale_temp_files, write_text_atomic
from kcca._names import TASKS

FORMAT = "kcca-rankings"
VERSION = 1


@dataclass(frozen=True)
class Rankings:
    """A system's rankings over one pool: ``task -> (n_queries, n_candidates)`` int array."""

    system: str
    split: str
    tasks: Mapping[str, np.ndarray]
    source: str = ""
    meta: Mapping[str, object] = field(default_factory=dict)
    #: task -> (n_queries,) other candidates sharing the original item's score (ranked ahead
    #: of it); tasks without a record are absent
    gold_ties: Mapping[str, np.ndarray] = field(default_factory=dict)


def pool_ids(pool: list[tuple[str, str, str]], task: str) -> tuple[list[str], list[str]]:
    """(query ids, candidate ids) of a task over ``Corpus.pool(split)``."""
    images = [p[0] for p in pool]
    captions = [p[1] for p in pool]
    if task == "annotation":
        return images, captions
    if task == "search":
        return captions, images
    raise DataError(f"unknown task {task!r}: use one of {TASKS}")


def _no_duplicate_keys(path: Path):
    """A JSON object hook refusing a key given twice in one object of ``path``."""

    def hook(pairs):
        out = {}
        for k, v in pairs:
            if k in out:
                raise DataError(f"{path}: duplicate JSON key {k!r}")
            out[k] = v
        return out

    return hook


def parse_task(
    where: str, task: str, block: Mapping, pool: list[tuple[str, str, str]]
) -> np.ndarray:
    """Validate one task block against the pool; return rankings in pool order."""
    queries, pool_candidates = pool_ids(pool, task)
    if not isinstance(block, Mapping) or "rankings" not in block:
        raise DataError(f"{where}: task {task!r} needs a 'rankings' object")
    cands = block.get("candidates", pool_candidates)
    if not isinstance(cands, list) or not all(isinstance(c, str) for c in cands):
        raise DataError(f"{where}: {task} 'candidates' must be a list of ids")
    known = set(pool_candidates)
    seen: set[str] = set()
    for c in cands:
        if c not in known:
            raise DataError(f"{where}: {task} candidate {c!r} is not in the pool")
        if c in seen:
            raise DataError(f"{where}: {task} candidate {c!r} is listed twice in 'candidates'")
        seen.add(c)
    if len(cands) != len(pool_candidates):
        missing = next(c for c in pool_candidates if c not in seen)
        raise DataError(f"{where}: {task} 'candidates' lacks pool candidate {missing!r}")
    to_pool = {c: j for j, c in enumerate(pool_candidates)}
    file_to_pool = [to_pool[c] for c in cands]
    rankings = block["rankings"]
    if not isinstance(rankings, Mapping):
        raise DataError(f"{where}: {task} 'rankings' must map each query id to its ranking")
    qset = set(queries)
    for q in rankings:
        if q not in qset:
            raise DataError(f"{where}: {task} query {q!r} is not in the pool")
    n = len(pool_candidates)
    out = np.empty((len(queries), n), dtype=np.int64)
    for row, q in enumerate(queries):
        if q not in rankings:
            raise DataError(f"{where}: {task} query {q!r} has no ranking")
        ranked = rankings[q]
        if not isinstance(ranked, list):
            raise DataError(f"{where}: {task} query {q!r}: ranking must be a list")
        used = np.zeros(n, dtype=bool)
        if len(ranked) > n:
            raise DataError(
                f"{where}: {task} query {q!r}: {len(ranked)} entries for {n} candidates"
            )
        j: int | None
        for pos, item in enumerate(ranked):
            if isinstance(item, bool) or not isinstance(item, (int, str)):
                raise DataError(
                    f"{where}: {task} query {q!r}, position {pos + 1}: entry "
                    f"{item!r} is neither a candidate id nor an index"
                )
            if isinstance(item, int):
                if not 0 <= item < n:
                    raise DataError(
                        f"{where}: {task} query {q!r}, position {pos + 1}: "
                        f"candidate index {item} is outside 0..{n - 1}"
                    )
                j = file_to_pool[item]
            else:
                j = to_pool.get(item)
                if j is None:
                    raise DataError(
                        f"{where}: {task} query {q!r}, position {pos + 1}: "
                        f"candidate {item!r} is not in the pool"
                    )
            if used[j]:
                raise DataError(
                    f"{where}: {task} query {q!r}, position {pos + 1}: candidate "
                    f"{pool_candidates[j]!r} appears twice"
                )
            used[j] = True
            out[row, pos] = j
        if len(ranked) < n:
            missing = pool_candidates[int(np.flatnonzero(~used)[0])]
            raise DataError(
                f"{where}: {task} query {q!r}: ranking has {len(ranked)} of {n} "
                f"candidates; {missing!r} (and maybe others) is missing"
            )
    return out


def parse_gold_ties(
    where: str, task: str, block: Mapping, rankings: np.ndarray, pool: list[tuple[str, str, str]]
) -> np.ndarray | None:
    """A task block's ``gold_ties`` as (n_queries,) counts in pool order (None when absent);
    a count must be a whole number below the original item's rank."""
    from kcca._evaluate.original import original_ranks

    if "gold_ties" not in block:
        return None
    ties = block["gold_ties"]
    if not isinstance(ties, Mapping):
        raise DataError(f"{where}: {task} 'gold_ties' must map query ids to counts")
    queries, _ = pool_ids(pool, task)
    row = {q: i for i, q in enumerate(queries)}
    ranks = original_ranks(rankings)
    out = np.zeros(len(queries), dtype=np.int64)
    for q, n in ties.items():
        if q not in row:
            raise DataError(f"{where}: {task} 'gold_ties' query {q!r} is not in the pool")
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n < ranks[row[q]]:
            raise DataError(
                f"{where}: {task} 'gold_ties' of query {q!r} is {n!r}: it must be "
                f"a whole number from 0 to {int(ranks[row[q]]) - 1} (the candidates "
                "ranked ahead of the original item)"
            )
        out[row[q]] = n
    return out


def read_rankings(path: str | Path, pool: list[tuple[str, str, str]]) -> Rankings:
    """Read and validate a rankings file against ``pool`` (``Corpus.pool(split)``)."""
    p = Path(path)
    if not p.is_file():
        raise DataError(
            f"rankings file {p} does not exist",
            fix="check the path; rankings files are written by "
            "`kcca reproduce --out DIR` (into DIR/rankings/) and "
            "`kcca demo --out DIR`",
        )
    # a BOM, a non-UTF-8 byte, bad JSON or a duplicate key is named with the file
    data = read_json(p, object_pairs_hook=_no_duplicate_keys(p))
    if not isinstance(data, Mapping) or data.get("format") != FORMAT:
        raise DataError(f'{p}: not a rankings file (expected "format": "{FORMAT}")')
    if data.get("version") != VERSION:
        from kcca.errors import FileVersionError

        raise FileVersionError(
            f"{p}: unsupported rankings version {data.get('version')!r} "
            f"(this reader knows {VERSION})",
            fix="write the rankings again with this version of kcca (re-run the command that "
            "produced them, e.g. `kcca reproduce` or `kcca demo`), or use the kcca version "
            "that wrote the file",
        )
    tasks = data.get("tasks")
    if not isinstance(tasks, Mapping) or not tasks:
        raise DataError(f"{p}: 'tasks' must hold 'annotation' and/or 'search'")
    for t in tasks:
        if t not in TASKS:
            raise DataError(f"{p}: unknown task {t!r}; use {TASKS}")
    parsed = {t: parse_task(str(p), t, tasks[t], pool) for t in TASKS if t in tasks}
    ties = {t: parse_gold_ties(str(p), t, tasks[t], parsed[t], pool) for t in parsed}
    meta = {k: v for k, v in data.items() if k not in ("tasks",)}
    return Rankings(
        str(data.get("system", p.stem)),
        str(data.get("split", "test")),
        parsed,
        str(p),
        meta,
        {t: v for t, v in ties.items() if v is not None},
    )


def write_rankings(
    path: str | Path,
    pool: list[tuple[str, str, str]],
    tasks: Mapping[str, np.ndarray],
    *,
    system: str,
    corpus: str = "flickr8k",
    split: str = "test",
    gold_ties: Mapping[str, np.ndarray] | None = None,
) -> Path:
    """Write integer rankings (rows: pool queries; entries: pool indices) as a rankings file,
    atomically (temp file, then rename); ``gold_ties`` per task (n_queries,) counts, written
    for the queries that have ties."""
    p = Path(path)
    doc: dict = {
        "format": FORMAT,
        "version": VERSION,
        "system": system,
        "corpus": corpus,
        "split": split,
        "tasks": {},
    }
    for task, r in tasks.items():
        queries, cands = pool_ids(pool, task)
        arr = np.asarray(r)
        if arr.shape != (len(queries), len(cands)):
            raise DataError(
                f"{task} rankings have shape {arr.shape}, expected {(len(queries), len(cands))}"
            )
        from kcca._evaluate.original import validate_rankings

        validate_rankings(arr)
        doc["tasks"][task] = {
            "candidates": cands,
            "rankings": {q: [cands[j] for j in row] for q, row in zip(queries, arr.tolist())},
        }
        if gold_ties is not None and task in gold_ties:
            counts = np.asarray(gold_ties[task], dtype=np.int64)
            if counts.shape != (len(queries),):
                raise DataError(
                    f"{task} gold_ties have shape {counts.shape}, expected ({len(queries)},)"
                )
            doc["tasks"][task]["gold_ties"] = {q: int(n) for q, n in zip(queries, counts) if n}
    remove_stale_temp_files(p.parent, recursive=False)
    return write_text_atomic(p, json.dumps(doc))
