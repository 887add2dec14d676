"""The CaptionPreprocessor pipeline: each switch, presets, determinism, bad input."""

import pickle

import pytest

from kcca._cache import config_key
from kcca.data._errors import DataError
from features.text._pipeline import PRESETS, CaptionPreprocessor, check_captions, default_preset

pytestmark = pytest.mark.usefixtures("nltk_data_dir")

# a fast tagger for tests (the default trains a perceptron on all of Brown, cached)
FAST = dict(tagger="ngram", tagger_corpora=("treebank",), tagger_max_sents=1500)

TRAIN = (["A dog runs on the beach ."] * 3
         + ["A man in a T-shirt climbs the mountains ."] * 6
         + ["Two boys on a skateboard ."] * 6
         + ["A boy in a tee-shirt near the moutains .", "A girl on a skate board ."])

PAPER = "A large white dog runs and catches a red ball on the beach"


def is_subsequence(needle, hay):
    it = iter(hay)
    return all(any(w == h for h in it) for w in needle)


@pytest.fixture(scope="module")
def fitted():
    return CaptionPreprocessor(**FAST).fit(TRAIN)


@pytest.mark.slow
def test_paper_example_contains_both_triples(fitted):
    (out,) = fitted.transform([PAPER])
    assert is_subsequence(["dog", "run", "beach"], out), out
    assert is_subsequence(["dog", "catch", "ball"], out), out
    assert not {"a", "and", "on", "the"} & set(out)


def test_full_pipeline_on_training_captions(fitted):
    out = fitted.transform(["A boy in a tee-shirt near the moutains .", "a girl on a skate board",
                            "A man wearing a tshirt", "a man in a T shirt"])
    assert out[0] == ["boy", "t-shirt", "near", "mountain"]
    assert out[1] == ["girl", "skateboard"]
    assert "t-shirt" in out[2] and "t-shirt" in out[3]
    assert ("moutains", "mountains", 1) in fitted.corrections_
    assert ("skate board", "skateboard", 1) in fitted.merges_
    assert ("tee-shirt", "t-shirt", 1) in fitted.merges_
    assert fitted.n_fit_captions_ == len(TRAIN)


@pytest.mark.parametrize("switch, text, expect", [
    (dict(stop_words=None), "a dog on the beach", ["a", "dog", "on", "the", "beach"]),
    (dict(lemmatize=False), "two dogs runs", ["two", "dogs", "runs"]),
    (dict(compounds=False), "a tee-shirt", ["tee-shirt"]),
    (dict(spelling=False), "the moutains", ["moutains"]),
    (dict(lowercase=False, stop_words=None, lemmatize=False), "A Dog", ["A", "Dog"]),
    (dict(drop_punctuation=False, stop_words=None, lemmatize=False), "dog .", ["dog", "."]),
    (dict(split_hyphens=True), "a tee-shirt", ["t", "shirt"]),
    (dict(tagger=None), "two dogs catches", ["two", "dog", "catch"]),
])
def test_each_switch(switch, text, expect):
    pre = CaptionPreprocessor(**{**FAST, **switch}).fit(TRAIN)
    assert pre.transform([text]) == [expect]


def test_fit_is_deterministic_and_params_are_a_cache_key(fitted):
    again = CaptionPreprocessor(**FAST).fit(list(reversed(TRAIN)))
    assert again.corrections_ == fitted.corrections_ and again.merges_ == fitted.merges_
    assert again.transform(TRAIN) == fitted.transform(TRAIN)
    assert config_key(again.get_params()) == config_key(fitted.get_params())
    assert config_key(CaptionPreprocessor(**FAST, spelling=False).get_params()) != \
        config_key(fitted.get_params())


def test_config_resolves_step_defaults():
    base = CaptionPreprocessor(**FAST)
    explicit = CaptionPreprocessor(**FAST, spelling_options={"long_word": 8})
    assert explicit.config()["spelling"] == base.config()["spelling"]
    assert config_key(explicit.get_params()) != config_key(base.get_params())
    other = CaptionPreprocessor(**FAST, spelling_options={"long_word": 9})
    assert config_key(other.config()) != config_key(base.config())
    assert ["tee-shirt", "t-shirt"] in [list(x) for x in base.config()["compounds"]["hand_table"]]
    assert "tagger" in base.config() and "tagger" not in \
        CaptionPreprocessor(**FAST, lemmatize=False).config()


def test_transform_does_not_learn(fitted):
    before = (list(fitted.merges_), list(fitted.corrections_))
    fitted.transform(["a hot dog", "a hotdog"] * 10)
    assert (fitted.merges_, fitted.corrections_) == before
    assert fitted.transform(["a hot dog"]) == [["hot", "dog"]]


def test_fitted_preprocessor_pickles(fitted):
    clone = pickle.loads(pickle.dumps(fitted))
    assert clone.transform([PAPER]) == fitted.transform([PAPER])


def test_presets():
    paper = CaptionPreprocessor.paper_flickr8k()
    assert paper.get_params() == CaptionPreprocessor.from_preset("flickr8k-lemma").get_params()
    assert default_preset("flickr8k") == "flickr8k-lemma"
    # other splits / training subsets of Flickr 8K keep the paper's preset
    assert default_preset("flickr8k-splits-mysplits") == "flickr8k-lemma"
    assert default_preset("flickr8kx") == default_preset("flickr30k") == "flickr8k-full"
    p = paper.get_params()
    assert p["source"] == "lemmas" and p["tokenizer"] == "whitespace"
    assert p["stop_words"] == "nltk-english"
    assert not (p["spelling"] or p["compounds"] or p["lemmatize"])
    lemma_lines = ["Two dog play in the snow .", "A man wear a T-shirt ."]
    assert paper.fit(lemma_lines).transform(lemma_lines) == [
        ["two", "dog", "play", "snow"], ["man", "wear", "t-shirt"]]
    bleu = CaptionPreprocessor.from_preset("bleu-rouge").fit(["a dog"])
    assert bleu.transform(["A man in a T-shirt ."]) == [["a", "man", "in", "a", "t", "shirt"]]
    assert set(PRESETS) >= {"flickr8k-lemma", "flickr8k-full", "bleu-rouge"}
    with pytest.raises(ValueError, match="unknown preprocessing preset"):
        CaptionPreprocessor.from_preset("paper")


def test_bad_input_names_the_item(fitted):
    with pytest.raises(TypeError, match="one string"):
        fitted.transform("a dog")
    with pytest.raises(TypeError, match="caption at position 1 is a NoneType"):
        fitted.transform(["a dog", None])
    with pytest.raises(DataError, match=r"caption 'img\.jpg#3' is empty"):
        check_captions(["a dog", "  "], ids=["img.jpg#0", "img.jpg#3"])
    with pytest.raises(RuntimeError, match="not fitted"):
        CaptionPreprocessor().transform(["a dog"])
    with pytest.raises(ValueError, match="source must be one of"):
        CaptionPreprocessor(source="raw").fit(["a dog"])


def test_all_stop_word_caption_gives_empty_list(fitted, caplog):
    assert fitted.transform(["A"]) == [[]]
    assert "no token left" in caplog.text
