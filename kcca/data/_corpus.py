"""The in-memory form every data set takes: captions, splits, pools, judgments, images.

Flickr 8K (``kcca.data._flickr8k``), corpora in the common JSON split format
(``kcca.data._json_splits``) and the embedded demo corpus (``kcca.data._demo``) all produce a
:class:`Corpus`. Section 4.1.1 of Hodosh et al. (2013): training images keep all five
captions; the dev and test pools hold one caption per image (caption ``#2`` for Flickr 8K).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Protocol, Sequence

import numpy as np

from kcca.data._errors import DataError

SPLITS = ("train", "dev", "test")


def caption_id(image_id: str, index: int) -> str:
    """The corpus-wide caption id ``IMAGE#N`` (the form used by the Flickr 8K files)."""
    return f"{image_id}#{index}"


def split_caption_id(cid: str) -> tuple[str, int]:
    """Inverse of :func:`caption_id`: ``'a.jpg#2' -> ('a.jpg', 2)``."""
    image_id, sep, index = cid.rpartition("#")
    if not sep or not image_id or not index.isdigit():
        raise DataError(f"malformed caption id {cid!r}: expected IMAGE#N with N a number")
    return image_id, int(index)


class ImageSource(Protocol):
    """Anything that returns an RGB ``uint8`` array of shape (H, W, 3) for an image id."""

    def __call__(self, image_id: str) -> np.ndarray: ...


@dataclass(frozen=True)
class ExpertJudgment:
    """One graded pair of ``ExpertAnnotations.txt``: three scores in 1..4 (Section 4.2.1)."""

    image_id: str
    caption_id: str
    scores: tuple[int, ...]

    @property
    def mean(self) -> float:
        """The pair's final score: the average of the judges' scores."""
        return sum(self.scores) / len(self.scores)


@dataclass(frozen=True)
class CrowdJudgment:
    """One pair of ``CrowdFlowerAnnotations.txt``: yes / no votes (Section 4.3.2)."""

    image_id: str
    caption_id: str
    fraction_yes: float
    yes: int
    no: int

    @property
    def n_judges(self) -> int:
        return self.yes + self.no

    def relevant(self, threshold: float = 0.5) -> bool:
        """Relevant when ``yes / (yes + no) >= threshold``, from the integer votes.

        The default 0.5 reproduces the paper's printed counts (Section 4.3.2; see
        docs/paper-notes.md#crowd-relevance).
        """
        return self.yes >= threshold * (self.yes + self.no)


JudgmentKey = tuple[str, str]  # (image id, caption id)


@dataclass(frozen=True)
class Corpus:
    """An image-caption corpus with official splits.

    Attributes
    ----------
    name : str
        Short name used in cache keys and reports.
    captions : Mapping
        Image id -> its captions, in caption-number order (``#0``, ``#1``, ...).
    splits : Mapping
        ``"train"``, ``"dev"``, ``"test"`` -> image ids (disjoint, each captioned).
    images : callable or None
        Returns the RGB image of an id (``None`` for text-only use).
    lemmas : Mapping or None
        Optional released lemmatised captions, same shape as ``captions``.
    expert, crowd : Mapping or None
        Human judgments keyed by (image id, caption id).
    pool_caption_index : int
        Which caption of a dev/test image stands in the pool.
    unsplit_image_ids : tuple
        Captioned ids that are in no split (kept, never used in experiments; for Flickr 8K
        the odd id ``2258277193_586949ec62.jpg.1``).
    notes : tuple
        Human-readable remarks about how the corpus was read.
    image_paths : Mapping or None
        Image id -> its file (``None`` for images made in memory, the demo's).
    source_files : Mapping or None
        Role -> the file it was read from (``captions``, ``lemmas``, ``split:train`` ...,
        ``expert``, ``crowd``); cache keys hash their content. ``None`` for a corpus made in
        memory.
    """

    name: str
    captions: Mapping[str, tuple[str, ...]]
    splits: Mapping[str, tuple[str, ...]]
    images: ImageSource | None = None
    lemmas: Mapping[str, tuple[str, ...]] | None = None
    expert: Mapping[JudgmentKey, ExpertJudgment] | None = None
    crowd: Mapping[JudgmentKey, CrowdJudgment] | None = None
    pool_caption_index: int = 2
    unsplit_image_ids: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    image_paths: Mapping[str, str] | None = field(default=None, repr=False)
    source_files: Mapping[str, str] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        validate_corpus(self)

    # ----------------------------------------------------------------- access
    def split(self, name: str) -> tuple[str, ...]:
        """Image ids of a split, with a clear error for an unknown split name."""
        try:
            return self.splits[name]
        except KeyError:
            raise DataError(
                f"corpus {self.name!r} has no split {name!r}; available: {sorted(self.splits)}"
            ) from None

    def pool(self, split: str, lemmatised: bool = False) -> list[tuple[str, str, str]]:
        """The one-caption-per-image pool of a split: ``(image id, caption id, text)``.

        Caption ``pool_caption_index`` of each image, as in the paper's dev and test pools.
        """
        source = self.lemmas if lemmatised else self.captions
        if source is None:
            raise DataError(f"corpus {self.name!r} has no lemmatised captions")
        k = self.pool_caption_index
        out = []
        for image_id in self.split(split):
            texts = source[image_id]
            if k >= len(texts):
                raise DataError(
                    f"image {image_id!r} of corpus {self.name!r} has {len(texts)} captions, "
                    f"so caption #{k} for the {split} pool does not exist"
                )
            out.append((image_id, caption_id(image_id, k), texts[k]))
        return out

    def caption(self, cid: str) -> str:
        """The text of a caption id ``IMAGE#N``."""
        image_id, index = split_caption_id(cid)
        texts = self.captions.get(image_id)
        if texts is None or index >= len(texts):
            raise DataError(f"unknown caption id {cid!r} in corpus {self.name!r}")
        return texts[index]

    def load_image(self, image_id: str) -> np.ndarray:
        """RGB ``uint8`` image (H, W, 3) of an id."""
        if self.images is None:
            raise DataError(f"corpus {self.name!r} was loaded without images")
        return self.images(image_id)

    def summary(self) -> dict:
        """Counts for reports and ``kcca data``: captions, splits, pools, judgments."""
        n_captions = sum(len(c) for c in self.captions.values())
        out = {
            "name": self.name,
            "images_with_captions": len(self.captions),
            "captions": n_captions,
            "splits": {k: len(v) for k, v in self.splits.items()},
            "pool_caption_index": self.pool_caption_index,
            "unsplit_image_ids": len(self.unsplit_image_ids),
        }
        if self.expert is not None:
            out["expert_pairs"] = len(self.expert)
        if self.crowd is not None:
            out["crowd_pairs"] = len(self.crowd)
        return out


def validate_corpus(corpus: Corpus) -> None:
    """Check the invariants every loader must satisfy; raise :class:`DataError` otherwise."""
    seen: dict[str, str] = {}
    for split, ids in corpus.splits.items():
        dup = _first_duplicate(ids)
        if dup is not None:
            raise DataError(f"image {dup!r} appears twice in split {split!r} of {corpus.name!r}")
        for image_id in ids:
            if image_id in seen:
                raise DataError(
                    f"image {image_id!r} is in both split {seen[image_id]!r} and {split!r} "
                    f"of corpus {corpus.name!r}: splits must be disjoint"
                )
            seen[image_id] = split
            texts = corpus.captions.get(image_id)
            if not texts:
                raise DataError(
                    f"image {image_id!r} of split {split!r} has no captions in corpus "
                    f"{corpus.name!r}: add its captions or remove it from the split file"
                )
    for image_id, texts in corpus.captions.items():
        for n, text in enumerate(texts):
            if not isinstance(text, str) or not text.strip():
                raise DataError(
                    f"caption {caption_id(image_id, n)!r} of corpus {corpus.name!r} is empty"
                )
    if corpus.lemmas is not None:
        for image_id, texts in corpus.captions.items():
            lem = corpus.lemmas.get(image_id)
            if lem is None or len(lem) != len(texts):
                raise DataError(
                    f"lemmatised captions of {image_id!r} in corpus {corpus.name!r} do not "
                    f"match its raw captions ({0 if lem is None else len(lem)} vs {len(texts)})"
                )


def _first_duplicate(ids: Sequence[str]) -> str | None:
    seen: set[str] = set()
    for x in ids:
        if x in seen:
            return x
        seen.add(x)
    return None
