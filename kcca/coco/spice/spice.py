"""SPICE (Anderson et al. 2016) is not computed here: it parses captions into scene graphs
with Stanford CoreNLP, which needs Java and about 1 GB of models."""

from __future__ import annotations

from kcca.coco._compat import SpiceUnavailable


class Spice:
    """Raises :class:`~kcca.coco.SpiceUnavailable`: use pycocoevalcap's ``Spice`` (Java).

    Stands in for pycocoevalcap's ``pycocoevalcap.spice.spice.Spice`` so that a script's
    imports resolve; :class:`kcca.coco.eval.COCOEvalCap` computes every other metric.

    Examples
    --------
    >>> from kcca.coco.spice.spice import Spice
    >>> Spice()
    Traceback (most recent call last):
    ...
    kcca.coco._compat.SpiceUnavailable: SPICE is not available in kcca.coco: ...
    """

    def __init__(self):
        raise SpiceUnavailable(
            "SPICE is not available in kcca.coco: it needs Java and the Stanford CoreNLP "
            "models; compute it with pycocoevalcap (pip install pycocoevalcap==1.2, "
            "from pycocoevalcap.spice.spice import Spice), or leave it out "
            "(kcca.coco.eval.COCOEvalCap computes every other metric)"
        )

    def method(self) -> str:
        return "SPICE"
