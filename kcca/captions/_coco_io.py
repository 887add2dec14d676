"""COCO caption JSON: annotation files (references), result files (candidates), per-item output.

Formats (Chen et al. 2015, Section 5, and the COCO annotation files):

* annotations: ``{"images": [{"id": ...}, ...], "annotations": [{"image_id": ...,
  "caption": "..."}, ...]}``; a bare list of ``{"image_id", "caption"}`` is accepted too.
  Images listed under ``"images"`` without any caption are kept with no references, so that
  scoring a candidate for them fails with a clear message instead of being skipped.
* results: ``[{"image_id": int, "caption": str}, ...]``, one caption per image.

Every error is a :class:`~kcca.captions._scorer.CaptionInputError` naming the file and the
position (``annotations[17]``, ``line 3 column 5`` for malformed JSON).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Hashable

from kcca.captions._scorer import CaptionInputError, EmptyCaptionError
from kcca.data._documents import read_json


def _read_json(path: str | os.PathLike, what: str) -> Any:
    p = Path(path)
    if not p.is_file():
        raise CaptionInputError(f"{what} file {p} does not exist")
    return read_json(p, error=CaptionInputError)


def _image_id(entry: Any, where: str) -> Hashable:
    if not isinstance(entry, dict):
        raise CaptionInputError(
            f'{where} is a {type(entry).__name__}, expected an object with "image_id" and "caption"'
        )
    if "image_id" not in entry:
        raise CaptionInputError(f'{where} has no "image_id"')
    iid = entry["image_id"]
    if isinstance(iid, bool) or not isinstance(iid, (int, str)):
        raise CaptionInputError(f'{where}: "image_id" must be an integer or a string, not {iid!r}')
    return iid


def _caption(entry: dict, where: str, allow_empty: bool = False) -> str:
    if "caption" not in entry:
        raise CaptionInputError(f'{where} has no "caption"')
    cap = entry["caption"]
    if not isinstance(cap, str):
        raise CaptionInputError(f'{where}: "caption" must be a string, not {cap!r:.60}')
    if not allow_empty and not cap.strip():
        raise EmptyCaptionError(f'{where}: "caption" is empty')  # its fix: allow_empty
    return cap


def load_coco_references(
    path: str | os.PathLike, *, allow_empty: bool = False
) -> dict[Hashable, list[str]]:
    """Reference captions of a COCO annotation file: image id -> captions (file order).

    A blank caption is an error unless ``allow_empty`` (see
    :func:`~kcca.captions.evaluate_captions`, which then names it).
    """
    data = _read_json(path, "references")
    refs: dict[Hashable, list[str]] = {}
    if isinstance(data, dict):
        if "annotations" not in data:
            raise CaptionInputError(f'{path}: a COCO annotation file needs an "annotations" list')
        anns = data["annotations"]
        images = data.get("images", [])
        if not isinstance(images, list):
            raise CaptionInputError(f'{path}: "images" must be a list')
        for n, img in enumerate(images):
            if not isinstance(img, dict) or "id" not in img:
                raise CaptionInputError(f'{path}: images[{n}] has no "id"')
            iid = img["id"]
            if isinstance(iid, bool) or not isinstance(iid, (int, str)):
                raise CaptionInputError(
                    f'{path}: images[{n}]: "id" must be an integer or a string, not {iid!r:.60}'
                )
            refs.setdefault(iid, [])
        label = "annotations"
    elif isinstance(data, list):
        anns, label = data, "entry"
    else:
        raise CaptionInputError(
            f"{path}: expected a COCO annotation object or a list of "
            f"annotations, found {type(data).__name__}"
        )
    if not isinstance(anns, list):
        raise CaptionInputError(f'{path}: "annotations" must be a list')
    for n, ann in enumerate(anns):
        where = f"{path}: {label}[{n}]"
        iid = _image_id(ann, where)
        refs.setdefault(iid, []).append(_caption(ann, where, allow_empty))
    if not any(refs.values()):
        raise CaptionInputError(f"{path}: no reference captions")
    return refs


def load_coco_results(path: str | os.PathLike, *, allow_empty: bool = False) -> dict[Hashable, str]:
    """Candidate captions of a COCO result file: image id -> caption (one per image).

    A blank caption is an error unless ``allow_empty``.
    """
    data = _read_json(path, "candidates")
    if isinstance(data, dict) and "annotations" in data:
        data = data["annotations"]
    if not isinstance(data, list):
        raise CaptionInputError(
            f'{path}: a result file is a list of {{"image_id", '
            f'"caption"}} objects, found {type(data).__name__}'
        )
    if not data:
        raise CaptionInputError(f"{path}: no candidate captions")
    out: dict[Hashable, str] = {}
    first: dict[Hashable, int] = {}
    for n, entry in enumerate(data):
        where = f"{path}: entry [{n}]"
        iid = _image_id(entry, where)
        cap = _caption(entry, where, allow_empty)
        if iid in out:
            raise CaptionInputError(
                f"{where}: second caption for image id {iid!r} (first at "
                f"entry [{first[iid]}]); a result file has one per image"
            )
        out[iid] = cap
        first[iid] = n
    return out


def check_id_types(
    references: dict, candidates: dict, ref_path: Any = "", cand_path: Any = ""
) -> None:
    """Fail early, with a hint, when candidate ids are unknown only because of their type."""
    for iid in candidates:
        if iid not in references:
            alt = str(iid) if isinstance(iid, int) else (int(iid) if str(iid).isdigit() else None)
            hint = ""
            if alt is not None and alt in references:
                hint = (
                    f" (the references have {alt!r}: image ids must have the same type, "
                    "number or string, in both files)"
                )
            raise CaptionInputError(
                f"{cand_path}: candidate for image id {iid!r} has no reference captions in "
                f"{ref_path}{hint}"
            )


def write_per_item_json(
    path: str | os.PathLike, records: list[dict], corpus: dict, extra: dict | None = None
) -> None:
    """Write ``{"corpus": {...}, "per_item": [{"image_id", metric: score, ...}], ...}``."""
    from kcca._cache import write_text_atomic

    payload = {"corpus": corpus, "per_item": records, **(extra or {})}
    write_text_atomic(path, json.dumps(payload, indent=1))
