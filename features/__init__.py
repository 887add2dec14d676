"""Turning images and captions into representations and kernels (Sections 3.3-3.5).

Image side: colour, texture and dense-SIFT visual words, histogram and spatial pyramid
kernels. Text side: caption preprocessing (``features.text``) and text kernels.
"""
