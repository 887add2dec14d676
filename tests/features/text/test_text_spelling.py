"""Step 2: spelling correction of unknown words (features.text._spelling)."""

import pytest

from features.text._spelling import KnownWords, SpellingCorrector, deletions, osa_distance

pytestmark = pytest.mark.usefixtures("nltk_data_dir")


def corpus(*pairs):
    """Token lists: each (word, n) pair contributes n one-word captions."""
    return [["the", w] for w, n in pairs for _ in range(n)]


def test_osa_distance_and_deletions():
    assert osa_distance("moutains", "mountains") == 1
    assert osa_distance("wmoan", "woman") == 1  # adjacent swap
    assert osa_distance("moutains", "fountains") == 2
    assert osa_distance("", "abc") == 3
    assert deletions("abc", 1) == {"abc", "ab", "ac", "bc"}


def test_known_words_from_wordnet_morphology_and_word_list():
    known = KnownWords()
    for w in ["skier", "frisbee", "mountains", "runs", "t-shirt", "snow-covered", "boat"]:
        assert w in known, w
    for w in ["moutains", "boet", "dirtbike"]:
        assert w not in known, w


def test_known_words_are_never_corrected():
    # "skier" is one edit from the far more frequent "skies", but it is a known word
    sc = SpellingCorrector().fit(corpus(("skies", 20), ("skier", 1), ("frisbee", 1),
                                        ("frisbees", 20)))
    assert sc.correct("skier") == "skier"
    assert sc.correct("frisbee") == "frisbee"
    assert sc.corrections_ == []


def test_unique_best_candidate_is_used_and_logged():
    sc = SpellingCorrector().fit(corpus(("mountains", 6), ("fountains", 6), ("moutains", 1)))
    assert sc.correct("moutains") == "mountains"  # distance 1 beats fountains at distance 2
    assert sc.corrections_ == [("moutains", "mountains", 1)]
    assert sc.transform([["the", "moutains"]]) == [["the", "mountains"]]


def test_ambiguous_misspelling_is_left_unchanged():
    sc = SpellingCorrector().fit(corpus(("boat", 6), ("boot", 6), ("boet", 1)))
    assert sc.correct("boet") == "boet"  # boat and boot tie at distance 1
    assert sc.corrections_ == []
    sc = SpellingCorrector().fit(corpus(("boat", 6), ("boet", 1)))
    assert sc.correct("boet") == "boat"


def test_candidates_must_be_frequent_and_much_more_frequent():
    sc = SpellingCorrector().fit(corpus(("boat", 4), ("boet", 1)))
    assert sc.correct("boet") == "boet"  # boat seen fewer than 5 times: no candidate
    sc = SpellingCorrector().fit(corpus(("boat", 6), ("boet", 3)))
    assert sc.correct("boet") == "boet"  # 6 < 3 * 3


def test_frequent_unknown_words_short_tokens_and_protected_tokens_are_left_alone():
    sc = SpellingCorrector().fit(corpus(("bike", 200), ("bikr", 12), ("at", 50), ("atv", 1),
                                        ("dirt", 9), ("dirtbike", 1)))
    assert sc.correct("bikr") == "bikr"  # seen >= 10 times: a word of the domain
    assert sc.correct("atv") == "atv"    # shorter than 4 letters
    sc = SpellingCorrector(protected=("dirtbike",)).fit(corpus(("dirtbikes", 9),))
    assert sc.correct("dirtbike") == "dirtbike"


def test_deterministic_whatever_the_order():
    data = corpus(("mountains", 6), ("boat", 6), ("moutains", 1), ("boet", 1), ("bote", 1))
    a = SpellingCorrector().fit(data).corrections_
    b = SpellingCorrector().fit(list(reversed(data))).corrections_
    assert a == b and ("moutains", "mountains", 1) in a
