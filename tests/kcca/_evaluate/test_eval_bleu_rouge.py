"""The paper's unigram BLEU / ROUGE (eq. 28 and the next), and the BLEU_pre filter."""

import numpy as np
import pytest

from kcca._evaluate.bleu_rouge import (
    Preprocessor,
    bleu_matrix,
    compute_score,
    reference_texts,
    rouge_matrix,
    sentence_bleu,
    sentence_rouge,
    tokenize,
)


def test_tokenize():
    assert tokenize("A black-and-white dog's ball.") == ["a", "black", "and", "white", "dog",
                                                        "s", "ball"]
    assert tokenize("T-shirt, 2 kids!") == ["t", "shirt", "2", "kids"]
    assert tokenize("dog's", split_clitics=False) == ["dogs"]


def test_sentence_bleu_hand_worked():
    # candidate "the the the cat": 'the' clipped to max ref count 2, 'cat' 1 -> 3/4
    refs = [["the", "cat", "the"], ["a", "the", "dog"]]
    assert sentence_bleu(refs, ["the", "the", "the", "cat"]) == pytest.approx(3 / 4)
    assert sentence_bleu(refs, []) == 0.0
    assert sentence_bleu(refs, ["zebra"]) == 0.0


def test_sentence_rouge_hand_worked():
    # refs: 3 + 3 tokens; matches: ref1 min(c_s) the:1 cat:1 -> 2; ref2 the:1 -> 1 -> 3/6
    refs = [["the", "cat", "the"], ["a", "the", "dog"]]
    assert sentence_rouge(refs, ["the", "cat"]) == pytest.approx(3 / 6)


def test_matrices_equal_sentence_level_definitions():
    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(12)]

    def sent():
        return list(rng.choice(vocab, size=rng.integers(0, 9)))

    refs = [[sent() or ["w0"] for _ in range(int(rng.integers(1, 5)))] for _ in range(15)]
    cands = [sent() for _ in range(17)]
    B = bleu_matrix(refs, cands)
    R = rouge_matrix(refs, cands)
    assert B.shape == (15, 17)
    for i in range(15):
        for j in range(17):
            assert B[i, j] == pytest.approx(sentence_bleu(refs[i], cands[j]))
            assert R[i, j] == pytest.approx(sentence_rouge(refs[i], cands[j]))


def test_compute_score_is_mean_of_sentences():
    refs = [[["a", "b"]], [["c"]]]
    mean, per = compute_score(refs, [["a", "x"], ["c"]], "bleu")
    assert per.tolist() == [0.5, 1.0] and mean == 0.75


def test_reference_sets():
    caps = ("c0", "c1", "c2", "c3", "c4")
    assert reference_texts(caps, "R5") == list(caps)
    assert reference_texts(caps, "R1-gold") == ["c2"]
    assert reference_texts(caps, "R4") == ["c0", "c1", "c3", "c4"]
    assert reference_texts(caps, "R1-other") == ["c0"]
    assert reference_texts(caps, "R1-other", other_index=3) == ["c3"]


def test_rouge_style_preprocessing(nltk_data_dir):
    prep = Preprocessor(stem=True, remove_stop_words=True)
    assert prep("The dogs are running in the water.") == ["dog", "run", "water"]


@pytest.mark.real_data
def test_bleu_pre_filter_reproduces_paper(flickr8k, nltk_data_dir):
    from kcca._paper.agreement import bleu_pre_filter

    f = bleu_pre_filter(flickr8k)
    s = f["bleu_pre"][0.25]
    assert s["removed %"] == pytest.approx(86.0, abs=0.5)
    assert s["lost % of expert >= 8/3"] == pytest.approx(6.7, abs=0.5)
    assert s["lost % of expert >= 3"] == pytest.approx(3.5, abs=0.5)
    assert f["bleu_pre"][0.26]["removed %"] == pytest.approx(90.4, abs=0.5)
    assert f["bleu_pre nonzero %"] == pytest.approx(39.4, abs=0.5)
    assert f["plain_bleu"][0.33]["lost % of expert >= 8/3"] == pytest.approx(6.9, abs=0.5)
