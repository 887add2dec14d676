"""Names shared by every layer.

``TASKS``: the two ranking tasks of Section 4.2, in the order every table lists them: image
annotation (an image ranks the pool's captions) and image search (a caption ranks the pool's
images). ``KS``: the cut-offs of R@k and S@k (Section 4.2.1, Tables 3-5 and 11-12).
``WORD_KERNELS``: the lexical similarities a trigram kernel can take (Section 3.5: Lin, eq. 22;
distributional, eq. 24-26; alignment, eq. 25; ``X+align`` for eq. 27), by the names experiment
files and ``kcca similar-words`` use (:mod:`features.text._word_kernels` builds them).
``PROTOCOLS``: the test protocols a run ranks under: the paper's pool of one caption per image
(Section 4.1.1) and the later literature's pool of every caption
(:mod:`kcca._evaluate.protocol_ranks`).
"""

from __future__ import annotations

TASKS: tuple[str, str] = ("annotation", "search")
KS: tuple[int, int, int] = (1, 5, 10)
PROTOCOLS: tuple[str, str] = ("paper", "all-captions")

WORD_KERNELS: tuple[str, ...] = (
    "lin",
    "dist-ic",
    "dist-ext",
    "dist-avg",
    "align",
    "dist-ic+align",
    "dist-ext+align",
    "dist-avg+align",
)
