"""pycocoevalcap-compatible tokenizer (see :mod:`kcca.coco`)."""
