"""pycocoevalcap-compatible bleu (see :mod:`kcca.coco`)."""
