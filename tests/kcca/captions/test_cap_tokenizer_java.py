"""The pure-Python tokeniser against the Java one it reproduces: Stanford CoreNLP 3.4.1's
PTBTokenizer run as pycocoevalcap 1.2 runs it (``tests/support/java_ptb.py``), on seeded
stress strings, every code point of the Basic Multilingual Plane, every Flickr 8K caption and
every Flickr-ST caption and tuple text. No difference is allowed. Each test makes one JVM call.

Java and pycocoevalcap are optional tools: skipped without them locally, required in CI
(``tests/support/optional_tools.py``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.stress import stress_strings
from kcca.captions._tokenizer import pycocoevalcap_lines, tokenize, tokenize_batch
from tests.support.java_ptb import java_jar, java_tokenize
from tests.support.optional_tools import skip_unless

pytestmark = pytest.mark.outside_parity

N_STRESS = 12_000
STRESS_SEED = 2015


@pytest.fixture(scope="module")
def jar():
    found = java_jar()
    skip_unless(found is not None, "Java or pycocoevalcap (extra 'coco') absent")
    return found


def _assert_same(texts, java, what):
    differ = [(t, " ".join(j), " ".join(tokenize(t))) for t, j in zip(texts, java)
              if tokenize(t) != j]
    shown = "\n".join(f"  {t!r}\n    java:   {j!r}\n    python: {p!r}" for t, j, p in differ[:10])
    assert not differ, f"{len(differ)} of {len(texts)} {what} differ from Java:\n{shown}"


def test_java_helper_is_pycocoevalcap(jar):
    """The helper in pycocoevalcap's layout gives exactly what pycocoevalcap gives."""
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    texts = stress_strings(1000, seed=1)
    theirs = PTBTokenizer().tokenize({i: [{"caption": t}] for i, t in enumerate(texts)})
    ours = java_tokenize(texts, isolate=False, jar=jar)
    assert [theirs[i][0] for i in range(len(texts))] == [" ".join(t) for t in ours]


def test_seeded_stress_strings_equal_java(jar):
    texts = stress_strings(N_STRESS, seed=STRESS_SEED)
    assert len(texts) >= 10_000
    _assert_same(texts, java_tokenize(texts, jar=jar), "stress strings")


#: Line breaks other than \n: pycocoevalcap passes them to Java, which then writes more lines
#: than captions (every later caption shifts onto the wrong image), so batches leave them out.
OTHER_LINE_BREAKS = re.compile("[\r\x0b\x0c\x85\u2028\u2029]")
CAPTION_ENDS = ["the new Nintendo Wii U.", "It was 25°C.", "John W.", "Room no.", "summer of '90",
                "smile :)", "U.S.", "I.", "etc.", "a dog", "Mr.", "file photo.jpg", 'say "',
                "it's", "c'mon"]
CAPTION_STARTS = ["A man", "The dog", "5 dogs", "", "  ", ", and", "He runs", "<b>The</b> x", "the",
                  "\tThe cat", "It", "'90s", "1/2 cup"]


def _assert_batch_same(texts, java, what):
    ours = tokenize_batch(texts)
    differ = [(i, j, o) for i, (j, o) in enumerate(zip(java, ours)) if j != o]
    shown = "\n".join(f"  {texts[i]!r} (next: {texts[i + 1] if i + 1 < len(texts) else None!r})"
                      f"\n    java:   {j!r}\n    python: {o!r}" for i, j, o in differ[:10])
    assert not differ, f"{len(differ)} of {len(texts)} {what} differ from Java:\n{shown}"


@pytest.mark.slow
def test_batches_equal_java_caption_after_caption(jar):
    """pycocoevalcap's file, caption after caption: every caption end of CAPTION_ENDS before
    every start of CAPTION_STARTS, then each end last in its batch, then the stress strings
    in their seeded order. The next caption changes 25 of the crafted captions' tokens (a
    caption on its own, :func:`tokenize`, would differ there)."""
    crafted = [t for end in CAPTION_ENDS for start in CAPTION_STARTS for t in (end, start)]
    for end in CAPTION_ENDS:
        batch = crafted + [end]
        _assert_batch_same(batch, java_tokenize(batch, isolate=False, jar=jar), "crafted captions")
    java = java_tokenize(crafted, isolate=False, jar=jar)
    assert sum(tokenize(t) != j for t, j in zip(crafted, java)) >= 20
    stress = [t for t in stress_strings(N_STRESS, seed=STRESS_SEED)
              if not OTHER_LINE_BREAKS.search(t)]
    _assert_batch_same(stress, java_tokenize(stress, isolate=False, jar=jar), "stress strings")


def test_line_shifts_after_other_line_breaks_equal_pycocoevalcap(jar):
    """All 12,000 stress strings in one batch, line breaks other than \\n included: the
    drop-in's lines are pycocoevalcap's, line for line, shifts and all."""
    texts = stress_strings(N_STRESS, seed=STRESS_SEED)
    assert sum(bool(OTHER_LINE_BREAKS.search(t)) for t in texts) > 100
    java = java_tokenize(texts, isolate=False, jar=jar)
    ours = pycocoevalcap_lines(texts)
    assert len(ours) == len(java) == len(texts)
    differ = [i for i, (j, o) in enumerate(zip(java, ours)) if j != o]
    assert not differ, [(texts[i], java[i], ours[i]) for i in differ[:5]]


@pytest.mark.slow
def test_every_bmp_character_equals_java(jar):
    """Each code point alone, inside a word, inside a number, doubled before a period and
    after an apostrophe: the lexer's letter, digit, symbol and untokenizable classes.
    (Surrogates cannot be written as UTF-8; characters beyond the BMP are in the stress set.)"""
    texts = [f"{c} a{c}b 1{c}2 x{c}{c}. '{c}s" for c in map(chr, range(0x10000))
             if c != "\n" and not "\ud800" <= c <= "\udfff"]
    _assert_same(texts, java_tokenize(texts, jar=jar), "BMP code points")


@pytest.mark.real_data
def test_all_flickr8k_captions_equal_java(flickr8k, jar):
    """The 40,460 raw captions, in pycocoevalcap's own file layout (caption after caption)."""
    texts = [c for caps in flickr8k.captions.values() for c in caps]
    assert len(texts) == 40460
    _assert_same(texts, java_tokenize(texts, isolate=False, jar=jar), "Flickr 8K captions")


def _flickr_st_texts(folder: Path) -> list[str]:
    from kcca.captions._flickr_st import (
        ALL_FILE,
        CAPTION_FILES,
        GOLD_FILE,
        MODEL_FILES,
        read_generated_captions,
        read_tuples,
    )

    texts: list[str] = []
    for name in (GOLD_FILE, ALL_FILE, *MODEL_FILES.values()):
        for t in read_tuples(folder / name):
            for spans in (t.predicate, t.agents, t.patients, t.loc_heads, t.loc_preps):
                texts += [s.text for s in spans]
    for name in CAPTION_FILES.values():
        texts += read_generated_captions(folder / name).values()
    for tuples in json.loads((folder / "Flickr-ST.json").read_text(encoding="utf-8")).values():
        for t in tuples:
            for value in t.values():
                if isinstance(value, list) and len(value) == 2 and isinstance(value[1], list):
                    texts += [v for v in value[1] if isinstance(v, str)]
    return texts


@pytest.mark.real_data
def test_all_flickr_st_texts_equal_java(data_dir, jar):
    """Every span of every semantic tuple (gold, all annotations, both systems, the JSON
    release) and both systems' generated captions."""
    folder = data_dir / "flickr-st"
    if not folder.is_dir():
        pytest.skip(f"Flickr-ST absent: no {folder}")
    texts = _flickr_st_texts(folder)
    assert len(texts) > 15_000
    _assert_same(texts, java_tokenize(texts, isolate=False, jar=jar), "Flickr-ST texts")
