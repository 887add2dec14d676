"""Names shared by every layer.

``TASKS``: the two ranking tasks of Section 4.2, in the order every table lists them: image
annotation (an image ranks the pool's captions) and image search (a caption ranks the pool's
images). ``KS``: the cut-offs of R@k and S@k (Section 4.2.1, Tables 3-5 and 11-12).
"""

from __future__ import annotations

TASKS: tuple[str, str] = ("annotation", "search")
KS: tuple[int, int, int] = (1, 5, 10)
