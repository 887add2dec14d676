"""kcca.coco on malformed input: every fault pycocoevalcap fails on is a named error of
kcca.coco's classes, saying which image id and what is wrong, and of the exception family
pycocoevalcap fails with (so that a script's ``except`` clauses still work)."""

from __future__ import annotations

import importlib.util

import pytest

from kcca.coco import (
    CocoAttributeError,
    CocoInputError,
    CocoKeyError,
    CocoTypeError,
)
from kcca.coco.bleu.bleu import Bleu
from kcca.coco.eval import COCOEvalCap
from kcca.coco.tokenizer.ptbtokenizer import PTBTokenizer

# (tokenizer input, kcca.coco's class, builtin family, words the message holds)
TOKENIZER_FAULTS = [
    ([{"caption": "a dog"}], CocoAttributeError, AttributeError, "must be a dict"),
    ({7: "a dog"}, CocoTypeError, TypeError, "image id 7"),
    ({7: None}, CocoTypeError, TypeError, "image id 7"),
    ({7: [{"text": "a dog"}]}, CocoKeyError, KeyError, "no 'caption' key"),
    ({7: [{"caption": 5}]}, CocoAttributeError, AttributeError, "image id 7 is a int"),
    ({7: [{"caption": "a dog"}, 3]}, CocoTypeError, TypeError, "caption 1 of image id 7"),
]


def _pycocoevalcap_failure(captions) -> type[BaseException] | None:
    """The exception pycocoevalcap 1.2's tokenizer raises on ``captions`` (it fails before it
    starts Java), or None without pycocoevalcap."""
    if importlib.util.find_spec("pycocoevalcap") is None:
        return None
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer as Theirs

    try:
        Theirs().tokenize(captions)
    except Exception as exc:  # what it raises is what is compared
        return type(exc)
    return None


@pytest.mark.parametrize("captions, cls, family, words", TOKENIZER_FAULTS,
                         ids=[f"tokenizer-{n}" for n in range(len(TOKENIZER_FAULTS))])
def test_malformed_tokenizer_input_is_named_in_pycocoevalcap_s_family(captions, cls, family,
                                                                      words):
    with pytest.raises(cls, match=words) as err:
        PTBTokenizer().tokenize(captions)
    assert isinstance(err.value, CocoInputError) and isinstance(err.value, family)
    assert isinstance(err.value, AssertionError)  # every kcca.coco input error is one
    theirs = _pycocoevalcap_failure(captions)
    if theirs is not None:
        assert isinstance(err.value, theirs), (theirs, type(err.value))


def test_key_errors_read_as_plain_messages():
    with pytest.raises(KeyError) as err:
        PTBTokenizer().tokenize({7: [{"text": "a dog"}]})
    assert str(err.value).startswith("caption 0 of image id 7 has no 'caption' key")


@pytest.mark.parametrize("coco, cls, words", [
    ({1: None}, CocoTypeError, "image id 1 has NoneType"),
    ({"images": [{"file": "x.jpg"}], "annotations": []}, CocoKeyError, "image 0 of 'images'"),
    ({"images": [], "annotations": {"image_id": 1}}, CocoTypeError, "'annotations'"),
    ([{"image_id": [1], "caption": "a dog"}], CocoTypeError, "annotation 0 has an image_id"),
])
def test_malformed_plain_references_are_named(coco, cls, words):
    with pytest.raises(cls, match=words):
        COCOEvalCap(coco, {1: "a dog"})


def test_a_result_image_without_references_is_refused_by_name():
    """pycocotools' loadRes asserts this; kcca.coco's plain-data path used to drop the
    image from the evaluation without a word."""
    with pytest.raises(CocoInputError, match=r"no references for: image id\(s\) \[2\]") as err:
        COCOEvalCap({1: ["a dog runs"]}, {1: "a dog", 2: "a cat"})
    assert isinstance(err.value, AssertionError)
    assert "leave them out of the results" in err.value.fix


def test_the_scorers_still_refuse_what_pycocoevalcap_asserts_on():
    with pytest.raises(CocoInputError, match="same image ids"):
        Bleu().compute_score({1: ["a dog"]}, {1: ["a dog"], 2: ["a cat"]}, verbose=0)
