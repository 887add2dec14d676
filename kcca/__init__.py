"""Sentence-based image description and search framed as ranking (Hodosh et al., 2013).

The ``kcca`` package holds data sets, learning (KCCA, nearest neighbours), ranking,
evaluation and the ``kcca`` command; the sibling ``features`` package turns images and
captions into representations and kernels.
"""

__version__ = "0.1.0"
