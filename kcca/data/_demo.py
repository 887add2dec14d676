"""The embedded demo corpus: procedurally drawn scenes with five captions each, as code.

Every image shows one or two coloured, textured shapes (circle, square, triangle, star) of
two sizes at a position (left, right, top, bottom, centre) on a background (grass, sky,
sand, snow); its five captions come from the grammar in :mod:`kcca.data._demo_grammar`.
Nothing is stored: :func:`make_demo_corpus` draws a :class:`SceneSpec` per image from a
seed, and :class:`DemoImages` (a picklable callable, usable by joblib workers) renders an
image on demand with OpenCV, deterministically from its spec (same seed -> same bytes).

The result is a :class:`~kcca.data.Corpus` in the same form as Flickr 8K (caption
``#2`` in the dev/test pools). Optionally it carries synthetic crowd judgments for the test
pool: a caption is relevant to an image when the image contains every object the caption
mentions, with the mentioned attributes (colour, shape and, if named, size and texture).

Default sizes (600/200/200 images of 96x96 pixels) keep the whole pipeline (descriptors
of 1000 small images, kernels, KCCA over 600 items) within about two minutes on two cores.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

import cv2
import numpy as np

from kcca.data._corpus import Corpus, CrowdJudgment, caption_id
from kcca.data._demo_grammar import COLOURS, SHAPES, CaptionMeaning, Mention, scene_captions
from kcca.data._errors import DataError
from kcca.limits import MAX_DEMO_IMAGE_SIZE, MAX_NAMED_DEMO_IMAGES, MAX_NAMED_DEMO_TEST

# RGB colours, well apart in CIELAB
OBJECT_RGB: dict[str, tuple[int, int, int]] = {
    "red": (205, 25, 35),
    "blue": (35, 65, 205),
    "green": (30, 165, 45),
    "yellow": (245, 220, 35),
    "purple": (125, 40, 160),
    "orange": (245, 130, 20),
}
BACKGROUND_RGB: dict[str, tuple[int, int, int]] = {
    "grass": (90, 135, 55),
    "sky": (135, 185, 235),
    "sand": (215, 195, 150),
    "snow": (236, 239, 244),
}
# object colours too close to a background to be drawn on it
_CLASHES = {("green", "grass"), ("blue", "sky")}
TEXTURES = ("plain", "striped", "dotted", "checked")
SIZE_NAMES = ("small", "large")
POSITION_NAMES = ("left", "right", "top", "bottom", "centre")
_CENTRES = {
    "left": (0.27, 0.5),
    "right": (0.73, 0.5),
    "top": (0.5, 0.27),
    "bottom": (0.5, 0.73),
    "centre": (0.5, 0.5),
}
_RADII = {"small": 0.12, "large": 0.2}  # fraction of the image side
_PAIRS = (("left", "right"), ("right", "left"), ("top", "bottom"), ("bottom", "top"))


@dataclass(frozen=True)
class ObjectSpec:
    """One shape: its concepts and its geometry (centre, radius as fractions of the side)."""

    shape: str
    colour: str
    texture: str
    size: str
    position: str
    centre: tuple[float, float]  # (x, y), 0..1
    radius: float  # 0..1 of the image side
    angle: float  # degrees


@dataclass(frozen=True)
class SceneSpec:
    """Everything needed to redraw one demo image and to judge captions against it."""

    image_id: str
    seed: int
    background: str
    objects: tuple[ObjectSpec, ...]

    def describe(self) -> str:
        """Short human-readable summary, e.g. ``large red striped circle (left); ...``."""
        parts = [f"{o.size} {o.colour} {o.texture} {o.shape} ({o.position})" for o in self.objects]
        return "; ".join(parts) + f" on {self.background}"


# ------------------------------------------------------------------ specs
def _image_seed(seed: int, index: int) -> int:
    return int(np.random.SeedSequence([seed, index]).generate_state(1)[0])


def random_scene(image_id: str, seed: int, p_two: float = 0.6) -> SceneSpec:
    """Draw a scene (background, one or two objects with distinct colours) from ``seed``."""
    rng = np.random.default_rng(seed)
    background = tuple(BACKGROUND_RGB)[int(rng.integers(len(BACKGROUND_RGB)))]
    positions: tuple[str, ...]
    if rng.random() < p_two:
        positions = _PAIRS[int(rng.integers(len(_PAIRS)))]
    else:
        positions = (POSITION_NAMES[int(rng.integers(len(POSITION_NAMES)))],)
    colours = [c for c in OBJECT_RGB if (c, background) not in _CLASHES]
    chosen = rng.permutation(len(colours))[: len(positions)]
    objects = []
    for position, ci in zip(positions, chosen):
        size = SIZE_NAMES[int(rng.integers(2))]
        cx, cy = _CENTRES[position]
        jitter = rng.uniform(-0.04, 0.04, size=2)
        objects.append(
            ObjectSpec(
                shape=tuple(SHAPES)[int(rng.integers(len(SHAPES)))],
                colour=colours[int(ci)],
                texture=TEXTURES[int(rng.integers(len(TEXTURES)))],
                size=size,
                position=position,
                centre=(round(cx + float(jitter[0]), 4), round(cy + float(jitter[1]), 4)),
                radius=round(_RADII[size] * float(rng.uniform(0.9, 1.1)), 4),
                angle=round(float(rng.uniform(-15, 15)), 2),
            )
        )
    return SceneSpec(image_id, seed, background, tuple(objects))


# ------------------------------------------------------------------ rendering
def _shape_points(obj: ObjectSpec, side: int) -> np.ndarray | None:
    """Polygon vertices in pixels (None for a circle)."""
    if obj.shape == "circle":
        return None
    r: np.ndarray
    if obj.shape == "square":
        angles = np.deg2rad(obj.angle + np.array([45, 135, 225, 315]))
        r = np.full(4, obj.radius)
    elif obj.shape == "triangle":
        angles = np.deg2rad(obj.angle + np.array([-90, 30, 150]))
        r = np.full(3, obj.radius * 1.15)
    elif obj.shape == "star":
        angles = np.deg2rad(obj.angle - 90 + 36 * np.arange(10))
        r = np.where(np.arange(10) % 2 == 0, obj.radius * 1.15, obj.radius * 0.48)
    else:
        raise DataError(f"unknown demo shape {obj.shape!r}")
    cx, cy = obj.centre
    x = (cx + r * np.cos(angles)) * side
    y = (cy + r * np.sin(angles)) * side
    return np.stack([x, y], axis=1)


def shape_mask(obj: ObjectSpec, side: int) -> np.ndarray:
    """Anti-aliased coverage of a shape, float32 in 0..1, shape (side, side)."""
    shift = 4  # sub-pixel precision for cv2 drawing
    scale = 1 << shift
    mask = np.zeros((side, side), np.uint8)
    pts = _shape_points(obj, side)
    if pts is None:
        centre = (
            int(round(obj.centre[0] * side * scale)),
            int(round(obj.centre[1] * side * scale)),
        )
        cv2.circle(mask, centre, int(round(obj.radius * side * scale)), 255, -1, cv2.LINE_AA, shift)
    else:
        cv2.fillPoly(mask, [np.round(pts * scale).astype(np.int32)], 255, cv2.LINE_AA, shift)
    return mask.astype(np.float32) / 255.0


def texture_fill(
    colour: tuple[int, int, int], texture: str, side: int, rng: np.random.Generator
) -> np.ndarray:
    """A (side, side, 3) float32 canvas painted with ``colour`` in ``texture``."""
    base = np.array(colour, np.float32)
    fill = np.empty((side, side, 3), np.float32)
    fill[:] = base
    if texture == "plain":
        return fill
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
    period = max(4.0, side / 12.0) * float(rng.uniform(0.9, 1.2))
    if texture == "striped":
        theta = np.deg2rad(float(rng.choice([0.0, 45.0, 90.0, 135.0])) + rng.uniform(-10, 10))
        u = xx * np.cos(theta) + yy * np.sin(theta) + rng.uniform(0, period)
        on = np.mod(u, period) < period / 2
        fill[on] = base * 0.35
    elif texture == "checked":
        ox, oy = rng.uniform(0, period, size=2)
        on = (np.floor((xx + ox) / period) + np.floor((yy + oy) / period)) % 2 == 1
        fill[on] = base * 0.35
    elif texture == "dotted":
        dot = base + (255.0 - base) * 0.75
        ox, oy = rng.uniform(0, period, size=2)
        dx = np.mod(xx + ox, period) - period / 2
        dy = np.mod(yy + oy, period) - period / 2
        on = dx * dx + dy * dy < (period * 0.28) ** 2
        fill[on] = dot
    else:
        raise DataError(f"unknown demo texture {texture!r}")
    return fill


def background_canvas(name: str, side: int, rng: np.random.Generator) -> np.ndarray:
    """A (side, side, 3) float32 background: grass blades, sky gradient, sand, snow."""
    base = np.array(BACKGROUND_RGB[name], np.float32)
    canvas: np.ndarray = np.empty((side, side, 3), np.float32)
    canvas[:] = base
    if name == "grass":
        for _ in range(side * 3):
            x, y = rng.uniform(0, side, size=2)
            length = rng.uniform(0.03, 0.08) * side
            tilt = rng.uniform(-0.3, 0.3) * length
            shade = base * float(rng.uniform(0.65, 1.3))
            cv2.line(
                canvas,
                (int(x), int(y)),
                (int(x + tilt), int(y - length)),
                tuple(float(v) for v in np.clip(shade, 0, 255)),
                1,
                cv2.LINE_AA,
            )
    elif name == "sky":
        t = np.linspace(0.0, 1.0, side, dtype=np.float32)[:, None, None]
        canvas[:] = base * (0.85 + 0.25 * t)
        cx, cy = rng.uniform(0.1, 0.9) * side, rng.uniform(0.05, 0.3) * side
        cloud: np.ndarray = np.zeros((side, side), np.float32)
        cv2.ellipse(
            cloud,
            (int(cx), int(cy)),
            (int(side * 0.18), int(side * 0.06)),
            0,
            0,
            360,
            1.0,
            -1,
            cv2.LINE_AA,
        )
        cloud = cv2.GaussianBlur(cloud, (0, 0), side * 0.03)[:, :, None]
        canvas = canvas * (1 - 0.6 * cloud) + 255.0 * 0.6 * cloud
    elif name == "sand":
        grain = rng.normal(0, 14, size=(side, side, 1)).astype(np.float32)
        canvas += cv2.GaussianBlur(grain, (0, 0), 0.8)[:, :, None]
        yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
        ripple = np.sin((yy + 3 * np.sin(xx / side * 6.0)) / side * 40.0 + rng.uniform(0, 6.3))
        canvas += (6.0 * ripple)[:, :, None]
    elif name == "snow":
        shade = np.linspace(1.0, 0.93, side, dtype=np.float32)[None, :, None]
        canvas = canvas * shade + rng.normal(0, 4, size=(side, side, 1)).astype(np.float32)
    else:
        raise DataError(f"unknown demo background {name!r}")
    return canvas


def render_scene(spec: SceneSpec, side: int, noise: float = 4.0) -> np.ndarray:
    """Draw a scene as an RGB ``uint8`` (side, side, 3) image, deterministically from its seed."""
    rng = np.random.default_rng(spec.seed)
    canvas = background_canvas(spec.background, side, rng)
    for obj in spec.objects:
        mask = shape_mask(obj, side)[:, :, None]
        fill = texture_fill(OBJECT_RGB[obj.colour], obj.texture, side, rng)
        canvas = canvas * (1.0 - mask) + fill * mask
    canvas += rng.normal(0.0, noise, size=canvas.shape).astype(np.float32)
    return np.clip(np.rint(canvas), 0, 255).astype(np.uint8)


class DemoImages:
    """Picklable image source of the demo corpus: ``images(image_id) -> RGB uint8``.

    Holds the per-image :class:`SceneSpec` (``spec(image_id)``) and what each caption says
    (``meaning(caption_id)``); nothing is rendered until an image is asked for.
    """

    def __init__(
        self,
        specs: Mapping[str, SceneSpec],
        image_size: int,
        meanings: Mapping[str, tuple[CaptionMeaning, ...]] | None = None,
    ):
        self.specs = dict(specs)
        self.image_size = int(image_size)
        self.meanings = dict(meanings or {})

    def __call__(self, image_id: str) -> np.ndarray:
        return render_scene(self.spec(image_id), self.image_size)

    def spec(self, image_id: str) -> SceneSpec:
        """The scene behind an image id."""
        try:
            return self.specs[image_id]
        except KeyError:
            raise DataError(f"{image_id!r} is not an image of the demo corpus") from None

    def meaning(self, image_id: str, index: int) -> CaptionMeaning:
        """What caption ``index`` of an image mentions (objects, attributes, background)."""
        try:
            return self.meanings[image_id][index]
        except (KeyError, IndexError):
            raise DataError(f"no caption #{index} of {image_id!r} in the demo corpus") from None

    def __len__(self) -> int:
        return len(self.specs)


# ------------------------------------------------------------------ relevance
def mention_matches(mention: Mention, spec: SceneSpec) -> bool:
    """True when some object of ``spec`` has every attribute the mention names."""
    for o in spec.objects:
        if o.colour != mention.colour or o.shape != mention.shape:
            continue
        if mention.size is not None and o.size != mention.size:
            continue
        if mention.texture is not None and o.texture != mention.texture:
            continue
        return True
    return False


def caption_relevant(meaning: CaptionMeaning, spec: SceneSpec) -> bool:
    """A caption is relevant to a scene that contains every object it mentions."""
    return all(mention_matches(m, spec) for m in meaning.mentions)


def synthetic_crowd(
    images: DemoImages, ids: tuple[str, ...], pool_index: int, judges: int = 3
) -> dict[tuple[str, str], CrowdJudgment]:
    """Crowd-style yes/no judgments of every (image, pool caption) pair of ``ids``."""
    out: dict[tuple[str, str], CrowdJudgment] = {}
    for cap_image in ids:
        meaning = images.meaning(cap_image, pool_index)
        cid = caption_id(cap_image, pool_index)
        for image_id in ids:
            yes = judges if caption_relevant(meaning, images.spec(image_id)) else 0
            out[(image_id, cid)] = CrowdJudgment(image_id, cid, yes / judges, yes, judges - yes)
    return out


# ------------------------------------------------------------------ corpus
def make_demo_corpus(
    n_train: int = 600,
    n_dev: int = 200,
    n_test: int = 200,
    image_size: int = 96,
    seed: int = 0,
    judgments: bool = True,
) -> Corpus:
    """Build the demo corpus: ``n_train + n_dev + n_test`` scenes with five captions each.

    Image ids are ``demo_00001.png`` ...; images are assigned to the splits by a seeded
    permutation. With ``judgments`` the test pool gets synthetic crowd judgments
    (``Corpus.crowd``) of every (image, pool caption) pair. Same seed -> same corpus.
    """
    sizes = {"train": n_train, "dev": n_dev, "test": n_test}
    for name, n in sizes.items():
        if not isinstance(n, (int, np.integer)) or n < 0:
            raise DataError(f"demo corpus: n_{name} must be a non-negative integer, got {n!r}")
    if image_size < 32:
        raise DataError(f"demo corpus: image_size must be at least 32 pixels, got {image_size}")
    total = n_train + n_dev + n_test
    if total == 0:
        raise DataError("demo corpus: ask for at least one image")
    ids = [f"demo_{i + 1:05d}.png" for i in range(total)]
    specs: dict[str, SceneSpec] = {}
    captions: dict[str, tuple[str, ...]] = {}
    meanings: dict[str, tuple[CaptionMeaning, ...]] = {}
    for i, image_id in enumerate(ids):
        s = _image_seed(seed, i)
        spec = random_scene(image_id, s)
        specs[image_id] = spec
        caption_rng = np.random.default_rng([s, 1])
        captions[image_id], meanings[image_id] = scene_captions(spec, caption_rng)
    order = np.random.default_rng([seed, 2]).permutation(total)
    shuffled = [ids[int(k)] for k in order]
    splits = {
        "train": tuple(shuffled[:n_train]),
        "dev": tuple(shuffled[n_train : n_train + n_dev]),
        "test": tuple(shuffled[n_train + n_dev :]),
    }
    images = DemoImages(specs, image_size, meanings)
    pool_index = 2
    crowd = synthetic_crowd(images, splits["test"], pool_index) if judgments else None
    notes = (
        f"demo corpus generated from seed {seed}: {total} procedural {image_size}x{image_size} "
        "images, five grammar captions each",
        "shapes "
        + ", ".join(SHAPES)
        + "; colours "
        + ", ".join(COLOURS)
        + "; textures "
        + ", ".join(TEXTURES)
        + "; backgrounds "
        + ", ".join(BACKGROUND_RGB),
        "per-image scene specs: corpus.images.spec(image_id); caption meanings: "
        "corpus.images.meaning(image_id, n)",
    ) + (
        (
            "crowd judgments are synthetic: relevant when the image contains every object "
            "the test-pool caption mentions",
        )
        if judgments
        else ()
    )
    return Corpus(
        name=f"demo-{n_train}-{n_dev}-{n_test}-{image_size}px-s{seed}",
        captions=captions,
        splits=splits,
        images=images,
        crowd=crowd,
        pool_caption_index=pool_index,
        notes=notes,
    )


_NAME = re.compile(r"demo-(\d+)-(\d+)-(\d+)-(\d+)px-s(\d+)")

#: the largest image side (pixels) of a demo corpus rebuilt from its name: the report draws
#: its test images
MAX_NAMED_DEMO_IMAGE_SIZE = MAX_DEMO_IMAGE_SIZE


def check_named_demo(
    name: str, n_train: int, n_dev: int, n_test: int, image_size: int, *, source: str = ""
) -> None:
    """Refuse to rebuild a demo corpus ``name`` over the ``MAX_NAMED_DEMO_*`` limits;
    ``source`` (the file that names it) starts the message."""
    total = n_train + n_dev + n_test
    if (
        total > MAX_NAMED_DEMO_IMAGES
        or n_test > MAX_NAMED_DEMO_TEST
        or image_size > MAX_NAMED_DEMO_IMAGE_SIZE
    ):
        where = f"{source}: " if source else ""
        raise DataError(
            f"{where}demo corpus {name}: {total:,} images ({n_test:,} test, "
            f"{image_size}x{image_size} pixels), more than a demo corpus rebuilt from its name "
            f"may have (at most {MAX_NAMED_DEMO_IMAGES:,} images, {MAX_NAMED_DEMO_TEST:,} of "
            f"them test images, {MAX_NAMED_DEMO_IMAGE_SIZE} pixels a side)",
            fix=(
                'check the file\'s "corpus" field: it is the name `kcca demo` gave its corpus '
                "(demo-TRAIN-DEV-TEST-SIZEpx-sSEED), and the results of a larger demo are read "
                "in the tables that run wrote"
            ),
        )


def demo_corpus_from_name(name: str, *, source: str = "") -> Corpus:
    """Rebuild the demo corpus called ``name`` (``Corpus.name`` of :func:`make_demo_corpus`,
    which encodes its sizes, image size and seed; rankings files record it), within the
    ``MAX_NAMED_DEMO_*`` limits; ``source`` names the file that records it."""
    m = _NAME.fullmatch(name)
    if m is None:
        raise DataError(
            f"{name!r} is not a demo corpus name (expected "
            "demo-<train>-<dev>-<test>-<size>px-s<seed>)"
        )
    n_train, n_dev, n_test, size, seed = (int(v) for v in m.groups())
    check_named_demo(name, n_train, n_dev, n_test, size, source=source)
    return make_demo_corpus(n_train=n_train, n_dev=n_dev, n_test=n_test, image_size=size, seed=seed)
