"""The all-captions ranks file: a system's ranks under the literature's retrieval protocol.

A run with ``--protocol all-captions`` ranks, besides the paper's one-caption pool, every test
image against the first five captions of every test image
(:mod:`kcca._evaluate.retrieval_protocol`). Borda points depend on the pool, so each pool the
literature reports is ranked on its own: the whole test set ("1K" on Flickr 8K/30K, "5K" on
COCO) and, when it has more than 1,000 images in whole thousands, folds of 1,000 consecutive
images (COCO "1K", five folds). What is kept per pool and fold is what the protocol's figures
are computed from: the 1-based rank of each image's best caption (annotation, i2t) and of each
caption's image (search, t2i). Written beside the rankings file as
``<SYSTEM>.all-captions.json``::

    {
      "format": "kcca-all-captions-ranks", "version": 1,
      "system": "BoW5", "corpus": "flickr8k", "split": "test",
      "captions_per_image": 5, "ties": "reversed-argsort",
      "images": ["img1.jpg", ...],            # the test images, in pool order
      "pools": [
        {"n_folds": 1, "folds": [{"annotation": [3, 1, ...], "search": [12, 1, ...]}]},
        {"n_folds": 5, "folds": [...]}
      ]
    }

Fold ``f`` of ``n_folds`` holds images ``f * size .. (f + 1) * size - 1`` (``size = n_images /
n_folds``) and their captions, ``captions_per_image`` consecutive ones per image, so its
annotation list has ``size`` ranks in ``1 .. size * captions_per_image`` and its search list
``size * captions_per_image`` ranks in ``1 .. size``. :func:`read_protocol_ranks` checks all of
it; the file is data only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np

from kcca._cache import remove_stale_temp_files, write_text_atomic
from kcca.data._documents import read_json
from kcca.data._errors import DataError
from kcca._evaluate.retrieval_protocol import (
    CAPTIONS_PER_IMAGE,
    TIE_RULES,
    RetrievalProtocolResult,
    fold_slices,
    metrics_over_folds,
)

if TYPE_CHECKING:
    from kcca.data._corpus import Corpus

FORMAT = "kcca-all-captions-ranks"
VERSION = 1
#: suffix of the file beside ``<SYSTEM>.json``
SUFFIX = ".all-captions.json"
#: images per fold of the literature's "1K" figures on larger test sets (COCO)
FOLD_SIZE = 1000

#: per fold, (annotation ranks, search ranks), 1-based
FoldRanks = tuple[np.ndarray, np.ndarray]
#: per pool (its fold count), the ranks of each fold
PoolRanks = dict[int, list[FoldRanks]]


def pool_fold_counts(n_images: int, fold_size: int | None = None) -> tuple[int, ...]:
    """The pools the literature reports for ``n_images`` test images, as fold counts: the whole
    set (1) and, for more than ``fold_size`` images (default :data:`FOLD_SIZE`) in whole
    multiples of it, folds of ``fold_size`` (COCO's 5,000: ``(1, 5)``, "5K" and "1K")."""
    size = FOLD_SIZE if fold_size is None else fold_size
    if n_images > size and n_images % size == 0:
        return (1, n_images // size)
    return (1,)


def protocol_ranks_path(results_path: str | Path) -> Path:
    """``<SYSTEM>.all-captions.json`` beside the system's rankings file ``<SYSTEM>.json`` or
    compact results file ``<SYSTEM>.ranks.npz``."""
    p = Path(results_path)
    for suffix in (SUFFIX, ".ranks.npz", ".json"):
        if p.name.endswith(suffix):
            return p.with_name(p.name[: -len(suffix)] + SUFFIX)
    return p.with_name(p.name + SUFFIX)


@dataclass(frozen=True)
class ProtocolRanks:
    """One system's all-captions ranks (module docstring): ``pools`` maps a fold count to the
    ``(annotation, search)`` ranks of each fold."""

    system: str
    corpus: str
    split: str
    images: tuple[str, ...]
    captions_per_image: int
    ties: str
    pools: Mapping[int, Sequence[FoldRanks]]

    def results(self) -> list[RetrievalProtocolResult]:
        """The protocol's figures of each pool (whole set first), named by
        :func:`kcca._evaluate.retrieval_protocol.protocol_name`."""
        n = len(self.images)
        return [
            metrics_over_folds(
                folds, n_images=n, n_captions=n * self.captions_per_image, ties=self.ties
            )
            for _, folds in sorted(self.pools.items())
        ]


def protocol_ranks_of(
    system: str, corpus: Corpus, pools: Mapping[int, Sequence[FoldRanks]], split: str = "test"
) -> ProtocolRanks:
    """The :class:`ProtocolRanks` of a run's ``pools`` on ``corpus``'s ``split``, ranked with
    the literature's tie rule and five captions per image
    (:mod:`kcca._systems.all_captions`)."""
    return ProtocolRanks(
        system,
        corpus.name,
        split,
        tuple(corpus.split(split)),
        CAPTIONS_PER_IMAGE,
        TIE_RULES[0],
        dict(pools),
    )


def write_protocol_ranks(path: str | Path, ranks: ProtocolRanks) -> Path:
    """Write ``ranks`` (checked as :func:`read_protocol_ranks` checks them) atomically."""
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "system": ranks.system,
        "corpus": ranks.corpus,
        "split": ranks.split,
        "captions_per_image": int(ranks.captions_per_image),
        "ties": ranks.ties,
        "images": list(ranks.images),
        "pools": [
            {
                "n_folds": int(n_folds),
                "folds": [
                    {"annotation": np.asarray(a).tolist(), "search": np.asarray(s).tolist()}
                    for a, s in folds
                ],
            }
            for n_folds, folds in sorted(ranks.pools.items())
        ],
    }
    _checked(doc, Path(path))
    p = Path(path)
    remove_stale_temp_files(p.parent, recursive=False)
    return write_text_atomic(p, json.dumps(doc))


def rerun_with_protocol(results_file: str | Path, system: str = "") -> str:
    """The ``fix:`` of a system without (usable) all-captions ranks: the command that ran it
    (``details.json`` beside its results file) again with ``--protocol all-captions`` and
    ``--force``, else the command with the folder filled in. ``system``: its name when the
    results file does not say it (an all-captions ranks file)."""
    import shlex

    from kcca._evaluate.paper_systems import paper_name
    from kcca._evaluate.results_files import read_details, read_header

    path = Path(results_file)
    folder = path.parent
    if not system:
        try:
            system = str((read_header(path) or {}).get("system") or "")
        except DataError:  # an unreadable file only loses the hint
            pass
    command = str(read_details(folder).get(paper_name(system), {}).get("command") or "")
    if command.startswith("kcca reproduce") and "--protocol" not in command:
        force = "" if " --force" in command else " --force"
        return f"run the system again with the protocol: {command} --protocol all-captions{force}"
    name = shlex.quote(system) if system else "SYSTEM"
    return (
        f"run the system with `kcca reproduce --systems {name} --protocol all-captions "
        f"--experiments DIR --rankings-dir {shlex.quote(str(folder))} --out DIR --force`"
    )


def remove_protocol_ranks(path: str | Path) -> bool:
    """Remove ``path`` when it is an all-captions ranks file (its header says so); anything
    else there is left alone. Returns whether a file was removed."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            head = fh.read(256).decode("utf-8", errors="replace")
    except OSError:
        return False
    if not head.startswith('{"format": "' + FORMAT + '"'):
        return False
    p.unlink()
    return True


def read_protocol_ranks(path: str | Path) -> ProtocolRanks:
    """Read and check an all-captions ranks file; every fault is a :class:`DataError` naming
    the file and the field."""
    p = Path(path)
    try:
        doc = read_json(p)
    except OSError as exc:
        raise DataError(
            f"cannot read the all-captions ranks file {p}: {exc.strerror or exc}",
            fix="run the system with `kcca reproduce --protocol all-captions` to write it",
        ) from None
    return _checked(doc, p)


def _fail(path: Path, what: str, system: Any = "") -> DataError:
    return DataError(
        f"{path}: {what}",
        fix=rerun_with_protocol(path, system if isinstance(system, str) else ""),
    )


def _checked(doc: Any, path: Path) -> ProtocolRanks:
    system = doc.get("system", "") if isinstance(doc, dict) else ""

    def fail(what: str) -> DataError:
        return _fail(path, what, system)

    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise fail(f'not an all-captions ranks file (no "format": "{FORMAT}")')
    if doc.get("version") != VERSION:
        raise fail(f"unsupported version {doc.get('version')!r} (this toolkit reads {VERSION})")
    for key in ("system", "corpus", "split", "ties"):
        if not isinstance(doc.get(key), str):
            raise fail(f"{key!r} must be a string")
    if doc["ties"] not in TIE_RULES:
        raise fail(f"unknown tie rule {doc['ties']!r} (one of {', '.join(TIE_RULES)})")
    per_image = doc.get("captions_per_image")
    if isinstance(per_image, bool) or not isinstance(per_image, int) or per_image < 1:
        raise fail(f"captions_per_image must be a positive integer, got {per_image!r}")
    images = doc.get("images")
    if not isinstance(images, list) or not images or not all(isinstance(i, str) for i in images):
        raise fail("'images' must be a non-empty list of image ids")
    if len(set(images)) != len(images):
        raise fail("'images' lists an image id twice")
    pools_doc = doc.get("pools")
    if not isinstance(pools_doc, list) or not pools_doc:
        raise fail("'pools' must be a non-empty list")
    pools: dict[int, list[FoldRanks]] = {}
    for i, pool in enumerate(pools_doc):
        n_folds, folds = _checked_pool(pool, i, len(images), per_image, fail)
        if n_folds in pools:
            raise fail(f"pools[{i}]: a second pool of {n_folds} fold(s)")
        pools[n_folds] = folds
    return ProtocolRanks(
        doc["system"],
        doc["corpus"],
        doc["split"],
        tuple(images),
        per_image,
        doc["ties"],
        pools,
    )


def _checked_pool(
    pool: Any, i: int, n_images: int, per_image: int, fail: Callable[[str], DataError]
) -> tuple[int, list[FoldRanks]]:
    where = f"pools[{i}]"
    if not isinstance(pool, dict):
        raise fail(f"{where} must be an object")
    n_folds = pool.get("n_folds")
    if isinstance(n_folds, bool) or not isinstance(n_folds, int) or n_folds < 1:
        raise fail(f"{where}.n_folds must be a positive integer, got {n_folds!r}")
    try:
        slices = fold_slices(n_images, n_folds)
    except DataError as exc:
        raise fail(f"{where}: {exc}") from None
    folds = pool.get("folds")
    if not isinstance(folds, list) or len(folds) != n_folds:
        raise fail(f"{where}.folds must be a list of {n_folds} fold(s)")
    size = slices[0].stop - slices[0].start
    out = []
    for f, fold in enumerate(folds):
        if not isinstance(fold, dict):
            raise fail(f"{where}.folds[{f}] must be an object")
        out.append(
            (
                _checked_ranks(
                    fold.get("annotation"),
                    size,
                    size * per_image,
                    f"{where}.folds[{f}].annotation",
                    fail,
                ),
                _checked_ranks(
                    fold.get("search"), size * per_image, size, f"{where}.folds[{f}].search", fail
                ),
            )
        )
    return n_folds, out


def _checked_ranks(
    values: Any, length: int, largest: int, where: str, fail: Callable[[str], DataError]
) -> np.ndarray:
    """A list of ``length`` integer ranks in ``1 .. largest``."""
    if not isinstance(values, list) or len(values) != length:
        raise fail(f"{where} must be a list of {length} ranks")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise fail(f"{where} must hold integers only")
    for j, v in enumerate(values):  # in Python: a 400-digit integer is out of range too
        if not 1 <= v <= largest:
            raise fail(f"{where}[{j}] = {v} is not a rank in 1..{largest}")
    return np.asarray(values, dtype=np.int64)
