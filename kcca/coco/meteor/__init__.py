"""pycocoevalcap-compatible meteor (see :mod:`kcca.coco`)."""

__all__: list[str] = []
