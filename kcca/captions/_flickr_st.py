"""Reader of the Flickr-ST semantic-tuple files (Ellebracht et al. 2015, Section 4).

One line of ``clean_images_annotations.txt``, ``all_annotations.txt``, ``model1_gold.txt`` or
``model2_gold.txt`` is one semantic tuple (ST) of one caption::

    ID;FNAME;IMAGE.jpg#N;PRED;(idx, span);A0;(idx, span);A1;(idx, span);
        LOC_HEAD;(idx, span);LOC_PREP;(idx, span);LOC_TYPE;(-, types)

Each ``(idx, span)`` field is a Python literal pair: a list of token positions (``'6'`` or a
range ``'7-9'``) and a list of the spans' surface strings (multi-token spans are joined by
``-``), or ``([], None)`` for a *null* argument. ``(['-'], ['TACIT'])`` marks a *tacit*
argument (inferred by the annotator, with no span in the caption, Section 4): it has no value
to ground, and is kept as a flag (:attr:`SemanticTuple.predicate_tacit`) so callers can count
it. ``A0`` is the agent, ``A1`` the patient. Several values in one field are several values
of that argument ("a girl and a woman eat ...", Section 2), expanded later by the BAST code.

Errors are :class:`~kcca.data._errors.DataError` naming the file and line. The release has three
defective fields (``(['16'], [trunk]])``, ``(['8'], ['black']])``, ``(['12'], ['man']])``: gold
lines 60, 64, 65, and the same tuples in ``all_annotations.txt``): an unquoted span or a stray
``]``. These are repaired (the spans between the brackets are read as words) and each repair is
logged as a warning naming file and line; anything else malformed is an error.

The generated captions of the two evaluated systems
(``cap_visen_NTR_m{1,2}_flickr_clean.withindex.txt.done``) are CoNLL-style token tables:
``sentence-number<TAB>IMAGE.jpg#N<TAB>position<TAB>word<TAB>lemma<TAB>...``;
:func:`read_generated_captions` returns their words joined by spaces.
"""

from __future__ import annotations

import ast
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from kcca.data._errors import DataError
from kcca.data._lines import numbered_lines, require_file

#: The field names of one line, in order, between the values.
FIELD_NAMES = ("FNAME", "PRED", "A0", "A1", "LOC_HEAD", "LOC_PREP", "LOC_TYPE")
TACIT = "TACIT"

log = logging.getLogger(__name__)

GOLD_FILE = "clean_images_annotations.txt"
ALL_FILE = "all_annotations.txt"
MODEL_FILES = {"model1": "model1_gold.txt", "model2": "model2_gold.txt"}
CAPTION_FILES = {
    "model1": "cap_visen_NTR_m1_flickr_clean.withindex.txt.done",
    "model2": "cap_visen_NTR_m2_flickr_clean.withindex.txt.done",
}
IMAGE_LIST_FILE = "clean_image_list.txt"


@dataclass(frozen=True)
class Span:
    """One argument value as annotated: its token position(s) in the caption and its text."""

    position: str  # "6", "7-9" (1-based, inclusive) or "-" for tacit
    text: str

    @property
    def n_tokens(self) -> int:
        """Number of caption tokens the span covers (1 for a single position or tacit)."""
        if "-" in self.position and self.position != "-":
            a, b = self.position.split("-", 1)
            return int(b) - int(a) + 1
        return 1


@dataclass(frozen=True)
class SemanticTuple:
    """One ST of one caption, with the raw (ungrounded) spans of each argument.

    ``predicate`` is empty for a null or tacit predicate; ``agents``, ``patients``,
    ``loc_heads`` are empty when null. ``source`` is ``"file:line"``.
    """

    annotation_id: str
    image_id: str
    caption_index: int
    predicate: tuple[Span, ...]
    agents: tuple[Span, ...]
    patients: tuple[Span, ...]
    loc_heads: tuple[Span, ...]
    loc_preps: tuple[Span, ...] = ()
    loc_types: tuple[str, ...] = ()
    predicate_tacit: bool = False
    tacit_arguments: tuple[str, ...] = ()  # names of other tacit fields ("A0", ...)
    source: str = ""

    @property
    def caption_id(self) -> str:
        return f"{self.image_id}#{self.caption_index}"


#: ``(['16'], [trunk]])``: the release's three defective fields (an unquoted span and a stray
#: closing bracket, lines 60, 64, 65 of the gold file) are repaired by this pattern, with a warning.
_REPAIRABLE = re.compile(r"^\((\[[^\]]*\]), \[([^\[\]]*)\]+\)$")


def _repair(text: str):
    m = _REPAIRABLE.match(text.strip())
    if not m:
        return None
    try:
        positions = ast.literal_eval(m.group(1))
    except (ValueError, SyntaxError):
        return None
    spans = [s.strip().strip("'\"") for s in m.group(2).split(",") if s.strip()]
    return (positions, spans)


def _literal(path: Path, number: int, field: str, text: str):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError) as exc:
        repaired = _repair(text) if field != "LOC_TYPE" else None
        if repaired is not None:
            log.warning(
                "%s:%d: repaired malformed %s field %r as %r", path, number, field, text, repaired
            )
            return repaired
        raise DataError(
            f"{path}:{number}: malformed {field} value {text[:60]!r}: expected a Python literal "
            f"pair like (['6'], ['kneeling']) ({type(exc).__name__})"
        ) from None


_POSITION_OK = set("0123456789-")


def _spans(path: Path, number: int, field: str, text: str) -> tuple[tuple[Span, ...], bool]:
    """Parse an ``(idx, span)`` field into spans; returns ``(spans, tacit)``."""
    value = _literal(path, number, field, text)
    if not (isinstance(value, tuple) and len(value) == 2):
        raise DataError(
            f"{path}:{number}: {field} must be a pair (positions, spans), got {text[:60]!r}"
        )
    positions, texts = value
    if texts is None:
        if positions not in ([], None):
            raise DataError(f"{path}:{number}: {field} has positions {positions!r} but no spans")
        return (), False
    if not isinstance(positions, list) or not isinstance(texts, list):
        raise DataError(f"{path}:{number}: {field} must hold two lists, got {text[:60]!r}")
    if len(positions) != len(texts):
        raise DataError(
            f"{path}:{number}: {field} has {len(positions)} positions for "
            f"{len(texts)} spans: {text[:60]!r}"
        )
    if texts == [TACIT]:
        return (), True
    spans = []
    for pos, span in zip(positions, texts):
        if not isinstance(pos, str) or not isinstance(span, str) or not span.strip():
            raise DataError(f"{path}:{number}: {field} has a bad span {pos!r}: {span!r}")
        if not pos or not set(pos) <= _POSITION_OK or pos.startswith("-") or pos.count("-") > 1:
            raise DataError(f"{path}:{number}: {field} position {pos!r} is not N or N-M")
        spans.append(Span(pos, span))
    return tuple(spans), False


def parse_tuple_line(path: Path, number: int, text: str) -> SemanticTuple:
    """Parse one annotation line (see the module docstring); errors name file and line."""
    parts = text.split(";")
    if len(parts) != 15 or tuple(parts[1:15:2]) != FIELD_NAMES:
        raise DataError(
            f"{path}:{number}: malformed line {text[:80]!r}: expected 15 ';'-separated fields "
            f"ID;FNAME;img#n;PRED;...;A0;...;A1;...;LOC_HEAD;...;LOC_PREP;...;LOC_TYPE;..."
        )
    ann_id, caption_id = parts[0].strip(), parts[2].strip()
    if "#" not in caption_id:
        raise DataError(f"{path}:{number}: caption id {caption_id!r} is not IMAGE.jpg#N")
    image_id, _, idx = caption_id.rpartition("#")
    if not image_id or not idx.isdigit():
        raise DataError(f"{path}:{number}: caption id {caption_id!r} is not IMAGE.jpg#N")
    fields = dict(zip(FIELD_NAMES[1:], parts[4:15:2]))
    tacit: list[str] = []
    parsed = {}
    for name in ("PRED", "A0", "A1", "LOC_HEAD", "LOC_PREP"):
        spans, is_tacit = _spans(path, number, name, fields[name])
        parsed[name] = spans
        if is_tacit:
            tacit.append(name)
    types = _literal(path, number, "LOC_TYPE", fields["LOC_TYPE"])
    if not (isinstance(types, tuple) and len(types) == 2):
        raise DataError(f"{path}:{number}: LOC_TYPE must be a pair, got {fields['LOC_TYPE']!r}")
    loc_types = tuple(types[1]) if isinstance(types[1], list) else ()
    return SemanticTuple(
        annotation_id=ann_id,
        image_id=image_id,
        caption_index=int(idx),
        predicate=parsed["PRED"],
        agents=parsed["A0"],
        patients=parsed["A1"],
        loc_heads=parsed["LOC_HEAD"],
        loc_preps=parsed["LOC_PREP"],
        loc_types=loc_types,
        predicate_tacit="PRED" in tacit,
        tacit_arguments=tuple(t for t in tacit if t != "PRED"),
        source=f"{path}:{number}",
    )


def read_tuples(path: str | Path) -> list[SemanticTuple]:
    """All semantic tuples of one Flickr-ST annotation file, in file order."""
    path = require_file(Path(path), "Flickr-ST annotation file")
    out = [parse_tuple_line(path, n, t) for n, t in numbered_lines(path)]
    if not out:
        raise DataError(f"{path}: no semantic tuples in the file")
    return out


def tuples_by_image(tuples: Sequence[SemanticTuple]) -> dict[str, list[SemanticTuple]]:
    """Group tuples by image id (first-appearance order)."""
    out: dict[str, list[SemanticTuple]] = {}
    for t in tuples:
        out.setdefault(t.image_id, []).append(t)
    return out


def read_image_list(path: str | Path) -> list[str]:
    """One image id per line (``clean_image_list.txt``); duplicates are an error."""
    path = require_file(Path(path), "Flickr-ST image list")
    ids: list[str] = []
    seen: dict[str, int] = {}
    for number, text in numbered_lines(path):
        name = text.strip()
        if name in seen:
            raise DataError(f"{path}:{number}: image {name!r} repeats line {seen[name]}")
        seen[name] = number
        ids.append(name)
    return ids


def read_generated_captions(path: str | Path) -> dict[str, str]:
    """Caption id -> generated caption text (words of a ``.done`` CoNLL token table)."""
    path = require_file(Path(path), "Flickr-ST generated-caption file")
    words: dict[str, list[tuple[int, str]]] = {}
    for number, text in numbered_lines(path):
        fields = text.split("\t")
        if len(fields) < 5:
            raise DataError(
                f"{path}:{number}: malformed token line {text[:80]!r}: expected at "
                f"least 5 tab-separated fields (n, caption id, position, word, lemma)"
            )
        try:
            pos = int(fields[2])
        except ValueError:
            raise DataError(
                f"{path}:{number}: token position {fields[2]!r} is not an integer"
            ) from None
        words.setdefault(fields[1].strip(), []).append((pos, fields[3].strip()))
    return {cid: " ".join(w for _, w in sorted(ws)) for cid, ws in words.items()}


@dataclass(frozen=True)
class FlickrST:
    """The released Flickr-ST evaluation data: gold tuples and the two systems' manual tuples."""

    gold: Mapping[str, list[SemanticTuple]]
    systems: Mapping[str, Mapping[str, list[SemanticTuple]]]
    image_list: tuple[str, ...]
    captions: Mapping[str, Mapping[str, str]]  # system -> caption id -> generated text

    def summary(self) -> dict[str, int]:
        n_caps = len({t.caption_id for ts in self.gold.values() for t in ts})
        return {
            "images": len(self.gold),
            "captions": n_caps,
            "tuples": sum(len(v) for v in self.gold.values()),
        }


def load_flickr_st(folder: str | Path) -> FlickrST:
    """Read ``clean_images_annotations.txt`` (gold), the two model files and the image list.

    Checks that the gold images are exactly the listed images and that every system image is
    a gold image; the error names the offending id.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise DataError(f"Flickr-ST folder {folder} does not exist (see data/README.md)")
    gold = tuples_by_image(read_tuples(folder / GOLD_FILE))
    image_list = read_image_list(folder / IMAGE_LIST_FILE)
    missing = [i for i in image_list if i not in gold]
    extra = [i for i in gold if i not in set(image_list)]
    if missing or extra:
        raise DataError(
            f"{folder / GOLD_FILE}: gold images differ from {IMAGE_LIST_FILE}: "
            f"missing {missing[:3]}, not listed {extra[:3]}"
        )
    systems: dict[str, dict[str, list[SemanticTuple]]] = {}
    captions: dict[str, dict[str, str]] = {}
    for name, fname in MODEL_FILES.items():
        by_image = tuples_by_image(read_tuples(folder / fname))
        for image_id, ts in by_image.items():
            if image_id not in gold:
                raise DataError(
                    f"{ts[0].source}: image {image_id!r} has no gold tuples (unknown image id)"
                )
        systems[name] = by_image
        cap_path = folder / CAPTION_FILES[name]
        captions[name] = read_generated_captions(cap_path) if cap_path.is_file() else {}
    return FlickrST(gold=gold, systems=systems, image_list=tuple(image_list), captions=captions)
