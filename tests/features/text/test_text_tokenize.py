"""Step 1: tokenisation, lower-casing, punctuation (features.text._tokenize)."""

import pytest

from features.text._tokenize import break_hyphens, has_alnum, tokenize


def test_treebank_keeps_hyphens_lowercases_and_drops_punctuation():
    assert tokenize('A man in a T-shirt, "jumping" off a rock!') == [
        "a", "man", "in", "a", "t-shirt", "jumping", "off", "a", "rock"]


def test_split_hyphens_for_bleu_pipeline():
    assert tokenize("A T-shirt and a 3-wheeler .", split_hyphens=True) == [
        "a", "t", "shirt", "and", "a", "3", "wheeler"]
    assert break_hyphens(["t-shirt", "--", "x"]) == ["t", "shirt", "--", "x"]


def test_whitespace_tokenizer_and_switches():
    text = "Two Dogs play , in the snow-covered field ."
    assert tokenize(text, method="whitespace") == [
        "two", "dogs", "play", "in", "the", "snow-covered", "field"]
    assert tokenize(text, method="whitespace", lowercase=False, drop_punctuation=False) == \
        text.split()


def test_tokens_with_digits_and_clitics_are_kept():
    assert tokenize("the dog's 2 balls ...") == ["the", "dog", "'s", "2", "balls"]
    assert has_alnum("'s") and has_alnum("3") and not has_alnum("--") and not has_alnum("...")


def test_bad_input():
    with pytest.raises(TypeError, match="caption string"):
        tokenize(None)
    with pytest.raises(ValueError, match="unknown tokenizer"):
        tokenize("a dog", method="spaces")
