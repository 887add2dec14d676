"""Data sets: Flickr 8K, corpora in the JSON split format, and the embedded demo corpus.

The loaders (:func:`load_flickr8k`, :func:`load_json_splits`, :func:`make_demo_corpus`) load on
first use; :class:`~kcca.errors.DataError` is in :mod:`kcca.errors`.
"""

from __future__ import annotations

from pathlib import Path

from kcca._lazy import lazy_exports
from kcca.data._corpus import Corpus, CrowdJudgment, ExpertJudgment, caption_id
from kcca.data._errors import DataError, ImageReadError

__all__ = [
    "Corpus",
    "CrowdJudgment",
    "ExpertJudgment",
    "ImageReadError",
    "caption_id",
    "load_corpus",
    "load_flickr8k",
    "load_json_splits",
    "make_demo_corpus",
]

#: the public names that load on first use: name -> the module defining it
_LAZY = {
    "load_flickr8k": "kcca.data._flickr8k",
    "load_json_splits": "kcca.data._json_splits",
    "make_demo_corpus": "kcca.data._demo",
}
__getattr__, __dir__ = lazy_exports("kcca.data", _LAZY, globals())


def load_corpus(
    name: str, data_dir: str | Path | None = None, *, seed: int = 0, images: bool = True, **kwargs
) -> Corpus:
    """Load a corpus by name: ``"flickr8k"``, ``"demo"``, or the path of a JSON split file.

    ``data_dir`` (else ``$KCCA_DATA_DIR``) is needed for Flickr 8K; for a JSON file the
    images are looked up in ``kwargs["images_dir"]`` when given, and each of the train, dev
    and test splits must have images.
    """
    if name == "demo":
        from kcca.data._demo import make_demo_corpus

        return make_demo_corpus(seed=seed, **kwargs)
    if name == "flickr8k":
        from kcca.data._flickr8k import load_flickr8k
        from kcca.data._paths import resolve_data_dir

        return load_flickr8k(resolve_data_dir(data_dir), images=images, **kwargs)
    if name.endswith(".json"):
        from kcca.data._json_splits import load_json_splits

        return load_json_splits(name, require_splits=True, **kwargs)
    raise DataError(f"unknown corpus {name!r}: use flickr8k, demo, or a path to a JSON split file")
