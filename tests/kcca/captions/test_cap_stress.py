"""The seeded generator of caption-like stress strings (tests.support.stress)."""

from tests.support.stress import stress_string, stress_strings


def test_same_seed_same_strings_other_seed_other_strings():
    assert stress_strings(200, seed=3) == stress_strings(200, seed=3)
    assert stress_strings(200, seed=3) != stress_strings(200, seed=4)
    assert stress_strings(50, seed=3) == stress_strings(200, seed=3)[:50]


def test_strings_cover_the_families():
    texts = stress_strings(10_000, seed=0)
    assert len(texts) == 10_000 and len(set(texts)) > 9_000
    joined = "\n".join(texts)
    for needle in ["'s", "n't", "-", "...", "1/2", "$", "(", "[", "{", "\u201c", "`", "\u00e9",
                   "\u5317", "\u00bd", "\u2014", "\u2026", "Mr.", "U.S.", "No.", "http://",
                   "@", "<b>", "&amp;", "\U0001f600", "\u00a0", "\t", "\r", ":)"]:
        assert needle in joined, needle
    glued = sum(1 for t in texts if any(len(w) > 15 for w in t.split()))
    assert glued > 500  # pieces joined without a space


def test_stress_string_draws_from_the_given_generator():
    import random

    a, b = random.Random(7), random.Random(7)
    assert [stress_string(a) for _ in range(20)] == [stress_string(b) for _ in range(20)]
