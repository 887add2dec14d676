"""Meteor 1.5 without Java, equal to the jar that pycocoevalcap 1.2 runs.

Meteor (Denkowski & Lavie 2014, "Meteor Universal: Language Specific Translation Evaluation
for Any Target Language"; in the COCO caption evaluation, Chen et al. 2015, Section 3.5)
aligns a hypothesis with each reference through exact, stem, WordNet-synonym and paraphrase
matches, and scores the alignment by a recall-weighted F-mean of precision and recall (with
function words down-weighted) times a fragmentation penalty. This package re-implements the
jar's ``-l en -norm`` configuration module by module, from its public source
(github.com/cmu-mtlab/meteor, which the classes inside pycocoevalcap's jar match):

* :mod:`.params` - the English "rank" task's parameters and module weights;
* :mod:`.normalize` - the ``-norm`` tokeniser/normaliser;
* :mod:`.stemmer` - the jar's Snowball English stemmer;
* :mod:`.synonyms` - WordNet synsets and the morphology that finds base forms;
* :mod:`.paraphrase` - the paraphrase table as a cached trie index;
* :mod:`.resources` - reading all of these from the installed jar, and the cache;
* :mod:`.arrays` - the segments of a scoring call as flat arrays;
* :mod:`.kernel` - the four matching stages, the beam search for the alignment (with its
  tie-breaks), the score formula and the best reference of each item, compiled with numba;
* :mod:`.stats` - sufficient statistics and their corpus aggregate;
* :mod:`.engine` - scoring items with several references, as the jar's stdio mode.

Its plain-Python transcription, the test oracle, is ``tests/support/meteor_oracle.py``.

Use it through :class:`kcca.captions.Meteor` (``engine="python"``, the default).
"""

from kcca.captions._meteor_engine.engine import MeteorEngine, split_score_line
from kcca.captions._meteor_engine.resources import MeteorResources, paraphrase_table_path

__all__ = [
    "MeteorEngine",
    "MeteorResources",
    "paraphrase_table_path",
    "split_score_line",
]
