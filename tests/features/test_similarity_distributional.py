"""PPMI distributional similarity (eq. 24) against a literal implementation on tiny corpora."""

from __future__ import annotations

import math

import numpy as np
import pytest

from features.text._english_corpus import TokenizedCorpus
from features.text._similarity_distributional import (DistributionalSimilarity, frequent_words,
                                                     ppmi, sentence_word_matrix)

SENTS = [
    ["dog", "run", "beach", "dog"],
    ["dog", "catch", "ball"],
    ["cat", "sleep", "sofa"],
    ["dog", "beach", "ball"],
    ["cat", "sofa"],
    ["man", "ride", "bike"],
    ["man", "ride", "horse", "beach"],
    [],
]


def literal_ppmi(sentences, rows, cols, self_pmi=True):
    """Eq. 24 with P(w) and P(w, w') as fractions of sentences, by loops."""
    n = len(sentences)
    sets = [set(s) for s in sentences]
    out = np.zeros((len(rows), len(cols)))
    for a, w in enumerate(rows):
        for b, v in enumerate(cols):
            if not self_pmi and w == v:
                continue
            pw = sum(w in s for s in sets) / n
            pv = sum(v in s for s in sets) / n
            pwv = sum(w in s and v in s for s in sets) / n
            if pwv > 0:
                out[a, b] = max(0.0, math.log2(pwv / (pw * pv)))
    return out


def literal_cosine(x):
    n = np.linalg.norm(x, axis=1)
    out = np.eye(len(x))
    for i in range(len(x)):
        for j in range(len(x)):
            if i != j and n[i] > 0 and n[j] > 0:
                out[i, j] = x[i] @ x[j] / (n[i] * n[j])
    return out


@pytest.mark.parametrize("self_pmi", [True, False])
def test_ppmi_matches_literal_eq24(self_pmi):
    vocab = sorted({w for s in SENTS for w in s})
    got = ppmi(SENTS, vocab, self_pmi=self_pmi).toarray()
    np.testing.assert_allclose(got, literal_ppmi(SENTS, vocab, vocab, self_pmi), atol=1e-12)
    assert (got >= 0).all()


def test_ppmi_rows_and_columns_differ():
    rows, cols = ["dog", "cat", "man"], ["beach", "ball", "sofa", "ride", "dog"]
    got = ppmi(SENTS, rows, cols).toarray()
    np.testing.assert_allclose(got, literal_ppmi(SENTS, rows, cols), atol=1e-12)
    # dog and beach: 2 of 8 sentences together, dog in 3, beach in 3: log2(2*8/9)
    assert got[0, 0] == pytest.approx(math.log2(2 * 8 / 9))


def test_sentence_counts_not_token_counts():
    # "dog" twice in one sentence still counts that sentence once
    x = sentence_word_matrix(SENTS, ["dog"]).toarray().ravel()
    assert x.tolist() == [1, 1, 0, 1, 0, 0, 0, 0]


def test_tokenized_corpus_path_equals_list_path():
    tc = TokenizedCorpus.from_sentences(SENTS)
    assert len(tc) == len(SENTS) and tc.n_tokens == sum(map(len, SENTS))
    assert list(tc.sentences()) == SENTS
    vocab = ["beach", "dog", "ride", "unseen"]
    np.testing.assert_array_equal(sentence_word_matrix(tc, vocab).toarray(),
                                  sentence_word_matrix(SENTS, vocab).toarray())
    np.testing.assert_allclose(ppmi(tc, vocab[:3]).toarray(), ppmi(SENTS, vocab[:3]).toarray())


def test_frequent_words_counts_tokens():
    assert frequent_words(SENTS, 4) == ["dog"]  # dog: 4 tokens in 3 sentences
    assert frequent_words(SENTS, 3) == ["beach", "dog"]


def test_estimator_d_ext_style_rows():
    # rows: given caption words also seen >= 2 times in this corpus; columns: its own words >= 2
    d = DistributionalSimilarity(min_count=2, rows=["dog", "horse", "cat", "zebra"],
                                 row_min_count=2).fit(SENTS)
    assert d.rows_ == ("dog", "cat")
    assert d.columns_ == tuple(frequent_words(SENTS, 2))
    np.testing.assert_allclose(d.vectors_.toarray(),
                               literal_ppmi(SENTS, d.rows_, d.columns_, self_pmi=False))


def test_word_kernel_is_literal_cosine_and_psd():
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(30)]
    sents = [list(rng.choice(words, size=rng.integers(2, 7))) for _ in range(400)]
    d = DistributionalSimilarity(min_count=1).fit(sents)
    k = d.word_kernel()
    x = literal_ppmi(sents, d.rows_, d.columns_, self_pmi=False)
    np.testing.assert_allclose(k.matrix, literal_cosine(x), atol=1e-10)
    assert np.linalg.eigvalsh(k.matrix).min() > -1e-9  # unthresholded cosine: PSD
    assert np.allclose(np.diag(k.matrix), 1.0) and np.allclose(k.matrix, k.matrix.T)


def test_empty_corpus_is_an_error():
    with pytest.raises(ValueError, match="no sentences"):
        ppmi([], ["a"])
    with pytest.raises(TypeError):
        frequent_words(["a string, not a token list"])


# ---------------------------------------------------------------- the D_ext corpus builder
def test_sentence_and_word_splitting():
    from features.text._english_corpus import split_sentences, words

    text = "Mr Smith rode home. Then he slept!\n\nA new line? yes.\n"
    assert split_sentences(text) == ["Mr Smith rode home.", "Then he slept!", "A new line? yes."]
    assert words("Don't stop a t-shirt's 2nd ride...") == ["Don", "t", "stop", "a", "t-shirt",
                                                           "s", "2nd", "ride"]


def test_normalise_lemmatises_with_tags_and_reference(nltk_data_dir):
    from features.text._english_corpus import Lemmatizer, normalise, tag_dictionary

    stop = frozenset({"the", "is", "be", "a"})
    tags = tag_dictionary([[("riding", "VERB"), ("horses", "NOUN")], [("riding", "VERB")],
                           [("riding", "NOUN")]])
    assert tags == {"riding": "VERB", "horses": "NOUN"}
    lem = Lemmatizer(tags, reference={"ride": 10, "man": 5})
    toks = [("The", "DET"), ("men", None), ("is", "VERB"), ("riding", None), ("horses", None),
            ("wading", "VERB"), ("!", "."), ("Leaves", "NOUN")]
    # "riding" -> ride (not the shortest analysis "rid"); "men" -> man (reference count)
    assert normalise(toks, lem, stop) == ["man", "ride", "horse", "wade", "leaf"]


def test_missing_corpus_names_it_and_how_to_install(tmp_path, monkeypatch):
    import nltk

    from features.text._english_corpus import corpus_root
    from features.text._resources import MissingResourceError

    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    monkeypatch.setenv("NLTK_DATA", str(tmp_path))
    monkeypatch.delenv("KCCA_DATA_DIR", raising=False)
    with pytest.raises(MissingResourceError) as err:
        corpus_root("webtext")
    msg = str(err.value)
    assert "webtext" in msg and "NLTK_DATA" in msg and "data/README.md" in msg
