"""The Flickr 8K corpus (Hodosh et al., 2013, Section 2.3.2) read into a :class:`Corpus`.

Layout under the data folder (see ``data/README.md``)::

    flickr8k/text/Flickr8k.token.txt          IMAGE.jpg#N <TAB> caption     (40,460 lines)
    flickr8k/text/Flickr8k.lemma.token.txt    same ids, lemmatised captions
    flickr8k/text/Flickr_8k.{train,dev,test}Images.txt   6,000 / 1,000 / 1,000 ids
    flickr8k/text/ExpertAnnotations.txt       image, caption id, three scores 1..4
    flickr8k/text/CrowdFlowerAnnotations.txt  image, caption id, fraction yes, yes, no
    flickr8k/images/*.jpg

The odd id ``2258277193_586949ec62.jpg.1``: the release has five captions under this id but
no image file for it (nor for ``2258277193_586949ec62.jpg``), and it is in no split. The
loader keeps its captions (nothing is dropped), lists it in ``Corpus.unsplit_image_ids`` with
the 91 other captioned images outside the official splits, and records a note. It takes part
in no experiment, since experiments only use split images. The 91 other unsplit images have
files and can be read (``Corpus.image_paths`` covers all 8,091 image files).
"""

from __future__ import annotations

import logging
import os
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from kcca.data._corpus import (
    SPLITS,
    Corpus,
    CrowdJudgment,
    ExpertJudgment,
    split_caption_id,
)
from kcca.data._errors import DataError, ImageFilesError, check_images_command
from kcca.data._images import ImageFiles, check_image_file
from kcca.data._paths import inside
from kcca.data._lines import numbered_lines, parse_int, parse_number, require_file, tab_fields

log = logging.getLogger(__name__)

ODD_ID = "2258277193_586949ec62.jpg.1"
ODD_ID_NOTE = (
    f"{ODD_ID}: captions without an image file, in no split; kept in captions, "
    "listed in unsplit_image_ids, used by no experiment"
)
SPLIT_FILES = {s: f"Flickr_8k.{s}Images.txt" for s in SPLITS}
TOKEN_FILE = "Flickr8k.token.txt"
LEMMA_FILE = "Flickr8k.lemma.token.txt"
EXPERT_FILE = "ExpertAnnotations.txt"
CROWD_FILE = "CrowdFlowerAnnotations.txt"


def read_caption_file(path: Path) -> dict[str, tuple[str, ...]]:
    """Read ``IMAGE#N<TAB>caption`` lines into image id -> captions ordered by N.

    Errors name the file and line: missing tab, malformed id, duplicate id, empty caption,
    or caption numbers of an image that are not 0..k-1.
    """
    require_file(path, "caption file")
    by_image: dict[str, dict[int, str]] = defaultdict(dict)
    where: dict[str, int] = {}
    for number, text in numbered_lines(path):
        cid, sep, caption = text.partition("\t")
        if not sep:
            raise DataError(
                f"{path}:{number}: malformed line {text[:80]!r}: expected IMAGE#N<TAB>caption"
            )
        try:
            image_id, index = split_caption_id(cid.strip())
        except DataError as exc:
            raise DataError(f"{path}:{number}: {exc}") from None
        if index in by_image[image_id]:
            raise DataError(
                f"{path}:{number}: duplicate caption id {cid!r} (first seen on line {where[cid]})"
            )
        caption = caption.strip()
        if not caption:
            raise DataError(
                f"{path}:{number}: caption {cid!r} is empty; remove the line or supply its text"
            )
        by_image[image_id][index] = caption
        where[cid] = number
    out: dict[str, tuple[str, ...]] = {}
    for image_id, texts in by_image.items():
        if sorted(texts) != list(range(len(texts))):
            raise DataError(
                f"{path}: captions of {image_id!r} are numbered {sorted(texts)}, "
                f"expected #0..#{len(texts) - 1}"
            )
        out[image_id] = tuple(texts[i] for i in range(len(texts)))
    return out


def read_split_file(path: Path, captions: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """Image ids of a split file; unknown (uncaptioned) and duplicate ids, and a file that
    lists none (every experiment needs train, dev and test images), are errors."""
    require_file(path, "split file")
    ids: list[str] = []
    first: dict[str, int] = {}
    for number, text in numbered_lines(path):
        image_id = text.strip()
        if image_id in first:
            raise DataError(
                f"{path}:{number}: duplicate image id {image_id!r} "
                f"(first on line {first[image_id]})"
            )
        if image_id not in captions:
            raise DataError(
                f"{path}:{number}: image {image_id!r} has no captions in "
                f"{TOKEN_FILE}: fix the id or add its captions"
            )
        first[image_id] = number
        ids.append(image_id)
    if not ids:
        raise DataError(
            f"{path}: the split file lists no image ids (an empty split: training, selection "
            "on dev and the test metrics each need images)",
            fix=f"list the split's image ids in {path}, one per line (the released files list "
            "6,000 train, 1,000 dev and 1,000 test images), or restore the released file",
        )
    return tuple(ids)


def _check_pair(
    path: Path,
    number: int,
    image_id: str,
    cid: str,
    captions: dict[str, tuple[str, ...]],
    seen: dict,
    kind: str,
) -> tuple[str, str]:
    if image_id not in captions:
        raise DataError(f"{path}:{number}: unknown image id {image_id!r} in {kind} judgments")
    try:
        cap_image, index = split_caption_id(cid)
    except DataError as exc:
        raise DataError(f"{path}:{number}: {exc}") from None
    if cap_image not in captions or index >= len(captions[cap_image]):
        raise DataError(f"{path}:{number}: unknown caption id {cid!r} in {kind} judgments")
    key = (image_id, cid)
    if key in seen:
        raise DataError(f"{path}:{number}: duplicate {kind} pair {key} (first on line {seen[key]})")
    seen[key] = number
    return key


def _judgment_lines(
    path: Path, captions: dict[str, tuple[str, ...]], kind: str, columns: str
) -> Iterator[tuple[int, tuple[str, str], list[str]]]:
    """The lines of a ``kind`` (expert / crowd) judgment file with five tab-separated
    ``columns``: (line number, its checked (image, caption id) pair, its fields)."""
    require_file(path, f"{kind} judgment file")
    seen: dict = {}
    for number, text in numbered_lines(path):
        f = tab_fields(path, number, text, 5, columns)
        yield number, _check_pair(path, number, f[0], f[1], captions, seen, kind), f


def read_expert_judgments(
    path: Path, captions: dict[str, tuple[str, ...]]
) -> dict[tuple[str, str], ExpertJudgment]:
    """``ExpertAnnotations.txt``: (image, caption id) -> three graded scores in 1..4."""
    out: dict[tuple[str, str], ExpertJudgment] = {}
    columns = "image, caption id, score1, score2, score3"
    for number, key, f in _judgment_lines(path, captions, "expert", columns):
        scores = tuple(parse_int(path, number, s, "expert score", 1, 4) for s in f[2:])
        out[key] = ExpertJudgment(f[0], f[1], scores)
    return out


def read_crowd_judgments(
    path: Path, captions: dict[str, tuple[str, ...]]
) -> dict[tuple[str, str], CrowdJudgment]:
    """``CrowdFlowerAnnotations.txt``: (image, caption id) -> yes/no votes.

    The fraction column must agree with the vote counts (to 0.01); relevance is computed
    from the integers (1,050 pairs have 4-6 judges).
    """
    out: dict[tuple[str, str], CrowdJudgment] = {}
    columns = "image, caption id, fraction yes, yes, no"
    for number, key, f in _judgment_lines(path, captions, "crowd", columns):
        yes = parse_int(path, number, f[3], "yes count", 0)
        no = parse_int(path, number, f[4], "no count", 0)
        fraction = parse_number(path, number, f[2], "fraction", 0.0, 1.0)
        if yes + no == 0:
            raise DataError(f"{path}:{number}: pair {key} has no votes")
        if abs(fraction - yes / (yes + no)) > 0.01:
            raise DataError(
                f"{path}:{number}: fraction {fraction} disagrees with {yes} yes / {no} no"
            )
        out[key] = CrowdJudgment(f[0], f[1], fraction, yes, no)
    return out


def image_paths(
    images_dir: Path,
    ids: list[str] | tuple[str, ...],
    optional: list[str] | tuple[str, ...] = (),
    *,
    fix: str | None = None,
    source: str | Path = "the corpus's files",
) -> dict[str, str]:
    """Map each id to its file under ``images_dir``, checked with ``stat`` only: files that
    are missing, broken symbolic links, directories, empty or unreadable are one
    :class:`ImageFilesError` naming each with its reason (``fix`` replaces its default fix).
    A symbolic link that leads out of ``images_dir`` is an
    :class:`~kcca.data._paths.OutsideFolderError` naming the id and ``source`` (the file
    that gives the ids).

    ``optional`` ids (captioned images outside the splits) are mapped when their file exists.
    """
    if not images_dir.is_dir():
        raise DataError(
            f"image folder {images_dir} does not exist (see data/README.md), or "
            "load with images=False for text-only work"
        )
    present = {p.name for p in images_dir.iterdir()}
    missing = [i for i in ids if i not in present]
    found = [i for i in ids if i in present] + [i for i in optional if i in present]
    paths = {i: str(images_dir / i) for i in found}
    bad = {i: reason for i in found if (reason := check_image_file(paths[i])) is not None}
    for i in found:
        if i not in bad and os.path.islink(paths[i]):
            inside(images_dir, i, item=f"image {i!r}", source=source)
    if not missing and not bad:
        return paths
    parts = []
    if missing:
        shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        parts.append(
            f"{len(missing)} image file(s) of the splits are missing from {images_dir}: {shown}"
        )
    if bad:
        shown = "; ".join(f"{i}: {bad[i]}" for i in list(bad)[:20])
        parts.append(
            f"{len(bad)} image file(s) in {images_dir} are not usable: {shown}"
            + (f"; and {len(bad) - 20} more" if len(bad) > 20 else "")
        )
    problems = {str(images_dir / i): "file not found" for i in missing}
    problems.update({paths[i]: reason for i, reason in bad.items()})
    usable = {i: p for i, p in paths.items() if i not in bad}
    raise ImageFilesError("; ".join(parts), problems, usable, fix=fix)


def _text_folder(data_dir: str | Path) -> tuple[Path, Path]:
    """The corpus root (``data_dir/flickr8k``, or ``data_dir`` itself if it holds ``text/``)
    and its ``text/`` folder."""
    root = Path(data_dir)
    if not (root / "text").is_dir() and (root / "flickr8k").is_dir():
        root = root / "flickr8k"
    text = root / "text"
    if not text.is_dir():
        raise DataError(
            f"no Flickr 8K text folder under {data_dir}: expected "
            f"{Path(data_dir) / 'flickr8k' / 'text'} (see data/README.md)"
        )
    return root, text


def _read_lemmas(text: Path, captions: dict[str, tuple[str, ...]]) -> dict:
    """The released lemmatised captions, for exactly the images of the token file."""
    lemma_captions = read_caption_file(text / LEMMA_FILE)
    if set(lemma_captions) != set(captions):
        extra = sorted(set(lemma_captions) ^ set(captions))[:5]
        raise DataError(f"{text / LEMMA_FILE}: image ids differ from {TOKEN_FILE} (e.g. {extra})")
    return lemma_captions


def _read_judgments(
    text: Path, captions: dict[str, tuple[str, ...]], pool_caption_index: int, notes: list[str]
):
    """The expert and crowd judgments; a note for pairs whose caption is not the pools'."""
    expert = read_expert_judgments(text / EXPERT_FILE, captions)
    crowd = read_crowd_judgments(text / CROWD_FILE, captions)
    for kind, table in (("expert", expert), ("crowd", crowd)):
        bad = [k for k in table if split_caption_id(k[1])[1] != pool_caption_index]
        if bad:
            notes.append(
                f"{len(bad)} {kind} pairs use a caption other than "
                f"#{pool_caption_index}, e.g. {bad[0]}"
            )
    return expert, crowd


def _source_files(text: Path, lemmas: bool, judgments: bool) -> dict[str, str]:
    """The files the corpus was read from (kind -> path)."""
    return {
        "captions": str(text / TOKEN_FILE),
        **({"lemmas": str(text / LEMMA_FILE)} if lemmas else {}),
        **{f"split:{s}": str(text / name) for s, name in SPLIT_FILES.items()},
        **(
            {"expert": str(text / EXPERT_FILE), "crowd": str(text / CROWD_FILE)}
            if judgments
            else {}
        ),
    }


def load_flickr8k(
    data_dir: str | Path,
    *,
    images: bool = True,
    judgments: bool = True,
    lemmas: bool = True,
    pool_caption_index: int = 2,
) -> Corpus:
    """Load Flickr 8K from ``data_dir/flickr8k`` (or ``data_dir`` itself if it holds ``text/``).

    Parameters
    ----------
    data_dir : str or Path
        The data folder.
    images : bool
        Check (``stat`` only) that every split image file exists, is a non-empty readable
        file, and attach an image reader.
    judgments : bool
        Read the expert and crowd judgment files.
    lemmas : bool
        Read the released lemmatised captions.
    pool_caption_index : int
        The caption of each dev/test image in the pools (``#2``: every caption id in the
        judgment files ends in ``#2``).

    Returns
    -------
    Corpus
        The corpus, named ``"flickr8k"``.
    """
    root, text = _text_folder(data_dir)
    captions = read_caption_file(text / TOKEN_FILE)
    splits = {s: read_split_file(text / name, captions) for s, name in SPLIT_FILES.items()}
    lemma_captions = _read_lemmas(text, captions) if lemmas else None
    split_ids = {i for ids in splits.values() for i in ids}
    unsplit = tuple(sorted(i for i in captions if i not in split_ids))
    notes = [ODD_ID_NOTE] if ODD_ID in captions else []
    if unsplit:
        notes.append(f"{len(unsplit)} captioned image ids are in no official split; kept, unused")
    expert = crowd = None
    if judgments:
        expert, crowd = _read_judgments(text, captions, pool_caption_index, notes)
    paths = None
    reader = None
    if images:
        paths = image_paths(
            root / "images",
            sorted(split_ids),
            optional=unsplit,
            source=text / TOKEN_FILE,
            fix="restore the files named above from the Flickr 8K release "
            "(see data/README.md); "
            f"`{check_images_command(root)}` lists every bad image file",
        )
        reader = ImageFiles(paths)
    return Corpus(
        name="flickr8k",
        captions=captions,
        splits=splits,
        images=reader,
        lemmas=lemma_captions,
        expert=expert,
        crowd=crowd,
        pool_caption_index=pool_caption_index,
        unsplit_image_ids=unsplit,
        notes=tuple(notes),
        image_paths=paths,
        source_files=_source_files(text, lemmas, judgments),
    )


def load_flickr8k_with_splits(
    data_dir: str | Path, splits_dir: str | Path | None, *, images: bool = True
) -> Corpus:
    """Flickr 8K (with judgments), with the three split files of ``splits_dir`` when given
    (``kcca reproduce --splits``: the corpus is named ``flickr8k-splits-<folder>`` and its
    split files enter the cache keys); ``images=False`` (tables only) skips the image files and
    the lemma file."""
    import dataclasses

    corpus = (
        load_flickr8k(data_dir) if images else load_flickr8k(data_dir, images=False, lemmas=False)
    )
    if splits_dir is None:
        return corpus
    folder = Path(splits_dir)
    splits = {
        s: read_split_file(folder / name, dict(corpus.captions)) for s, name in SPLIT_FILES.items()
    }
    files = {
        **(corpus.source_files or {}),
        **{f"split:{s}": str(folder / name) for s, name in SPLIT_FILES.items()},
    }
    return dataclasses.replace(
        corpus, splits=splits, source_files=files, name=f"{corpus.name}-splits-{folder.name}"
    )
