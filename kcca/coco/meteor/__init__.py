"""pycocoevalcap-compatible meteor (see :mod:`kcca.coco`)."""
