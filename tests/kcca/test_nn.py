"""Nearest-neighbour baselines (eq. 2) and F1 / IDF-F1 similarities on hand-worked examples."""

from __future__ import annotations

import numpy as np
import pytest

from features.text import F1Similarity
from features.text._f1_similarity import f1_block, idf_weights
from kcca.nn import nn_annotation_scores, nn_search_scores


def test_eq2_hand_worked():
    image_block = np.array([[0.1, 0.9, 0.5], [0.7, 0.2, 0.7]])  # NN: q0 -> t1, q1 -> t0 (tie)
    text_block = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])  # all -> t2
    np.testing.assert_array_equal(nn_annotation_scores(image_block, text_block),
                                  [[2.0, 5.0, 8.0], [1.0, 4.0, 7.0]])
    np.testing.assert_array_equal(nn_search_scores(image_block, text_block),
                                  [[0.5, 0.7]] * 3)


def test_eq2_bad_blocks():
    with pytest.raises(ValueError, match="same training items"):
        nn_annotation_scores(np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="image_block has a non-finite"):
        nn_search_scores(np.array([[np.nan]]), np.ones((1, 1)))


def test_multiset_f1_hand_worked():
    a = ["dog", "dog", "run"]
    b = ["dog", "run", "run", "grass"]
    # overlap min(2,1) + min(1,2) = 2, P = 2/3, R = 2/4 -> F1 = 4/7
    np.testing.assert_allclose(f1_block([a], [b]), [[4 / 7]])
    np.testing.assert_allclose(f1_block([a, []], [a, ["cat"]]), [[1.0, 0.0], [0.0, 0.0]])


def test_idf_f1_hand_worked():
    train = [[["dog", "run"], ["dog"]], [["cat"]], [["dog", "cat"], ["grass"]]]
    idf = idf_weights(train)
    # N = 3; df: dog 2, run 1, cat 2, grass 1 -> log(3/3) = 0, log(3/2)
    assert idf == pytest.approx({"dog": 0.0, "run": np.log(1.5), "cat": 0.0, "grass": np.log(1.5)})
    sim = F1Similarity(idf=True).fit(train)
    # [run, dog] vs [run, grass]: overlap l_run, sizes l_run and 2 l_run -> 2/3
    np.testing.assert_allclose(sim.gram([["run", "dog"]], [["run", "grass"]]), [[2 / 3]])
    # against the merged training texts: t0 = {dog x2, run}, t1 = {cat}, t2 = {dog, cat, grass}
    # [run, grass]: t0 overlap l, sizes 2l + l -> 2/3; t1: 0; t2: overlap l, sizes 2l + l -> 2/3
    np.testing.assert_allclose(sim.gram([["run", "grass"]]), [[2 / 3, 0.0, 2 / 3]])
    # an unseen word weighs log(N): [zebra, run] vs [zebra]: 2 log3 / (log3 + l + log3)
    l3, l = np.log(3), np.log(1.5)
    np.testing.assert_allclose(sim.gram([["zebra", "run"]], [["zebra"]]), [[2 * l3 / (2 * l3 + l)]])
    assert F1Similarity().fit(train).gram([["dog"]], [["dog", "cat"]])[0, 0] == pytest.approx(2 / 3)


def test_nn5_f1_end_to_end():
    train_text = [[["dog", "run"]], [["cat", "sleep"]]]
    train_img = np.array([[1.0, 0.0], [0.0, 1.0]])
    test_img = np.array([[0.1, 0.9], [0.8, 0.2]])       # image 0 looks like the cat, 1 the dog
    test_caps = [["cat", "sleep", "sofa"], ["dog", "run", "park"]]
    text_block = F1Similarity().fit(train_text).gram(test_caps)
    image_block = test_img @ train_img.T
    annotation = nn_annotation_scores(image_block, text_block)
    assert annotation.argmax(1).tolist() == [0, 1]
    search = nn_search_scores(image_block, text_block)
    assert search.argmax(1).tolist() == [0, 1]


def test_string_item_is_an_error():
    with pytest.raises(ValueError, match="list of tokens"):
        f1_block(["dog run"], [["dog"]])
