"""pycocoevalcap-compatible cider (see :mod:`kcca.coco`)."""

__all__: list[str] = []
