"""What vulture reports as unused in ``kcca`` and ``features`` but is public API or data.

vulture (``tests/test_architecture.py``) sees only the library: a name counts as used when the
library itself uses it. Everything below is used from outside, by users, by the ``kcca``
command's plug-in and file machinery, by scikit-learn or by Python, so it is listed here with
the reason, one line each. This file is never imported; vulture only reads the names.
"""

import kcca
from features._codebook import Codebook
from features.kernels._fisher import FisherKernel
from features.kernels._image import HistogramKernel
from features.kernels._mixture import MixtureKernel
from features.kernels._vectors import VectorsKernel
from features._pyramid import level_slices
from features._sift import opencv_sift_descriptors
from features.text._pipeline import CaptionPreprocessor
from features.text._similarity_alignment import AlignmentSimilarity, IBMAligner
from features.text._similarity_lin import LinSimilarity
from features._texture import mr8_filter_bank
from kcca._borda import BordaResult
from kcca.captions._bast import BastResult
from kcca.captions._content_selection import position_ranking, size_ranking
from kcca.captions._flickr_st import ALL_FILE, SemanticTuple
from kcca.captions._human_agreement import precision_at_human_recall
from kcca.captions._keywords import KeywordScorer, SemEvalResult, documents_from_rankings
from kcca.captions._meteor_engine.params import MODULES
from kcca.captions._meteor_engine.paraphrase import ParaphraseIndex
from kcca.captions._meteor_engine.resources import MeteorResources
from kcca.captions._meteor_engine.synonyms import SynonymDictionary
from kcca.coco.bleu import bleu_scorer
from kcca.coco.bleu.bleu_scorer import BleuScorer
from kcca.coco.cider.cider_scorer import CiderScorer
from kcca.coco.eval import COCOEvalCap
from kcca.coco.meteor import meteor
from kcca.coco.meteor.meteor import Meteor
from kcca.coco.rouge import rouge
from kcca.coco.rouge.rouge import Rouge
from kcca.coco.spice import spice
from kcca.coco.spice.spice import Spice
from kcca.data._corpus import CrowdJudgment
from kcca.data._demo_grammar import surface_forms
from kcca._evaluate.judging_protocol import RelevanceModel
from kcca._evaluate.statistics import McNemarResult
from kcca._lowrank import KernelColumns
from kcca._model.encoders import TextEncoder
from kcca._model.saved import FittedSystem
from kcca._report.gather import ReportData
from kcca._report.browser import screenshot
from kcca._scoring import annotation_scores, search_scores
from kcca._solver import KCCA, KCCAGrid
from kcca._systems.spec import SystemSpec
from kcca._systems.spec_keys import keys_markdown

# --- Python's protocols
kcca.__getattr__  # module __getattr__ (also features.text's): lazily imported names, PEP 562
kcca.__dir__  # module __dir__ (also features.text's): dir() lists the lazy names
kcca.__doc__  # features._descriptors sets the docstring of the config functions it builds

# --- scikit-learn's estimator API and fitted attributes (trailing underscore)
KCCA.fit_transform  # TransformerMixin API
CaptionPreprocessor.fit_transform  # TransformerMixin API
KCCA.correlations_  # fitted: the canonical correlations (KCCA and KCCAGrid)
KCCA.rank_x_  # fitted: the rank kept of the image kernel's factor
KCCA.rank_y_  # fitted: the rank kept of the text kernel's factor
KCCAGrid.iter_models  # public: the fitted grid's (kappa, n) models
KCCA.__sklearn_tags__().input_tags.pairwise  # scikit-learn reads the tag: precomputed kernels
KCCA.__sklearn_tags__().transformer_tags  # scikit-learn reads the tag
Codebook.n_samples_fit_  # fitted: descriptors the codebook was fitted on
Codebook.config_  # set by ImageFeaturePipeline: the feature configuration of the codebook
CaptionPreprocessor.n_fit_captions_  # fitted: captions seen by fit
IBMAligner.alignment_  # fitted: IBM model alignment probabilities
IBMAligner.max_len_  # fitted: longest sentence of the training pairs
IBMAligner.n_pairs_  # fitted: training pairs
AlignmentSimilarity.stats_  # fitted: the POS statistics behind the similarity
AlignmentSimilarity.nouns_  # fitted: the noun vocabulary
AlignmentSimilarity.verbs_  # fitted: the verb vocabulary
AlignmentSimilarity.noun_aligner_  # fitted: the noun aligner
AlignmentSimilarity.verb_aligner_  # fitted: the verb aligner
LinSimilarity.synsets_  # fitted: WordNet synsets of the columns
LinSimilarity.sense_  # fitted: each word's chosen sense

# --- kernels registered by name with @register_kernel (looked up by experiment files)
FisherKernel  # registered kernel
HistogramKernel  # registered kernel (K^HISTO, eq. 5-6)
MixtureKernel  # registered kernel
VectorsKernel  # registered kernel (vectors read from a file)

# --- the pycocoevalcap 1.2 drop-in API (kcca.coco)
COCOEvalCap  # pycocoevalcap's class name
COCOEvalCap.evaluate  # pycocoevalcap's method
COCOEvalCap.evalImgs  # pycocoevalcap's attribute
Spice  # pycocoevalcap's scorer name (pycocoevalcap's SPICE where it can run)
BleuScorer.crefs  # pycocoevalcap's attributes: the cooked references and candidates
BleuScorer.ctest
BleuScorer.rescore  # pycocoevalcap's methods
BleuScorer.single_reflen
BleuScorer.recompute_score
CiderScorer.crefs  # pycocoevalcap's attributes: the cooked references and candidates
CiderScorer.ctest
Meteor._stat  # pycocoevalcap's per-sentence METEOR, which public code calls
rouge.my_lcs  # pycocoevalcap's module function
Rouge.calc_score  # pycocoevalcap's per-image ROUGE-L
meteor.METEOR_JAR  # pycocoevalcap's module constants
spice.TEMP_DIR
spice.CACHE_DIR
bleu_scorer  # the module of pycocoevalcap's BleuScorer

# --- fields of result and record types (read by users and reports)
BordaResult.median_position  # per-item median position of the Borda count
BordaResult.mean_position  # per-item mean position of the Borda count
BastResult.skipped_empty_gold  # images skipped for lack of gold tuples
SemanticTuple.annotation_id  # the Flickr-ST annotation's id
SemanticTuple.loc_preps  # spans of the locative prepositions
SemanticTuple.tacit_arguments  # names of the tacit fields
SemEvalResult.n_attempted  # items with a guess
SemEvalResult.per_item_best  # per-item best-guess scores
SemEvalResult.per_item_oot  # per-item out-of-ten scores
MeteorResources.index_source  # whether the paraphrase index was loaded or built
CrowdJudgment.fraction_yes  # the crowd's yes fraction of a pair
RelevanceModel.n_fitted  # pairs the judging model was fitted on
RelevanceModel.base_rate  # the judging model's base rate
McNemarResult.two_sided  # whether the test is two-sided
TextEncoder.training_source  # where the encoder's training text came from
ReportData.with_data  # False: made from compact results
SystemSpec.description  # the experiment file's description of a system
SystemSpec.plugins  # the experiment file's plug-in modules
ALL_FILE  # the Flickr-ST file of all annotations (beside the clean gold file)
MODULES  # names the Meteor modules that MODULE_WEIGHTS weigh, in the jar's order

# --- public functions and methods of the API (documented; used by users, not the library)
level_slices  # the rows of each pyramid level (eq. 8)
mr8_filter_bank  # the 38 MR8 filters (Section 3.3 texture)
opencv_sift_descriptors  # OpenCV's SIFT on the same grid: benchmarks/bench_descriptors.py
size_ranking  # Section 4.1 content-selection baseline (i)
position_ranking  # Section 4.1 content-selection baseline (ii)
precision_at_human_recall  # PHR of a system for one word
KeywordScorer  # top-k keywords with the scorer interface
documents_from_rankings  # keyword documents from a ranking system's top captions
ParaphraseIndex.n_phrases  # size of the paraphrase index
SynonymDictionary.from_text  # the synonym index from the jar's two files
SynonymDictionary.all_synsets  # one word's synsets, as the synonym matcher compares
surface_forms  # the demo grammar's surface forms of a concept value
KernelColumns  # low-rank columns of any kernel of the contract
FittedSystem.caption_pool_from_file  # a caption pool from a text file
FittedSystem.rank_pool  # Borda rankings of projected queries
annotation_scores  # image annotation scores (eq. 1)
search_scores  # image search scores (eq. 1)
keys_markdown  # writes the key table of experiments/README.md (test_spec_keys checks it)
screenshot  # used by scripts/screenshot_report.py

# --- attributes that outside libraries read
webdriver_options = None
webdriver_options.binary_location  # selenium's ChromeOptions: the Chromium to start
