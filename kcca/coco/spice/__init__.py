"""pycocoevalcap-compatible spice (see :mod:`kcca.coco`)."""

__all__: list[str] = []
