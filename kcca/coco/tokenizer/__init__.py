"""pycocoevalcap-compatible tokenizer (see :mod:`kcca.coco`)."""

__all__: list[str] = []
