"""Steps 4-5: stop words, POS tagger, WordNet lemmatisation."""

import random

import pytest

from kcca._cache import Cache
from features.text._lemmatize import WordNetLemmatizer
from features.text._postag import TaggerConfig, load_tagger, tag_tokens, train_tagger
from features.text._stopwords import remove_stop_words, resolve_stop_words

pytestmark = pytest.mark.usefixtures("nltk_data_dir")


def test_nltk_english_stop_words():
    stops = resolve_stop_words("nltk-english")
    assert len(stops) == 179
    assert {"a", "the", "and", "on", "is", "be"} <= stops and "dog" not in stops
    assert resolve_stop_words(None) == frozenset()
    assert remove_stop_words(["a", "dog", "be", "run"], stops) == ["dog", "run"]
    # surface stop words go too ("as" -> "a" by WordNet's noun morphology)
    assert remove_stop_words(["dog", "a"], stops, surface=["dogs", "as"]) == ["dog"]
    with pytest.raises(ValueError, match="unknown stop-word list"):
        resolve_stop_words("english")


def test_wordnet_lemmas_under_the_tag():
    lem = WordNetLemmatizer()
    assert lem.lemma("catches", "VERB") == "catch"
    assert lem.lemma("running", "VERB") == "run"
    assert lem.lemma("running", "NOUN") == "running"
    assert lem.lemma("mice", "NOUN") == "mouse"
    assert lem.lemma("is", "VERB") == "be"
    # several lemmas: the most frequent in WordNet wins (NLTK's shortest-lemma rule gives "rid")
    assert lem.lemma("riding", "VERB") == "ride"
    assert lem.lemma("men", "NOUN") == "man"
    assert lem.lemma("the", "DET") == "the"
    assert lem.lemma("moutains", "NOUN") == "moutains"  # unknown to WordNet: unchanged
    assert lem.lemma("t-shirts", "NOUN") == "t-shirt"
    # the tagged POS gives nothing: fall back to the other open classes
    assert lem.lemma("catches", "ADJ") == "catch"
    assert WordNetLemmatizer(fallback=False).lemma("catches", "ADJ") == "catches"
    with pytest.raises(ValueError, match="2 tags for 1 tokens"):
        lem.lemmatize(["dog"], ["NOUN", "VERB"])


def test_ngram_tagger_is_cached_and_tags_universal(tmp_path, monkeypatch):
    import features.text._postag as postag

    # a tagger another test loaded in this process is kept in memory: start from none
    monkeypatch.setattr(postag, "_MEMO", {})
    cfg = TaggerConfig(kind="ngram", corpora=("treebank",), max_sents=1500)
    tagger = load_tagger(cfg, cache=Cache(tmp_path))
    assert list((tmp_path / "pos-tagger").glob("*.entry"))
    tags = tag_tokens(tagger, "the dog is running on the beach".split())
    assert tags[0] == "DET" and tags[1] == "NOUN" and tags[3] == "VERB"
    assert tag_tokens(tagger, []) == []


def test_perceptron_training_is_seeded():
    cfg = TaggerConfig(kind="perceptron", corpora=("treebank",), max_sents=300, n_iter=2, seed=3)
    before = random.getstate()
    a = train_tagger(cfg)
    assert random.getstate() == before  # the global generator is restored
    b = train_tagger(cfg)
    assert a.model.weights == b.model.weights
    c = train_tagger(TaggerConfig(kind="perceptron", corpora=("treebank",), max_sents=300,
                                  n_iter=2, seed=4))
    assert c.model.weights != a.model.weights


def test_bad_tagger_config():
    with pytest.raises(ValueError, match="unknown tagger kind"):
        TaggerConfig(kind="opennlp")
