"""Turning images and captions into representations and kernels (Sections 3.3-3.5).

Image side: colour, texture and dense-SIFT visual words, histogram and spatial pyramid
kernels. Text side: caption preprocessing (``features.text``) and text kernels.
"""

#: says this is kcca's ``features`` package, not the unrelated PyPI package of the same name
#: (checked by ``import kcca``)
KCCA_FEATURES = True
