"""pycocoevalcap-compatible cider (see :mod:`kcca.coco`)."""
