import pytest

from kcca.captions._image_ids import matched_image_ids

MESSAGES = dict(not_mappings="not dicts", unknown="unknown {id!r}", unscored="unscored {id!r}")


def test_candidates_first_then_unscored_gold_when_allowed():
    ids = matched_image_ids(
        {"a": 1, "b": 2, "c": 3}, {"c": 0, "a": 0}, ValueError, **{**MESSAGES, "unscored": None}
    )
    assert ids == ["c", "a", "b"]


@pytest.mark.parametrize("gold, candidates, match", [
    ([("a", 1)], {"a": 0}, "not dicts"),
    ({"a": 1}, {"a": 0, "z": 0}, "unknown 'z'"),
    ({"a": 1, "b": 2}, {"a": 0}, "unscored 'b'"),
])
def test_mismatches_raise_the_given_error_naming_the_id(gold, candidates, match):
    with pytest.raises(KeyError, match=match):
        matched_image_ids(gold, candidates, KeyError, **MESSAGES)
