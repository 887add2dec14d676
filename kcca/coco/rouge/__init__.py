"""pycocoevalcap-compatible rouge (see :mod:`kcca.coco`)."""

__all__: list[str] = []
