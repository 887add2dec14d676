"""The paper's systems by name (Hodosh et al. 2013): the rows of Tables 11 and 12 in the
paper's order (:data:`SYSTEMS`), and the short names Section 4 gives six of them
(:data:`SECTION4_NAMES`).

Names are ASCII: ``sqrtidf`` for the sqrt-idf superscript, ``D(BNC)`` etc. for the
distributional subscripts. The runner orders its run details by these names
(:func:`kcca._evaluate.results_files.merge_details`), and every report keys systems by
:func:`paper_name`.
"""

from __future__ import annotations

SYSTEMS: tuple[str, ...] = (
    "NN5_F1",
    "NN5_F1^idf",
    "NN5_BoW5",
    "NN5_TRI(best)",
    "BoW1",
    "TRI1",
    "BoW5^HISTO",
    "BoW5",
    "BoW5^idf",
    "BoW5^sqrtidf",
    "TAGRANK",
    "TRI5^HISTO",
    "TRI5",
    "TRI5_Lin",
    "TRI5_D(BNC)",
    "TRI5_D(ic)",
    "TRI5_D(BNC+ic)",
    "TRI5_A",
    "TRI5_A,D(BNC)",
    "TRI5_A,D(ic)",
    "TRI5_A,D(BNC+ic)",
    "TRI5^sqrtidf",
    "TRI5^sqrtidf_D(BNC)",
    "TRI5^sqrtidf_D(ic)",
    "TRI5^sqrtidf_D(BNC+ic)",
    "TRI5^sqrtidf_A",
    "TRI5^sqrtidf_A,D(BNC)",
    "TRI5^sqrtidf_A,D(ic)",
    "TRI5^sqrtidf,HISTO_A,D(BNC+ic)",
    "TRI5^sqrtidf_A,D(BNC+ic)",
)
SECTION4_NAMES = {
    "NN": "NN5_F1^idf",
    "BoW1": "BoW1",
    "BoW5": "BoW5",
    "TAGRANK": "TAGRANK",
    "TRI5": "TRI5",
    "TRI5SEM": "TRI5^sqrtidf_A,D(BNC+ic)",
}


def paper_name(system: str) -> str:
    """A system's name as the paper's tables give it (Section 4's short names mapped)."""
    return SECTION4_NAMES.get(system, system)
