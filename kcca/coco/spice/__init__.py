"""pycocoevalcap-compatible spice (see :mod:`kcca.coco`)."""
