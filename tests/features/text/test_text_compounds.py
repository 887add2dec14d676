"""Step 3: compound normalisation (features.text._compounds)."""

from features.text._compounds import CompoundNormalizer
from features.text._tokenize import tokenize

STOPS = ("a", "the", "in", "on", "to")


def fit(captions, **kw):
    toks = [tokenize(c) for c in captions]
    return CompoundNormalizer(stop_words=STOPS, **kw).fit(toks), toks


def test_t_shirt_family_maps_to_hyphenated_form():
    norm, _ = fit(["a man in a shirt"])
    for text in ["a man in a t shirt", "a man in a tee-shirt", "a man in a T-shirt",
                 "a man in a tshirt", "a man in a tee shirt", "a man in a teeshirt"]:
        assert norm.transform_one(tokenize(text)) == ["a", "man", "in", "a", "t-shirt"], text
    assert norm.transform_one(["two", "tee", "shirts"]) == ["two", "t-shirts"]


def test_learned_merge_to_most_frequent_single_token_form():
    caps = ["a boy on a skateboard"] * 6 + ["a boy on a skate board", "a skate-board ramp"]
    norm, toks = fit(caps)
    assert norm.transform_one(["skate", "board"]) == ["skateboard"]
    assert norm.transform_one(["skate-board"]) == ["skateboard"]
    assert ("skate board", "skateboard", 1) in norm.merges_
    assert ("skate-board", "skateboard", 1) in norm.merges_
    # hyphenated canonical form when it is the more frequent one
    norm, _ = fit(["a tree-lined street"] * 5 + ["a tree lined street", "treelined"])
    assert norm.transform_one(["tree", "lined"]) == ["tree-lined"]
    assert norm.transform_one(["treelined"]) == ["tree-lined"]


def test_conservative_rules():
    # a stop word in the bigram blocks the merge ("a way" is not "away")
    norm, _ = fit(["a dog runs away"] * 6 + ["a way through the woods"])
    assert norm.transform_one(["a", "way"]) == ["a", "way"]
    # the spaced phrase is more common than the solid word: a different word, left alone
    norm, _ = fit(["a girl in a black top"] * 6 + ["a car on the blacktop"] * 5)
    assert norm.transform_one(["black", "top"]) == ["black", "top"]
    # canonical form too rare
    norm, _ = fit(["a dirtbike"] * 2 + ["a dirt bike"])
    assert norm.transform_one(["dirt", "bike"]) == ["dirt", "bike"]
    # learning off: only the hand table
    norm, _ = fit(["a boy on a skateboard"] * 6 + ["a skate board"], learn=False)
    assert norm.transform_one(["skate", "board"]) == ["skate", "board"]
    assert norm.transform_one(["tshirt"]) == ["t-shirt"]


def test_hand_table_can_be_switched_off():
    norm, _ = fit(["a man in a shirt"], hand_table={})
    assert norm.transform_one(["tee-shirt"]) == ["tee-shirt"]
