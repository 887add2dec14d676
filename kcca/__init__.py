"""Sentence-based image description and search framed as ranking (Hodosh et al., 2013).

The ``kcca`` package holds data sets, learning (KCCA, nearest neighbours), ranking,
evaluation and the ``kcca`` command; the sibling ``features`` package turns images and
captions into representations and kernels.
"""

__version__ = "0.1.0"

__all__ = ["KCCA", "KCCAGrid", "__version__"]


def __getattr__(name: str) -> type:
    """``kcca.KCCA`` and ``kcca.KCCAGrid`` without importing the solver at ``import kcca``."""
    if name in ("KCCA", "KCCAGrid"):
        from kcca import solver

        return getattr(solver, name)
    raise AttributeError(f"module 'kcca' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names plus the lazily imported ones (``dir(kcca)`` shows ``KCCA``)."""
    return sorted(set(globals()) | set(__all__))
