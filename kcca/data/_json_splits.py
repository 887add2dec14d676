"""Corpora in the common JSON split format (Flickr 30K, COCO, Flickr 8K "dataset_*.json").

The format: ``{"dataset": NAME, "images": [{"filename": F, "filepath": D (optional),
"split": "train"|"val"|"test"|"restval", "sentences": [{"raw": TEXT, "tokens": [...]}, ...]},
...]}``. Image ids are ``D/F`` when ``filepath`` is given, else ``F``. ``val`` becomes our
``dev`` split; ``restval`` (COCO's extra training images) joins ``train`` by default.
A file with no image in one of the three splits is refused when a command reads it
(``require_splits``), naming the split.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from kcca.data._corpus import SPLITS, Corpus
from kcca.data._errors import DataError
from kcca.data._flickr8k import image_paths
from kcca.data._images import ImageFiles
from kcca.data._lines import require_file
from kcca.data._paths import inside
from kcca.data._documents import read_json

DEFAULT_SPLIT_MAP = {
    "train": "train",
    "val": "dev",
    "dev": "dev",
    "test": "test",
    "restval": "train",
}


def _sentence_text(path: Path, where: str, sentence: object) -> str:
    if isinstance(sentence, str):
        text = sentence
    elif isinstance(sentence, dict) and isinstance(sentence.get("raw"), str):
        text = sentence["raw"]
    elif isinstance(sentence, dict) and isinstance(sentence.get("tokens"), list):
        text = " ".join(str(t) for t in sentence["tokens"])
    else:
        raise DataError(f"{path}: {where}: a sentence needs a 'raw' string or a 'tokens' list")
    if not text.strip():
        raise DataError(f"{path}: {where}: empty caption; remove it or supply its text")
    return text.strip()


def load_json_splits(
    json_path: str | Path,
    images_dir: str | Path | None = None,
    *,
    name: str | None = None,
    split_map: Mapping[str, str] | None = None,
    pool_caption_index: int = 2,
    require_splits: bool = False,
) -> Corpus:
    """Read a JSON split file into a :class:`Corpus`.

    Args:
        images_dir: folder the ``filepath/filename`` of each image is relative to; when given,
            every split image must exist there. ``None`` loads text only.
        split_map: the file's split names -> ``train``/``dev``/``test`` (``None`` drops that
            split's images from the splits, keeping their captions in the corpus).
        require_splits: refuse a file with no image in train, dev or test (a run needs all
            three; the commands load corpora so).
    """
    path = require_file(Path(json_path), "JSON split file")
    doc = read_json(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("images"), list):
        raise DataError(f"{path}: expected an object with an 'images' list")
    mapping = dict(DEFAULT_SPLIT_MAP if split_map is None else split_map)
    captions: dict[str, tuple[str, ...]] = {}
    splits: dict[str, list[str]] = {s: [] for s in SPLITS}
    for n, item in enumerate(doc["images"]):
        where = f"images[{n}]"
        if not isinstance(item, dict) or not isinstance(item.get("filename"), str):
            raise DataError(f"{path}: {where}: needs a 'filename' string")
        image_id = item["filename"]
        if isinstance(item.get("filepath"), str) and item["filepath"]:
            image_id = f"{item['filepath']}/{image_id}"
        where = f"{where} ({image_id})"
        if image_id in captions:
            raise DataError(f"{path}: {where}: duplicate image")
        sentences = item.get("sentences")
        if not isinstance(sentences, list) or not sentences:
            raise DataError(f"{path}: {where}: needs a non-empty 'sentences' list")
        captions[image_id] = tuple(
            _sentence_text(path, f"{where} sentence {k}", s) for k, s in enumerate(sentences)
        )
        split = item.get("split")
        if not isinstance(split, str) or split not in mapping:
            raise DataError(
                f"{path}: {where}: unknown split {split!r}; known: {sorted(mapping)}"
                " (pass split_map to map it)"
            )
        target = mapping[split]
        if target is not None:
            if target not in splits:
                raise DataError(f"split_map sends {split!r} to {target!r}, not one of {SPLITS}")
            splits[target].append(image_id)
    if require_splits:
        _check_splits(path, splits, mapping)
    split_ids = [i for ids in splits.values() for i in ids]
    reader = paths = None
    if images_dir is not None:
        paths = _nested_image_paths(Path(images_dir), split_ids, path)
        reader = ImageFiles(paths)
    in_split = set(split_ids)
    return Corpus(
        name=name or str(doc.get("dataset") or path.stem),
        captions=captions,
        splits={k: tuple(v) for k, v in splits.items()},
        images=reader,
        pool_caption_index=pool_caption_index,
        unsplit_image_ids=tuple(sorted(i for i in captions if i not in in_split)),
        notes=(f"read from {path.name}",),
        image_paths=paths,
        source_files={"captions": str(path), **{f"split:{s}": str(path) for s in SPLITS}},
    )


def _check_splits(
    path: Path, splits: Mapping[str, list[str]], mapping: Mapping[str, str | None]
) -> None:
    """Refuse a file with no images, or with no image in one of the splits (training,
    selection on dev and the test metrics each need images): a :class:`DataError` naming the
    file and the split, and the ``split`` labels that make its images."""
    if not any(splits.values()):
        raise DataError(
            f"{path}: the file has no image in any split (its 'images' list is empty or "
            "none of its images is in train, dev or test)",
            fix=f"give the file its images, each with a 'split' label ({sorted(mapping)}), "
            "or use the released split file",
        )
    for split, ids in splits.items():
        if not ids:
            labels = sorted(label for label, target in mapping.items() if target == split)
            marks = " or ".join(f'"split": "{label}"' for label in labels)
            raise DataError(
                f"{path}: the {split} split has no image (no image is marked {marks or split}; "
                "training, selection on dev and the test metrics each need images)",
                fix=f"mark some of the file's images {marks or split}, or use the released "
                "split file",
            )


def _nested_image_paths(images_dir: Path, ids: list[str], source: Path) -> dict[str, str]:
    """Each id's file under ``images_dir``: an id with a folder part is joined under it and
    must stay inside (:func:`~kcca.data._paths.inside`), a plain file name is one of its files
    (:func:`~kcca.data._flickr8k.image_paths`)."""
    flat = [i for i in ids if "/" not in i]
    out = image_paths(images_dir, flat, source=source) if flat else {}
    nested = {
        i: inside(images_dir, i, item=f"image id {i!r}", source=source) for i in ids if "/" in i
    }
    missing = [i for i, p in nested.items() if not p.is_file()]
    if missing:
        shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        raise DataError(f"{len(missing)} image file(s) are missing under {images_dir}: {shown}")
    out.update({i: str(p) for i, p in nested.items()})
    return out
