"""PTB-style tokeniser: expected tokens are Stanford PTBTokenizer 3.4.1's output
(``-preserveLines -lowerCase``, as pycocoevalcap runs it) with the COCO punctuation removed,
recorded from the jar."""

import pytest

from kcca.captions import PTBTokenizer, tokenize, tokenize_captions
from kcca.captions.scorer import CaptionInputError

JAVA_CASES = [
    ("A man's dog can't run. He isn't here; they're gone!",
     "a man 's dog ca n't run he is n't here they 're gone"),
    ("I'll go, we've been, I'd say, I'm here.", "i 'll go we 've been i 'd say i 'm here"),
    ("The U.S. flag and Mr. Smith at 5 p.m. today.",
     "the u.s. flag and mr. smith at 5 p.m. today"),
    ("He said \"hello\" to 'them' (and [others] {too}).",
     "he said hello to them -lrb- and -lsb- others -rsb- -lcb- too -rcb- -rrb-"),
    ("A t-shirt -- and a dash - here, e.g. this etc.", "a t-shirt and a dash here e.g. this etc."),
    ("cannot gonna wanna gotta lemme", "can not gon na wan na got ta lem me"),
    ("A 1,000 3.5 1/2 2:30 #1 a=b x*y a/b", "a 1,000 3.5 1/2 2:30 # 1 a = b x * y a/b"),
    ("Dog.Cat dog . cat", "dog.cat dog cat"),
    ("End with abbreviation Jr.", "end with abbreviation jr."),
    ("The dogs' bones. O'Neil's", "the dogs bones o'neil 's"),
    ("slip n 'slide", "slip n slide"),
    ("Mark ' Mom ' Finley", "mark mom finley"),
    ("ATV 's and 'tis 'twas", "atv 's and 't is 't was"),
    ("Dr. Who vs. U.K. Inc. Co. Ltd. approx. no. 5", "dr. who vs. u.k. inc. co. ltd. approx no. 5"),
    ("a ... b .. c .... d", "a b c d"),
    ("looking at art. then say no.", "looking at art then say no"),
    ("hi!!! what?? really?!", "hi !!! what ?? really ?!"),
    ("o'clock rock'n'roll 'n' 'em", "o'clock rock 'n' roll 'n' 'em"),
    ("A S.C.U.B.A. diver", "a s.c.u.b.a. diver"),
    ("Cost $5.00 or 50% off & more", "cost $ 5.00 or 50 % off & more"),
    ("don't DON'T won't", "do n't do n't wo n't"),
    ("A little girl .", "a little girl"),
    ("An ant 's-eye-view of people", "an ant 's eye-view of people"),
]


@pytest.mark.parametrize("raw,java", JAVA_CASES)
def test_tokens_equal_the_java_tokeniser(raw, java):
    assert tokenize(raw) == java.split()


def test_brackets_survive_the_lower_case_punctuation_filter():
    # pycocoevalcap's list holds -LRB- but the tokeniser lower-cases first
    assert tokenize("a (big) dog") == ["a", "-lrb-", "big", "-rrb-", "dog"]


def test_only_punctuation_gives_no_tokens():
    assert tokenize("...") == []


def test_coco_style_dicts():
    out = PTBTokenizer().tokenize({1: [{"caption": "A Dog."}, {"caption": "Two cats!"}]})
    assert out == {1: ["a dog", "two cats"]}
    assert tokenize_captions({"x": "Hi, there."}) == {"x": ["hi there"]}
    with pytest.raises(CaptionInputError, match="image id 1"):
        PTBTokenizer().tokenize({1: [{"caption": 5}]})
