"""The caption grammar of the demo corpus: synonyms per concept and sentence templates.

Each concept of a scene (a colour, a shape, a texture, a size, a position, a spatial
relation, a background) has several surface forms, and each caption picks one form per
concept and one of several sentence templates, so that a retrieval system on the demo
corpus profits from lexical similarity (``crimson`` ~ ``red``, ``disc`` ~ ``circle``) and
from word order (``a red disc left of a blue box`` vs ``a blue box left of a red disc``).
Some captions mention only one of two objects, as real captions often do.

Captions are tokenised like Flickr 8K's (punctuation split off, final ``" ."``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

# ------------------------------------------------------------------ concepts
COLOURS: dict[str, tuple[str, ...]] = {
    "red": ("red", "crimson", "scarlet"),
    "blue": ("blue", "azure", "cobalt"),
    "green": ("green", "emerald", "lime"),
    "yellow": ("yellow", "golden", "lemon"),
    "purple": ("purple", "violet", "mauve"),
    "orange": ("orange", "tangerine", "amber"),
}
SHAPES: dict[str, tuple[str, ...]] = {
    "circle": ("circle", "disc", "ball", "round shape"),
    "square": ("square", "box", "block", "tile"),
    "triangle": ("triangle", "wedge", "pyramid"),
    "star": ("star", "pentagram", "star shape"),
}
SIZES: dict[str, tuple[str, ...]] = {
    "small": ("small", "little", "tiny"),
    "large": ("large", "big", "huge"),
}
# texture: adjective forms ("a striped box") and "with ..." forms ("a box with stripes")
TEXTURE_ADJ: dict[str, tuple[str, ...]] = {
    "plain": ("plain", "solid", "uniform"),
    "striped": ("striped", "stripy", "banded"),
    "dotted": ("dotted", "spotted", "speckled"),
    "checked": ("checked", "checkered", "chequered"),
}
TEXTURE_WITH: dict[str, tuple[str, ...]] = {
    "plain": ("with no pattern", "with a single colour"),
    "striped": ("with stripes", "with bands"),
    "dotted": ("with dots", "with spots", "with polka dots"),
    "checked": ("with a checkered pattern", "with checks"),
}
POSITIONS: dict[str, tuple[str, ...]] = {
    "left": ("on the left", "at the left", "on the left side", "to the left"),
    "right": ("on the right", "at the right", "on the right side", "to the right"),
    "top": ("at the top", "near the top", "in the upper part", "high up"),
    "bottom": ("at the bottom", "near the bottom", "in the lower part", "low down"),
    "centre": ("in the middle", "in the centre", "in the center"),
}
# relation of object A to object B, keyed by A's position relative to B
RELATIONS: dict[str, tuple[str, ...]] = {
    "left": ("to the left of", "left of", "on the left of", "beside"),
    "right": ("to the right of", "right of", "on the right of", "next to"),
    "top": ("above", "over", "higher than", "on top of"),
    "bottom": ("below", "under", "beneath", "lower than"),
}
BACKGROUNDS: dict[str, tuple[str, ...]] = {
    "grass": ("on the grass", "on a lawn", "on a grassy field", "on green turf"),
    "sky": ("against the sky", "in the sky", "against a blue sky", "among the clouds"),
    "sand": ("on the sand", "on a beach", "on sandy ground", "in the desert"),
    "snow": ("in the snow", "on snow", "on a snowy field", "on white ice"),
}
VERBS: tuple[str, ...] = ("is", "sits", "lies", "rests", "stands", "appears")
PLURAL_VERBS: tuple[str, ...] = ("are", "sit", "lie", "rest", "appear")
OPENERS: tuple[str, ...] = (
    "There is",
    "Here is",
    "We see",
    "This picture shows",
    "The image shows",
    "You can see",
)
PAIR_OPENERS: tuple[str, ...] = ("Two shapes :", "Two objects :", "A picture of", "An image with")

CONCEPTS: dict[str, dict[str, tuple[str, ...]]] = {
    "colour": COLOURS,
    "shape": SHAPES,
    "size": SIZES,
    "texture": TEXTURE_ADJ,
    "position": POSITIONS,
    "relation": RELATIONS,
    "background": BACKGROUNDS,
}
"""Every concept family with its surface forms (``TEXTURE_WITH`` adds texture phrases)."""


@dataclass(frozen=True)
class Mention:
    """What a caption says about one object: colour and shape always, size/texture maybe."""

    object_index: int
    colour: str
    shape: str
    size: str | None = None
    texture: str | None = None
    position: str | None = None


@dataclass(frozen=True)
class CaptionMeaning:
    """The objects a caption mentions (in order) and whether it names the background."""

    mentions: tuple[Mention, ...]
    background: str | None = None


class _Picker:
    """Seeded choices over tuples (index-based, so results do not depend on hashing)."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def one(self, options: Sequence[str]) -> str:
        return options[int(self.rng.integers(len(options)))]

    def coin(self, p: float) -> bool:
        return bool(self.rng.random() < p)


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def noun_phrase(pick: _Picker, obj, index: int) -> tuple[str, Mention]:
    """``a big crimson striped disc`` / ``a red box with dots`` / ``a small ball that is blue``."""
    colour = pick.one(COLOURS[obj.colour])
    shape = pick.one(SHAPES[obj.shape])
    size = pick.one(SIZES[obj.size]) if pick.coin(0.4) else None
    form = int(pick.rng.integers(4))
    texture = None
    if form == 0:  # [size] colour texture-adj shape
        texture = pick.one(TEXTURE_ADJ[obj.texture]) if pick.coin(0.6) else None
        words = [w for w in (size, colour, texture, shape) if w]
    elif form == 1:  # [size] colour shape with texture
        tw = pick.one(TEXTURE_WITH[obj.texture])
        texture = tw
        words = [w for w in (size, colour, shape) if w] + [tw]
    elif form == 2:  # [size] shape that is colour
        words = [w for w in (size, shape) if w] + ["that", "is", colour]
    else:  # [size] [texture-adj] colour shape
        texture = pick.one(TEXTURE_ADJ[obj.texture]) if pick.coin(0.3) else None
        words = [w for w in (size, texture, colour, shape) if w]
    phrase = f"{_article(words[0])} {' '.join(words)}"
    mention = Mention(
        index, obj.colour, obj.shape, obj.size if size else None, obj.texture if texture else None
    )
    return phrase, mention


def _finish(words: str) -> str:
    text = " ".join(words.split())
    return text[0].upper() + text[1:] + " ."


def _with_position(m: Mention, position: str) -> Mention:
    return Mention(m.object_index, m.colour, m.shape, m.size, m.texture, position)


def one_object_caption(pick: _Picker, spec, index: int = 0) -> tuple[str, CaptionMeaning]:
    """A caption about object ``index`` of ``spec`` alone (its position, maybe background)."""
    obj = spec.objects[index]
    np_, m = noun_phrase(pick, obj, index)
    pos = pick.one(POSITIONS[obj.position]) if pick.coin(0.6) else ""
    bg = pick.one(BACKGROUNDS[spec.background]) if pick.coin(0.4) else ""
    template = int(pick.rng.integers(5))
    if template == 0:
        text = f"{np_} {pos} {bg}"
    elif template == 1:
        text = f"{pick.one(OPENERS)} {np_} {pos} {bg}"
    elif template == 2:  # a verb needs a place: name the position
        pos = pos or pick.one(POSITIONS[obj.position])
        text = f"{np_} {pick.one(VERBS)} {pos} {bg}"
    elif template == 3 and pos:
        text = f"{pos} , {np_} {pick.one(VERBS)} {bg}"
    elif template == 3:
        text = f"{np_} {bg}"
    elif bg:
        text = f"{bg} , {pick.one(OPENERS).lower()} {np_} {pos}"
    else:
        pos = pos or pick.one(POSITIONS[obj.position])
        text = f"{np_} {pick.one(VERBS)} {pos}"
    if pos:
        m = _with_position(m, obj.position)
    return _finish(text), CaptionMeaning((m,), spec.background if bg else None)


def two_object_caption(pick: _Picker, spec) -> tuple[str, CaptionMeaning]:
    """A caption about both objects of a two-object scene, in either order."""
    first = int(pick.rng.integers(2))
    a, b = spec.objects[first], spec.objects[1 - first]
    np_a, ma = noun_phrase(pick, a, first)
    np_b, mb = noun_phrase(pick, b, 1 - first)
    bg = pick.one(BACKGROUNDS[spec.background]) if pick.coin(0.3) else ""
    template = int(pick.rng.integers(5))
    if template in (0, 1):  # relational: A rel B
        rel = pick.one(RELATIONS[a.position])
        verb = f"{pick.one(VERBS)} " if template == 1 else ""
        text = f"{np_a} {verb}{rel} {np_b} {bg}"
    elif template == 2:  # both with their own positions
        pa, pb = pick.one(POSITIONS[a.position]), pick.one(POSITIONS[b.position])
        text = f"{pick.one(OPENERS)} {np_a} {pa} and {np_b} {pb}"
        ma, mb = _with_position(ma, a.position), _with_position(mb, b.position)
    elif template == 3:  # coordination
        text = (
            f"{np_a} and {np_b} {pick.one(PLURAL_VERBS)} {bg}"
            if bg
            else f"{pick.one(PAIR_OPENERS)} {np_a} and {np_b}"
        )
    else:  # relation introduced by an opener
        rel = pick.one(RELATIONS[a.position])
        text = f"{pick.one(OPENERS)} {np_a} {rel} {np_b} {bg}"
    return _finish(text), CaptionMeaning((ma, mb), spec.background if bg else None)


def scene_captions(
    spec, rng: np.random.Generator, n: int = 5, p_partial: float = 0.3
) -> tuple[tuple[str, ...], tuple[CaptionMeaning, ...]]:
    """``n`` distinct captions (where possible) of a scene, with what each one mentions.

    For a two-object scene a caption mentions only one object with probability
    ``p_partial`` (which one is random).
    """
    pick = _Picker(rng)
    texts: list[str] = []
    meanings: list[CaptionMeaning] = []
    for _ in range(n):
        for _attempt in range(20):
            if len(spec.objects) == 1:
                text, meaning = one_object_caption(pick, spec, 0)
            elif pick.coin(p_partial):
                text, meaning = one_object_caption(pick, spec, int(pick.rng.integers(2)))
            else:
                text, meaning = two_object_caption(pick, spec)
            if text not in texts:
                break
        texts.append(text)
        meanings.append(meaning)
    return tuple(texts), tuple(meanings)


def surface_forms(concept: str, value: str) -> tuple[str, ...]:
    """All surface forms of one concept value, e.g. ``surface_forms("colour", "red")``."""
    forms = CONCEPTS[concept][value]
    if concept == "texture":
        forms = forms + TEXTURE_WITH[value]
    return forms
