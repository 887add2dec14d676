"""Turning images and captions into representations and kernels (Sections 3.3-3.5).

Image side: colour, texture and dense-SIFT visual words, histogram and spatial pyramid
kernels. Text side: caption preprocessing (``features.text``) and text kernels.

The public names (docs/design.md#public-api): the kernels are in :mod:`features.kernels` and
:mod:`features.text`; here, the vectors files that the ``vectors`` kernel reads (embeddings
computed outside the toolkit, one vector per image or caption id), loaded on first use.
"""

#: says this is kcca's ``features`` package, not the unrelated PyPI package of the same name
#: (checked by ``import kcca``)
KCCA_FEATURES = True

# imported after the mark, which importing kcca checks
from kcca._lazy import lazy_exports  # noqa: E402

__all__ = ["ItemVectors", "VectorsFileError", "read_item_vectors", "write_item_vectors"]

#: the public names that load on first use: name -> the module defining it
_LAZY = {
    "ItemVectors": "features._vectors_file",
    "VectorsFileError": "features._vectors_file",
    "read_item_vectors": "features._vectors_file",
    "write_item_vectors": "features._vectors_writer",
}
__getattr__, __dir__ = lazy_exports("features", _LAZY, globals())
