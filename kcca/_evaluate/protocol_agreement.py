"""An all-captions ranks file checked against the results file beside it.

A run writes both files of a system at once: ``<SYSTEM>.json`` (or its compact form
``<SYSTEM>.ranks.npz``) under the paper's protocol, ``<SYSTEM>.all-captions.json`` under the
literature's (:mod:`kcca._evaluate.protocol_ranks`). What they hold in common must agree: the
system, the split, the test images in pool order, and the image search rank of each pool
caption (the corpus is not compared: results committed without the data may name it
otherwise). The all-captions pool ranks every test image for every one of the first five
captions of each image, so a caption of the paper's pool (``IMAGE#2`` by default) is a query of
both, against the same images: its rank in the whole pool of the all-captions file is its rank
in the paper's file, or, where other images share its image's score (``gold_ties``), within
that tie. A file that disagrees comes from another run or was changed: it is refused, naming
both files.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from kcca.data._documents import read_json
from kcca.data._errors import DataError
from kcca._evaluate.protocol_ranks import SUFFIX, ProtocolRanks, rerun_with_protocol


@dataclass(frozen=True)
class PaperPool:
    """What a results file holds that the all-captions ranks share: its header's ``system``
    and ``split`` (``""`` when it does not say), the pool's ``images`` in order, and, when it
    has the search task, each image's pool ``captions``, their 1-based image search ranks
    (``search``) and the images tied with the right one (``ties``)."""

    system: str
    split: str
    images: list[str]
    captions: list[str]
    search: np.ndarray | None
    ties: np.ndarray | None


def results_beside(ranks_path: str | Path) -> Path | None:
    """The results file beside ``<SYSTEM>.all-captions.json``: the rankings file
    ``<SYSTEM>.json``, else the compact file ``<SYSTEM>.ranks.npz``; ``None`` when neither
    is there."""
    from kcca._evaluate.compact import SUFFIX as COMPACT
    from kcca._evaluate.results_files import read_header

    p = Path(ranks_path)
    stem = p.name[: -len(SUFFIX)] if p.name.endswith(SUFFIX) else p.stem
    rankings = p.with_name(stem + ".json")
    if rankings.is_file() and read_header(rankings) is not None:
        return rankings
    compact = p.with_name(stem + COMPACT)
    return compact if compact.is_file() else None


def read_paper_pool(path: str | Path) -> PaperPool:
    """The :class:`PaperPool` of a rankings file or a compact results file (checked as
    :func:`kcca._evaluate.rankings_io.read_rankings` and
    :func:`kcca._evaluate.compact.read_compact` check them)."""
    from kcca._evaluate.compact import is_compact, read_compact

    p = Path(path)
    if not is_compact(p):
        return _rankings_pool(p)
    c = read_compact(p)
    if "search" not in c.gold:
        return PaperPool(c.system, c.split, list(c.query_ids["annotation"]), [], None, None)
    ties = c.gold_ties.get("search")
    return PaperPool(
        c.system,
        c.split,
        list(c.candidate_ids["search"]),
        list(c.query_ids["search"]),
        c.gold["search"],
        np.zeros_like(c.gold["search"]) if ties is None else ties,
    )


def _rankings_pool(path: Path) -> PaperPool:
    """:func:`read_paper_pool` of a rankings file: the pool is the one its search task
    ranks (its candidates, and the query naming each)."""
    from kcca._evaluate.original import original_ranks
    from kcca._evaluate.rankings_io import FORMAT, parse_gold_ties, parse_task

    doc = read_json(path)
    if not isinstance(doc, Mapping) or doc.get("format") != FORMAT:
        raise DataError(f'{path}: not a rankings file (expected "format": "{FORMAT}")')
    header = {k: str(doc.get(k) or "") for k in ("system", "split")}
    found = doc.get("tasks")
    tasks: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    block = tasks.get("search")
    if not isinstance(block, Mapping) or not isinstance(block.get("rankings"), Mapping):
        annotation = tasks.get("annotation")
        queries = annotation.get("rankings") if isinstance(annotation, Mapping) else None
        images = [str(q) for q in queries] if isinstance(queries, Mapping) else []
        return PaperPool(**header, images=images, captions=[], search=None, ties=None)
    caption_of = {str(q).rpartition("#")[0]: str(q) for q in block["rankings"]}
    candidates = block.get("candidates")
    images = list(candidates) if isinstance(candidates, list) else list(caption_of)
    pool = [(str(i), caption_of.get(str(i), f"{i}#?"), "") for i in images]
    rankings = parse_task(str(path), "search", block, pool)
    ties = parse_gold_ties(str(path), "search", block, rankings, pool)
    return PaperPool(
        **header,
        images=[p[0] for p in pool],
        captions=[p[1] for p in pool],
        search=original_ranks(rankings),
        ties=np.zeros(len(pool), dtype=np.int64) if ties is None else ties,
    )


def check_agreement(
    ranks: ProtocolRanks, ranks_path: str | Path, results_path: str | Path, system: str = ""
) -> None:
    """Refuse an all-captions ranks file that disagrees with the system's results file
    beside it (module docstring): a :class:`~kcca.errors.DataError` naming both files and
    what differs, whose fix runs the system again with the protocol."""
    from kcca._evaluate.paper_systems import paper_name

    pool = read_paper_pool(results_path)
    differs = _header_difference(ranks, pool, paper_name)
    if differs is None:
        differs = _image_difference(ranks, pool) or _search_difference(ranks, pool)
    if differs is not None:
        raise DataError(
            f"{ranks_path} disagrees with the results file beside it, {results_path}: "
            f"{differs}; the two come from different runs, or one was changed",
            fix=rerun_with_protocol(results_path, system or pool.system or ranks.system),
        )


def _header_difference(ranks: ProtocolRanks, pool: PaperPool, paper_name: Any) -> str | None:
    """A system or split that differs, said in words; ``None`` when both agree."""
    if pool.system and paper_name(pool.system) != paper_name(ranks.system):
        return f"the ranks are of system {ranks.system!r}, the results of {pool.system!r}"
    if pool.split and pool.split != ranks.split:
        return f"the ranks are of split {ranks.split!r}, the results of {pool.split!r}"
    return None


def _image_difference(ranks: ProtocolRanks, pool: PaperPool) -> str | None:
    """The first test image (or the image count) that differs; ``None`` when all agree."""
    if list(ranks.images) == pool.images:
        return None
    if len(ranks.images) != len(pool.images):
        return (
            f"the ranks are of {len(ranks.images)} test images, the results of {len(pool.images)}"
        )
    at = next(i for i, (a, b) in enumerate(zip(ranks.images, pool.images)) if a != b)
    return (
        f"test image {at + 1} of the pool is {ranks.images[at]!r} in the ranks, "
        f"{pool.images[at]!r} in the results"
    )


def _search_difference(ranks: ProtocolRanks, pool: PaperPool) -> str | None:
    """The first pool caption whose image search rank in the whole all-captions pool is not
    its rank in the results (within its tie); ``None`` when all agree."""
    if pool.search is None or pool.ties is None or 1 not in ranks.pools:
        return None
    ((_, search),) = ranks.pools[1]
    per_image = ranks.captions_per_image
    for i, caption in enumerate(pool.captions):
        index = caption.rpartition("#")[2]
        if not index.isdigit() or int(index) >= per_image:
            continue  # not one of the first captions the all-captions pool holds
        ours = int(search[i * per_image + int(index)])
        theirs, tied = int(pool.search[i]), int(pool.ties[i])
        if not theirs - tied <= ours <= theirs:
            within = f" (or {theirs - tied} to {theirs} within its tie)" if tied else ""
            return (
                f"caption {caption!r} ranks its image {ours} in the all-captions pool but "
                f"{theirs}{within} in the results' pool, which ranks the same images for it"
            )
    return None
