"""pycocoevalcap-compatible rouge (see :mod:`kcca.coco`)."""
