"""The settings that ``java -jar meteor-1.5.jar - - -stdio -l en -norm`` runs with.

With ``-l en`` and no ``-t`` the jar uses its default task, ``rank`` (``Constants.TASK_DEFAULT``;
Denkowski & Lavie 2014, Table 1, the parameters tuned on WMT ranking judgments), and the
English modules exact, stem, synonym and paraphrase in that order. These values were read
from the jar itself (``MeteorConfiguration`` for ``-l en -norm``), not only from its source.

Score of one segment (Denkowski & Lavie 2014, Section 2; Chen et al. 2015, Section 3.5,
eq. 11-15): with ``m_i`` the matches of stage ``i`` counted separately for content and
function words, and ``h``/``r`` the hypothesis and reference,

    P = sum_i w_i (delta m_i(h_c) + (1 - delta) m_i(h_f)) / (delta |h_c| + (1 - delta) |h_f|)
    R = the same over the reference
    Fmean = P R / (alpha P + (1 - alpha) R)
    Pen = gamma (chunks / matches) ** beta
    METEOR = Fmean (1 - Pen)

where ``matches`` is the average number of matched words of the two sides and ``chunks`` the
number of runs of matches that are contiguous and in the same order in both.
"""

#: alpha, beta, gamma, delta of the "rank" task for English (Constants.PARAM_RANK[0])
ALPHA = 0.85
BETA = 0.20
GAMMA = 0.60
DELTA = 0.75

#: the English modules in matching order and their score weights (Constants.WEIGHT_RANK[0])
MODULES = ("exact", "stem", "synonym", "paraphrase")
MODULE_WEIGHTS = (1.0, 0.6, 0.8, 0.6)

#: weights the aligner uses to rank partial alignments (MeteorScorer.loadConfiguration
#: replaces the task weights by these "best weights for evaluation")
SEARCH_WEIGHTS = (1.0, 0.5, 0.5, 0.5)
# (the aligner relies on these being multiples of 1/2: see the kernel's ``resolve``)
assert all((2 * w).is_integer() for w in SEARCH_WEIGHTS)

#: partial alignments kept at each step of the aligner's search (Constants.DEFAULT_BEAM_SIZE)
BEAM_SIZE = 40
