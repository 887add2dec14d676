"""Does the scale of the image descriptors hold the KCCA systems back? (dev criterion, one system)

    python scripts/image_descriptor_scale.py sift-half --data-dir D [--system TRI5SEM] [--cache-dir C]

The shared Flickr 8K copies are 224 x 224, about half the originals' size, so fixed pixel
scales (dense SIFT's 4-pixel bins on a 4-pixel grid, MR8's filter scales) cover about twice
the scene they would on the originals. This script replaces feature types' words by a
variant, keeps the others, rebuilds K^PY and fits the system's KCCA grid at p = 2, d = 1
(full precision), then prints the dev criterion of ``kcca._systems.grid`` (dev R@1+R@5+R@10
of the 15-model Borda, both tasks) beside the same with the standard features.

Variants: ``sift-half`` (step 2, 2-pixel bins: 11,664 descriptors per image, its own 256-word
codebook); ``texture-half`` (MR8 responses of the 2x upsampled image at every other pixel,
i.e. half the filter scales); ``resolution-half`` (all three feature types, standard
descriptors, computed on the image shrunk to half its size, 112 x 112, with their own
codebooks: the same step down in resolution as from the paper's originals to our copies, so
its cost estimates what the originals would add). Features of a variant are cached under
their own keys.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from features._descriptors import Descriptors
from kcca._systems.dev_check import (add_system_arguments, describe, dev_check,
                                    open_system_from)


def sift_half(image: np.ndarray) -> Descriptors:
    """Dense SIFT at half the default scale: 2-pixel grid, 2-pixel bins."""
    from features._sift import sift_descriptors

    return sift_descriptors(image, step=2, bin_size=2)


def texture_half(image: np.ndarray) -> Descriptors:
    """MR8 at half the filter scales: the 2x upsampled image's responses at every other pixel."""
    import cv2

    from features._texture import texture_descriptors

    h, w = image.shape[:2]
    d = texture_descriptors(cv2.resize(image, (2 * w, 2 * h), interpolation=cv2.INTER_LINEAR))
    keep = (slice(None, None, 2), slice(None, None, 2))
    values = d.values.reshape(2 * h, 2 * w, -1)[keep].reshape(h * w, -1)
    rows = d.rows.reshape(2 * h, 2 * w)[keep].ravel() / 2
    cols = d.cols.reshape(2 * h, 2 * w)[keep].ravel() / 2
    return Descriptors(np.ascontiguousarray(values), rows.astype(np.float32),
                       cols.astype(np.float32), h, w)


def half_resolution(image: np.ndarray) -> np.ndarray:
    """The image shrunk to half its height and width (area averaging)."""
    import cv2

    h, w = image.shape[:2]
    return cv2.resize(image, (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA)


def color_low_resolution(image: np.ndarray) -> Descriptors:
    """The paper's colour descriptors of the half-resolution image."""
    from features._color import color_descriptors

    return color_descriptors(half_resolution(image))


def texture_low_resolution(image: np.ndarray) -> Descriptors:
    """The paper's MR8 texture descriptors of the half-resolution image."""
    from features._texture import texture_descriptors

    return texture_descriptors(half_resolution(image))


def sift_low_resolution(image: np.ndarray) -> Descriptors:
    """The paper's dense SIFT descriptors of the half-resolution image."""
    from features._sift import sift_descriptors

    return sift_descriptors(half_resolution(image))


#: variant -> {feature type it replaces: extractor}
VARIANTS = {
    "sift-half": {"sift": sift_half},
    "texture-half": {"texture": texture_half},
    "resolution-half": {"color": color_low_resolution, "texture": texture_low_resolution,
                        "sift": sift_low_resolution},
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("variant", choices=sorted(VARIANTS))
    add_system_arguments(p)
    args = p.parse_args(argv)

    from features._descriptors import FeatureType, feature_types
    from features._image_features import ImageFeatureConfig, ImageFeaturePipeline, ImageFeatures
    from features.kernels._image import weighted_matrix
    from features.kernels._intersection import intersection_block

    system = open_system_from(args)
    ws, spec = system.ws, system.spec
    corpus = ws.corpus
    replaced = VARIANTS[args.variant]
    sizes = {name: ft.vocabulary_size for name, ft in feature_types().items()}
    splits = ("train", "dev", "test")
    ids = [i for s in splits for i in corpus.split(s)]
    base = ws.image_features()
    variant_types = {name: FeatureType(name, extract, sizes[name])
                     for name, extract in replaced.items()}
    variant = ImageFeaturePipeline(corpus, ImageFeatureConfig(seed=0), feature_types=variant_types,
                                   cache=ws.cache, n_jobs=args.jobs).extract(ids)

    def items(split: str) -> list:
        out = []
        for i in corpus.split(split):
            b = base.features[i]
            pyramids = {**b.pyramids, **{name: variant.features[i].pyramids[name]
                                         for name in replaced}}
            out.append(ImageFeatures(i, pyramids, dict(b.n_samples), b.height, b.width, b.levels))
        return out

    types = ("color", "texture", "sift")
    W = {s: weighted_matrix(items(s), types, 2) for s in ("train", "dev")}
    image = {"train": intersection_block(W["train"], n_jobs=args.jobs),
             "dev": intersection_block(W["dev"], W["train"], n_jobs=args.jobs)}
    standard = ws.image_blocks(spec.image_kernel)
    for label, train, dev in (("standard", standard.train, standard.dev),
                              (args.variant, image["train"], image["dev"])):
        print(f"{spec.name} {label}: {describe(dev_check(system, train, dev))}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
