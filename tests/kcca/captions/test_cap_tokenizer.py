"""PTB-style tokeniser: expected tokens are Stanford PTBTokenizer 3.4.1's output
(``-preserveLines -lowerCase``, as pycocoevalcap runs it) with the COCO punctuation removed,
recorded from the jar."""

import pytest

from kcca.captions import PTBTokenizer, tokenize, tokenize_captions
from kcca.captions._scorer import CaptionInputError

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
    # unusual text (each output recorded from the jar)
    ("a horse-.", "a horse"),
    ("cat's-eye", "cat 's eye"),
    ("C++", "c++"),
    ("\u00bd", "1/2"),
    ("3.5won't", "3.5 wo n't"),
    (",No.", "no"),
    ("dog.,", "dog."),
    ("etc.c", "etc. c"),
    ("I. The end", "i the end"),
    ("no. 5 no.", "no. 5 no"),
    ("AT&amp;T R&D", "at&t r&d"),
    ("&QUOT;hi", "&quot; hi"),
    (":) :( (^_^)", ":-rrb- :-lrb- -lrb-^_^-rrb-"),
    ("1 1/2 cups", "1\u00a01/2 cups"),
    ("(555) 123-4567", "-lrb-555-rrb-\u00a0123-4567"),
    ("caf\u00e9 na\u00efve Stra\u00dfe \u5317\u4eac",
     "caf\u00e9 na\u00efve stra\u00dfe \u5317\u4eac"),
    ("a\U0001f600b", "a b"),
    ("x \u2013 y \u2014 z \u2026 w", "x y z w"),
    ("\u00abx\u00bb \u201cy\u201d \u201az\u2018", "x y \u201a z"),
    ("y'all o'clock rock'n'roll", "y' all o'clock rock 'n' roll"),
    ("http://example.com/a.jpg, www.flickr.com john@example.com",
     "http://example.com/a.jpg www.flickr.com john@example.com"),
    ("<b>bold</b> &lt;3", "<b> bold </b> < 3"),
    ("$5.00 \u00a33 \u20ac10 \u00a2", "$ 5.00 # 3 $ 10 cents"),
    ("--- ---- ----- -", "-----"),
    ("'90s '90 mid-'90s", "'90s '90 mid '90s"),
    ("\u00bd \u00bc \u00be \u2153 \u2154 \u215b", "1/2 1/4 3/4 1/3 2/3 \u215b"),
    ("It's 5'10\"", "it 's 5 10"),
    ("a\u2003b\u00a0c\u200bd\u00ad", "a b c d"),
    ("photo.JPG.", "photo.jpg"),
    ("", ""),
]


@pytest.mark.parametrize("raw,java", JAVA_CASES)
def test_tokens_equal_the_java_tokeniser(raw, java):
    assert tokenize(raw) == (java.split(" ") if java else [])


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


def _full_lexer(monkeypatch):
    """Turn off the tokeniser's shortcuts (plain-word paths, first-character dispatch)."""
    import re

    import kcca.captions._tokenizer as tok

    monkeypatch.setattr(tok, "_plain_words", lambda low: None)
    monkeypatch.setattr(tok, "_PLAIN_WORD", re.compile(r"(?!)"))
    every_rule = tok._rules()
    monkeypatch.setattr(tok, "_candidates", lambda c, ascii_text=False: every_rule)


def test_shortcuts_agree_with_the_full_lexer(monkeypatch):
    from tests.support.stress import stress_strings

    words = ("dog t-shirt a I x No no fig Figs art pp op ca prop bldg co Co pty Pte PTY "
             "etc Mr mrs Dr St Jr Inc Ltd Corp Jan sept Mon Calif Ark ark Miss miss Mass mass "
             "Pa pa Ill ill vs cf Ph Mfg mtg Alex cannot Gonna WANNA lemme gimme gotta").split()
    texts = stress_strings(1500, seed=7)
    for w in words:
        texts += [f"A {w}. B", f"{w}.", f"{w}. 5", f"{w}, x", f"x {w}", f"{w}. . .5",
                  f"{w}-{w}. x", f"{w}.\tThe"]
    fast = [tokenize(t) for t in texts]
    _full_lexer(monkeypatch)
    slow = [tokenize(t) for t in texts]
    assert [(t, f, s) for t, f, s in zip(texts, fast, slow) if f != s] == []


def test_dispatch_by_first_character_misses_no_rule(monkeypatch):
    codes = [*range(0x800), *range(0x2000, 0x2200), 0x3000, 0x3001, 0x3002, 0xfeff, 0xffe5]
    texts = [f"{c} a{c}b 1{c}2 {c}{c}. '{c}s" for c in map(chr, codes)]
    fast = [tokenize(t) for t in texts]
    _full_lexer(monkeypatch)
    slow = [tokenize(t) for t in texts]
    assert [(t, f, s) for t, f, s in zip(texts, fast, slow) if f != s] == []


def test_ascii_texts_get_the_tokens_of_the_full_rules(monkeypatch):
    """The rules compiled for ASCII texts (large classes without their non-ASCII members)
    tokenise every ASCII text as the full rules do; no class is left empty."""
    import kcca.captions._tokenizer as tok
    from tests.support.stress import stress_strings

    for name, pattern, first, *_ in tok._RULE_SPECS:
        for members in tok._NON_ASCII_MEMBERS:
            for text in (pattern, f"[{first}]"):
                assert f"[{members}]" not in text and f"[^{members}]" not in text, name
    assert all("4E00" not in r.rx.pattern.upper() for r in tok._rules(True))  # CJK gone
    assert any("4E00" in r.rx.pattern.upper() for r in tok._rules(False))
    texts = [t for t in stress_strings(5000, seed=11) if t.isascii()]
    texts += [f"{c} a{c}b 1{c}2 {c}{c}. '{c}s x{c}" for c in map(chr, range(128))]
    assert len(texts) > 1500
    fast = [tokenize(t) for t in texts]
    _full_lexer(monkeypatch)
    slow = [tokenize(t) for t in texts]
    assert [(t, f, s) for t, f, s in zip(texts, fast, slow) if f != s] == []


def test_a_caption_in_a_batch_sees_the_next_one():
    """Expected tokens are pycocoevalcap's (Java) for the same captions in one batch file."""
    from kcca.captions._tokenizer import tokenize_batch

    batch = ["the new Nintendo Wii U.", "A man", "Room no.", "5 dogs", "smile :)"]
    assert tokenize_batch(batch) == [["the", "new", "nintendo", "wii", "u"], ["a", "man"],
                                     ["room", "no."], ["5", "dogs"], ["smile", "-rrb-"]]
    # each caption on its own: a neutral line follows it
    assert [tokenize(t) for t in batch] == [["the", "new", "nintendo", "wii", "u."],
                                            ["a", "man"], ["room", "no"], ["5", "dogs"],
                                            ["smile", ":-rrb-"]]
    # the lookahead reaches over blank captions to the next word
    assert tokenize_batch(["John W.", "", "  ", "The end"])[0] == ["john", "w"]
    assert tokenize_batch(["John W.", "the end"])[0] == ["john", "w."]


def test_the_drop_in_tokenizer_shifts_lines_after_a_carriage_return_as_pycocoevalcap():
    """pycocoevalcap zips Java's output lines with the captions: a ``\\r`` inside a caption
    makes an extra line, and every later caption gets the line before its own."""
    from kcca.captions._tokenizer import pycocoevalcap_lines, tokenize_batch

    texts = ["a dog\r\nruns", "The cat", "two birds"]
    assert pycocoevalcap_lines(texts) == [["a", "dog"], ["runs"], ["the", "cat"]]
    assert tokenize_batch(texts) == [["a", "dog", "runs"], ["the", "cat"], ["two", "birds"]]
    out = PTBTokenizer().tokenize({1: [{"caption": t} for t in texts]})
    assert out == {1: ["a dog", "runs", "the cat"]}
