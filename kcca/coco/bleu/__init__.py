"""pycocoevalcap-compatible bleu (see :mod:`kcca.coco`)."""

__all__: list[str] = []
