"""The Meteor 1.5 engine without Java (kcca.captions._meteor_engine) against the jar and
against its plain-Python transcription (the oracle ``tests/support/meteor_oracle.py``).

Without Java: unit tests of the score formula, the aggregate, the stemmer, the normaliser and
Java's hash; the Python engine against pycocoevalcap's own METEOR numbers stored in the parity
fixture (1,000 Flickr 8K test items); METEOR from ``kcca score-captions`` with no ``java`` on
the PATH. With Java (CI installs it; ``tests/support/optional_tools.py``): the jar's own stemmer and
normaliser as oracles, and the two engines on a generated stress set and on Flickr 8K test
leave-one-out (one JVM per set), per item and corpus within 1e-6.
"""

from __future__ import annotations

import gzip
import json
import math
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kcca.captions._meteor import Meteor, find_java, find_meteor_jar, meteor_available
from tests.support.data_variables import environment_without_data
from tests.support.optional_tools import skip_unless

FIXTURE = Path(__file__).parent / "data" / "coco_parity_flickr8k_test.json.gz"
TOL = 1e-6


def _python_engine_ready():
    ok, why = meteor_available("python")
    skip_unless(ok, why)


def _java_ready():
    ok, why = meteor_available("java")
    skip_unless(ok, why)


def _engine():
    from kcca.captions._meteor_engine import MeteorEngine, MeteorResources

    return MeteorEngine(MeteorResources.shared(find_meteor_jar()))


def _java_lines(main_class: str, args: list[str], lines: list[str]) -> list[str]:
    """Run a main class of the jar on ``lines`` (one JVM), return its output lines."""
    proc = subprocess.run([find_java(), "-Dfile.encoding=UTF-8", "-cp", str(find_meteor_jar()),
                           main_class, *args], input="\n".join(lines) + "\n",
                          capture_output=True, encoding="utf-8", timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.split("\n")[:len(lines)]


# ----------------------------------------------------------------- units (no Java, no data)
def test_java_string_hash():
    from kcca.captions._meteor_engine.arrays import java_hash

    assert java_hash("hello") == 99162322
    assert java_hash("") == 0
    assert java_hash("Aa") == java_hash("BB") == 2112  # a collision the jar also has
    assert java_hash("polygenelubricants") == -2147483648
    assert java_hash("\U0001f600") == 1772899  # UTF-16 surrogate pair


@pytest.mark.parametrize("implementation", ["engine", "oracle"])
def test_score_formula_and_java_division(implementation):
    """The score and the corpus aggregate of the compiled engine (what is shipped) and of the
    oracle on hand-computed statistics."""
    from kcca.captions._meteor_engine.engine import corpus_score
    from kcca.captions._meteor_engine.stats import corpus_statistics, is_perfect, statistics_line
    from tests.support.meteor_oracle import Stats, aggregate
    from tests.support.meteor_oracle import score as oracle_score

    if implementation == "engine":
        def score(st):
            return corpus_score(np.array([st.as_row()]))  # one segment: its own score
    else:
        score = oracle_score
    zero = ((0, 0, 0, 0),) * 4
    assert score(Stats(0, 0, 0, 0, zero, 0, 0, 0)) == 0.0  # 0/0: NaN -> 0
    assert score(Stats(3, 4, 1, 1, zero, 0, 0, 0)) == 0.0
    perfect = Stats(3, 3, 1, 1, ((2, 2, 1, 1),) + zero[1:], 1, 3, 3)
    assert perfect.is_perfect() and score(perfect) == pytest.approx(1.0, abs=1e-15)
    # hypothesis "dog runs" (content), reference "a dog is running": dog exact, runs~running
    # by stem; 2 chunks. P = (0.75 + 0.6*0.75)/1.5, R = (0.75 + 0.6*0.75)/(2*0.75 + 2*0.25)
    s = Stats(2, 4, 0, 2, ((1, 1, 0, 0), (1, 1, 0, 0), (0,) * 4, (0,) * 4), 2, 2, 2)
    p, r = (0.75 + 0.45) / 1.5, (0.75 + 0.45) / 2.0
    fmean = p * r / (0.85 * p + 0.15 * r)
    assert score(s) == pytest.approx(fmean * (1 - 0.6 * (2 / 2) ** 0.2), abs=1e-15)
    # the corpus sums statistics; a perfect segment adds no chunk
    if implementation == "engine":
        rows = np.array([perfect.as_row(), s.as_row()])
        assert is_perfect(rows).tolist() == [True, False]
        agg = Stats.from_row(corpus_statistics(rows).tolist())
        assert Stats.from_line(statistics_line(rows[1])) == s
    else:
        agg = aggregate([perfect, s])
    assert agg.chunks == 2.0 and agg.test_length == 5.0


def test_score_line_split_as_the_jar():
    from kcca.captions._meteor_engine import split_score_line

    assert split_score_line("SCORE ||| a b ||| c |||  ") == (["a b", "c"], "")
    assert split_score_line("SCORE |||x|||y") == (["x"], "y")
    with pytest.raises(ValueError):
        split_score_line("SCORE ||| only")


@pytest.mark.parametrize("word,stem", [
    ("running", "run"), ("dogs", "dog"), ("generously", "generous"), ("skies", "sky"),
    ("dying", "die"), ("ties", "tie"), ("cries", "cri"), ("hoped", "hope"), ("yelled", "yell"),
    ("sayyid", "sayyid"), ("'hood", "hood"), ("inning", "inning"), ("outings", "outing"),
    ("communism", "communism"), ("arsenal", "arsenal"), ("ab", "ab"), ("éclairs", "éclair"),
    # where Snowball 3 (snowballstemmer 3, PyStemmer 3) and NLTK's port differ from the jar
    ("added", "ad"), ("adding", "ad"), ("anthropologist", "anthropologist"),
    ("realization", "realiz"), ("sensationally", "sensat"),
])
def test_stemmer_examples(word, stem):
    from kcca.captions._meteor_engine.stemmer import stem as snowball

    assert snowball(word) == stem


def test_a_snowball_3_stemmer_is_named_as_the_problem(monkeypatch):
    import importlib.metadata

    from kcca.captions import _meteor as meteor_module

    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version",
                        lambda name: "3.1.1" if name == "snowballstemmer" else real(name))
    ok, why = meteor_module.meteor_available("python")
    if meteor_module.find_meteor_jar() is None:
        pytest.skip("pycocoevalcap absent: the jar's problem is reported first")
    assert not ok and "snowballstemmer 3.1.1" in why


@pytest.mark.parametrize("line,expected", [
    ("a dog runs", "a dog runs"),
    ("A t-shirt, U.S.-based Mr. Smith's dog...", "A t shirt , US based Mr. Smith 's dog ..."),
    ("1,000 dogs, 3.5 cats", "1,000 dogs , 3.5 cats"),
    ("No. 5 and No. Go", "No. 5 and No . Go"),
    ("No. 5 and No. go", "No. 5 and No. go"),  # a lower-case word follows
    ("“Quoted” ‘single’ it’s", "\" Quoted \" ' single ' it 's"),
    ("well--done – ok", "well done - ok"),
    ("end.", "end ."),
    ("e.g. this", "eg this"),
    ("Dr. Who? St. Louis, U.S.A. a.m.", "Dr. Who ? St. Louis , USA am"),
])
def test_normaliser_examples(line, expected):
    from kcca.captions._meteor_engine.normalize import normalize_line

    prefixes = {"Mr": 1, "No": 2, "Dr": 1, "St": 1}
    assert normalize_line(line, prefixes) == expected


def test_paraphrase_index_of_a_small_table(tmp_path):
    """The trie index keeps the file's order of paraphrases, drops nothing else, and finds
    phrases across segment boundaries never; a two-member gzip file reads whole."""
    from kcca.captions._meteor_engine.paraphrase import ParaphraseIndex, build_index
    from tests.support.meteor_oracle import prepare_paraphrases

    entries = [("a dog", "a hound"), ("dog", "hound"), ("a dog", "one dog"),
               ("in the snow", "in snow"), ("dog", "canine"), ("the", "a")]
    text = "".join(f"0.5\n{a}\n{b}\n" for a, b in entries).encode()
    path = tmp_path / "para.gz"
    path.write_bytes(gzip.compress(text[:30]) + gzip.compress(text[30:]))
    idx = ParaphraseIndex(build_index(path))
    assert idx.n_entries == len(entries) and idx.n_phrases == 4
    segs = [["a", "dog", "in", "the", "snow"], ["one", "dog", "in", "snow"], ["a", "hound"]]
    per_seg, table = prepare_paraphrases(idx, segs, [[1, 2], [0], [0]])
    word_of = {i: w for w, i in idx.word_id.items()}

    def phrase(node):  # words of a trie node
        out = []
        while node:
            node, w = divmod(int(idx.level_keys[node]), len(idx.vocab))
            out.append(word_of[w])
        return " ".join(reversed(out))

    starts = {(j, n): [phrase(p) for p, _ in table[r]]
              for j, hits in per_seg[0].starts.items() for n, r in hits}
    # "a dog" -> "a hound", "one dog" (file order); "dog" -> "hound"; "in the snow" ->
    # "in snow"; "the" -> "a" (in partner 2); never "dog" -> "canine" (no partner has it)
    assert starts == {(0, 2): ["a hound", "one dog"], (1, 1): ["hound"],
                      (2, 3): ["in snow"], (3, 1): ["a"]}
    assert {phrase(n): pos for n, pos in per_seg[1].positions.items()} == \
        {"one dog": (0,), "in snow": (2,)}
    assert {phrase(n): pos for n, pos in per_seg[2].positions.items()} == \
        {"a": (0,), "a hound": (0,), "hound": (1,)}


@pytest.mark.parametrize("top", [0, 9, 1_000, 70_000, 2**40, 2**64 - 1],
                         ids=["one-key", "table", "table-wide", "two-digits", "three-digits",
                              "four-digits"])
def test_the_tries_unique_keys_equal_numpys(top):
    """The trie build's ranking of keys (a dense table for small keys, else a radix sort on
    16-bit digits) gives ``np.unique(key, return_inverse=True)``, repeated keys and empty
    levels included."""
    from kcca.captions._meteor_engine.paraphrase import _unique_inverse

    rng = np.random.default_rng(top % 1000)
    for size in (0, 1, 7, 5_000):
        key = rng.integers(0, top, size, dtype=np.uint64, endpoint=True)
        key[: size // 3] = key[size // 3 : 2 * (size // 3)]  # repeats
        want_unique, want_inverse = np.unique(key, return_inverse=True)
        got_unique, got_inverse = _unique_inverse(key)
        assert got_unique.dtype == key.dtype and np.array_equal(got_unique, want_unique)
        assert np.array_equal(got_inverse, want_inverse.reshape(-1))


def test_references_are_tried_in_numpys_stable_decreasing_order():
    """The kernel's insertion sort of the references' bounds gives the order of
    ``np.argsort(-bounds, kind="mergesort")``: decreasing, equal bounds in index order."""
    from kcca.captions._meteor_engine.kernel import _decreasing_order

    rng = np.random.default_rng(7)
    for size in (0, 1, 2, 5, 40, 300):
        for bounds in (rng.random(size), rng.integers(0, 3, size).astype(float),
                       np.zeros(size), np.arange(size, dtype=float)):
            want = np.argsort(-bounds, kind="mergesort")
            assert np.array_equal(_decreasing_order(bounds), want), (size, bounds)


# ------------------------------------------------------ the Python engine alone (no Java)
GOOD_TABLE = b"0.5\na dog\na hound\n0.2\ndog\nhound\n"


@pytest.mark.parametrize("damage, message", [
    (lambda good: good[: len(good) // 2], "not a readable gzip file"),
    (lambda good: good[:-4] + (2**31).to_bytes(4, "little"), "not a readable gzip file"),
    (lambda good: b"hello\n", "not a readable gzip file"),
    (lambda good: gzip.compress(b"abc\ndef\n"), "line 1 should be a probability"),
    (lambda good: gzip.compress(b"0.5\na dog\na hound\nx\n0.3\ny\n"),
     "line 4 should be a probability"),
    (lambda good: gzip.compress(GOOD_TABLE[:-6]), "ends inside an entry (5 lines"),
    (lambda good: gzip.compress(b"0.5\na dog\n\xff\xfe\n"), "not UTF-8"),
], ids=["truncated", "damaged-trailer", "not-gzip", "words-for-numbers", "shifted-lines",
        "last-entry-cut", "not-utf8"])
def test_a_damaged_paraphrase_table_is_named_with_a_fix(tmp_path, damage, message):
    """A table that is not Meteor's three-line entries is refused by name, never indexed
    into fewer (or no) paraphrases that would change every METEOR score silently."""
    from kcca.captions._meteor_engine.paraphrase import ParaphraseTableError, build_index

    path = tmp_path / "paraphrase-en.gz"
    path.write_bytes(gzip.compress(GOOD_TABLE))
    assert build_index(path)["n_entries"] == 2
    path.write_bytes(damage(gzip.compress(GOOD_TABLE)))
    with pytest.raises(ParaphraseTableError, match=re.escape(message)) as err:
        build_index(path)
    assert str(path) in str(err.value) and "pycocoevalcap==1.2" in err.value.fix


@pytest.mark.slow
def test_score_captions_names_a_damaged_table_and_keeps_to_its_cache_flags(files, tmp_path):
    """``kcca score-captions`` with a jar whose table is damaged: exit 2 with the table named;
    with an intact (small) table, the index goes to ``--cache-dir`` and ``--no-cache`` stores
    nothing (both were ignored: the index always went to the default cache)."""
    _python_engine_ready()
    import shutil

    r, c = files
    jar_dir = tmp_path / "meteor"
    (jar_dir / "data").mkdir(parents=True)
    shutil.copy(find_meteor_jar(), jar_dir / "meteor-1.5.jar")
    table = jar_dir / "data" / "paraphrase-en.gz"
    env = environment_without_data(KCCA_METEOR_JAR=str(jar_dir / "meteor-1.5.jar"),
                                   KCCA_CACHE_DIR=str(tmp_path / "default-cache"))

    def score(*flags):
        return subprocess.run([sys.executable, "-m", "kcca", *flags, "score-captions", "-r",
                               str(r), "-c", str(c), "--metrics", "meteor", "--per-item",
                               str(tmp_path / "o.json")],
                              capture_output=True, text=True, env=env, timeout=600)

    table.write_bytes(gzip.compress(b"abc\ndef\n"))
    proc = score("--cache-dir", str(tmp_path / "cache"))
    assert proc.returncode == 2, proc.stderr
    assert f"error: paraphrase table {table}: line 1" in proc.stderr
    assert "fix: restore the table" in proc.stderr and "Traceback" not in proc.stderr
    table.write_bytes(gzip.compress(GOOD_TABLE))
    # the kernel compiled (or loaded) in this process first: the kcca processes below then load
    # it from numba's cache instead of compiling it (about 12 s on a fresh checkout)
    from kcca.captions._meteor_engine import MeteorEngine, MeteorResources

    MeteorEngine(MeteorResources(jar_dir / "meteor-1.5.jar", table, None)).score_lines(
        [["a dog"]], ["a dog"])
    assert score("--cache-dir", str(tmp_path / "cache")).returncode == 0
    assert (tmp_path / "cache" / "meteor-paraphrase").is_dir()
    assert score("--no-cache").returncode == 0
    assert not (tmp_path / "default-cache").exists()


def test_score_captions_says_when_it_builds_the_paraphrase_index(files, tmp_path):
    """The first ``kcca score-captions`` says on stderr that it builds the paraphrase index
    and where it keeps it (before: nothing for the minutes of the build); a later run, which
    loads the index, and ``--quiet`` say nothing of it."""
    _python_engine_ready()
    import shutil

    r, c = files
    jar_dir = tmp_path / "meteor"
    (jar_dir / "data").mkdir(parents=True)
    shutil.copy(find_meteor_jar(), jar_dir / "meteor-1.5.jar")
    (jar_dir / "data" / "paraphrase-en.gz").write_bytes(gzip.compress(GOOD_TABLE))
    env = environment_without_data(KCCA_METEOR_JAR=str(jar_dir / "meteor-1.5.jar"))

    def score(*flags):
        proc = subprocess.run([sys.executable, "-m", "kcca", *flags, "score-captions", "-r",
                               str(r), "-c", str(c), "--metrics", "meteor"],
                              capture_output=True, text=True, env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr
        return proc.stderr

    cache = tmp_path / "cache"
    first = score("--cache-dir", str(cache))
    assert "building the METEOR paraphrase index" in first, first
    assert f"cached in {cache / 'meteor-paraphrase'}" in first, first
    assert "building" not in score("--cache-dir", str(cache))
    assert "building" not in score("--quiet", "--cache-dir", str(tmp_path / "other"))


def test_python_engine_equals_pycocoevalcap_fixture():
    """pycocoevalcap's own METEOR numbers (stored by scripts/make_coco_parity_fixture.py)."""
    _python_engine_ready()
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as f:
        fx = json.load(f)
    refs = [[r.split() for r in rs] for rs in fx["references_tokenized"]]
    cands = [c.split() for c in fx["candidates_tokenized"]]
    corpus, per_item = Meteor(engine="python").score_tokens(refs, cands)
    worst = float(np.abs(per_item - np.asarray(fx["per_item"]["METEOR"])).max())
    print(f"Python engine vs pycocoevalcap fixture: {len(cands)} items, "
          f"worst per-item difference {worst:.1e}")
    assert worst <= TOL
    assert abs(corpus - fx["corpus"]["METEOR"]) <= TOL


def test_score_texts_equals_score_tokens_of_the_texts_split_at_spaces():
    """Texts as pycocoevalcap hands them to the jar (what the drop-in scores) give the numbers
    of their tokens split at spaces, which join back into the same texts: double spaces, a
    ``|||`` inside a reference (more fields for the jar) and one in a candidate (removed)."""
    _python_engine_ready()
    refs = [["a dog runs on the grass", "a brown ||| dog is running"],
            ["two  men ride bikes", "men on bicycles on a road"]]
    cands = ["a dog  is running", "men on bikes |||"]
    meteor = Meteor(engine="python")
    corpus, per_item = meteor.score_texts(refs, cands)
    tokens = meteor.score_tokens([[r.split(" ") for r in rs] for rs in refs],
                                 [c.split(" ") for c in cands])
    assert corpus == tokens[0]
    np.testing.assert_array_equal(per_item, tokens[1])
    assert per_item.shape == (2,) and 0 < per_item.min() and per_item.max() < 1


def test_score_bound_is_never_below_the_score():
    """The bound that lets the engine skip references (``score_upper_bound``) is at least
    the aligned score (to the rounding) for every hypothesis-reference pair of the fixture
    (4,000 pairs), and the engine's choice of reference equals aligning every reference."""
    _python_engine_ready()
    from kcca.captions._meteor_engine.stats import N_MODULES
    from tests.support.meteor_oracle import (
        Stats,
        _score_bound,
        align,
        find_candidates,
        score,
        segment_stats,
        segments,
    )

    with gzip.open(FIXTURE, "rt", encoding="utf-8") as f:
        fx = json.load(f)
    refs, hyps = fx["references_tokenized"], fx["candidates_tokenized"]
    engine = _engine()
    texts = {t: tuple(engine.tokens(t)) for t in hyps + [r for rs in refs for r in rs]}
    segments, table = segments(engine, texts, refs, hyps)
    pairs = skipped = 0
    for rs, h in zip(refs, hyps):
        test = segments[h]
        every = []
        for r in rs:
            ref = segments[r]
            _, cov1, cov2 = find_candidates(test, ref, table, N_MODULES)
            a = align(test, ref, table, N_MODULES)
            st = Stats(len(test.words), len(ref.words), sum(test.function), sum(ref.function),
                       a.stage_matches, a.chunks, a.test_matches, a.ref_matches)
            every.append(st)
            bound = _score_bound(test, ref, cov1, cov2)
            # equal when the alignment reaches the bound, up to the rounding of the two
            # computations (BOUND_MARGIN covers it)
            assert bound >= score(st) - 1e-12, (h, r, bound, score(st))
            pairs += 1
            skipped += bound < max(score(s) for s in every) - 1e-9
        best = max(range(len(every)), key=lambda k: (score(every[k]), -k))
        assert segment_stats(test, [segments[r] for r in rs], table) == every[best]
    assert pairs == 4000 and skipped > 0


def _engine_and_oracle(references, hypotheses):
    """The engine's and the oracle's ``score_lines`` of raw captions (as the scorer sends
    them)."""
    from kcca.captions._meteor import score_line
    from kcca.captions._meteor_engine import split_score_line
    from tests.support import meteor_oracle

    fields = [split_score_line(score_line(rs, h)) for rs, h in zip(references, hypotheses)]
    refs, hyps = [f[0] for f in fields], [f[1] for f in fields]
    engine = _engine()
    return (meteor_oracle.engine_result(engine.score_lines(refs, hyps)),
            meteor_oracle.score_lines(engine, refs, hyps))


@pytest.mark.slow
def test_engine_equals_the_oracle_on_outside_and_stress_sets():
    """Every statistic, per-item score and corpus score of the compiled engine equals the
    oracle's on the outside COCO, Flickr30k and VizWiz captions (the 5,000-item set cut to
    1,000) and on 1,000 stress items."""
    _python_engine_ready()
    from tests.support.stress import stress_strings

    path = Path(__file__).parent / "data" / "coco_outside_captions.json.gz"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        sources = json.load(f)["sources"]
    for source in sources:
        items = source["items"][:1000]
        mine, oracle = _engine_and_oracle(
            [it["references"] for it in items], [it["candidate"] for it in items]
        )
        assert mine == oracle, source["name"]
    strings = stress_strings(3000, seed=7)
    rng = random.Random(3)
    mine, oracle = _engine_and_oracle([rng.sample(strings, 3) for _ in range(1000)],
                                      strings[:1000])
    assert mine == oracle


@pytest.mark.slow
def test_engine_scores_segments_of_any_length_as_the_oracle():
    """Segments longer than 64 words (word sets of several 64-bit words, a search rank
    beyond one packed integer's reach): the compiled engine's statistics equal the oracle's,
    at every length around the word boundaries and up to 1,500 words, repeated words too."""
    _python_engine_ready()
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as f:
        fx = json.load(f)
    words = " ".join(fx["candidates_tokenized"] + [r for rs in fx["references_tokenized"]
                                                    for r in rs]).split()
    rng = random.Random(5)
    refs, hyps = [], []
    for n in [62, 63, 64, 65, 127, 128, 129, 300, 1500]:
        start = rng.randrange(len(words) - 2 * n)
        hyps.append(" ".join(words[start:start + n]))
        refs.append([" ".join(words[start + n // 3:start + n // 3 + n + 2]),
                     " ".join(rng.sample(words, n))])
    hyps.append(" ".join(["a", "dog", "a", "the"] * 40))
    refs.append([" ".join(["the", "a", "dog", "dogs"] * 41), " ".join(["a"] * 160)])
    mine, oracle = _engine_and_oracle(refs, hyps)
    assert mine == oracle
    assert max(s.test_length for s in mine[2]) >= 1500


def test_paraphrase_index_is_cached_and_verifiable():
    """A second resources object loads the index from the cache; ``kcca cache verify``
    finds the entry current and nothing left over."""
    _python_engine_ready()
    from kcca._cache import default_cache_dir
    from kcca._cache_audit import verify_cache
    from kcca.captions._meteor_engine import MeteorResources

    assert _engine().resources.paraphrases.n_entries == 5_274_084
    fresh = MeteorResources(find_meteor_jar())
    assert fresh.paraphrases.n_phrases == 430_639 and fresh.index_source == "loaded"
    audit = verify_cache(default_cache_dir())
    unusable = audit.leftovers + list(audit.stale) + list(audit.unusable) + audit.old_format
    assert not [p for p in unusable if "meteor-paraphrase" in str(p)]


def test_score_captions_reports_meteor_without_java(files, tmp_path):
    _python_engine_ready()
    r, c = files
    env = environment_without_data(PATH=str(tmp_path))  # no java anywhere on the PATH
    env.pop("KCCA_JAVA", None)
    proc = subprocess.run([sys.executable, "-m", "kcca", "score-captions", "-r", str(r),
                           "-c", str(c), "--metrics", "bleu,meteor", "--json",
                           "--per-item", str(tmp_path / "o.json")],
                          capture_output=True, text=True, env=env, timeout=600,
                          cwd=Path(__file__).resolve().parents[3])
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout[proc.stdout.index("{"):])
    assert "meteor" not in out["unavailable"] and 0 < out["corpus"]["METEOR"] < 1
    # the Java engine says what is missing
    proc = subprocess.run([sys.executable, "-m", "kcca", "score-captions", "-r", str(r),
                           "-c", str(c), "--metrics", "meteor", "--meteor-engine", "java",
                           "--per-item", str(tmp_path / "o.json")],
                          capture_output=True, text=True, env=env, timeout=600,
                          cwd=Path(__file__).resolve().parents[3])
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("METEOR"))
    assert "n/a" in line and "Java" in line


# --------------------------------------------------------------------- stress set (Java)
_SUBJECTS = ["a dog", "the dogs", "two children", "a man", "A woman", "people", "the kids",
             "a little girl", "Mr. Smith", "Dr. Jones", "a brown dog", "three men"]
_VERBS = [("run", "runs", "running", "ran"), ("play", "plays", "playing", "played"),
          ("jump", "jumps", "jumping", "jumped"), ("climb", "climbs", "climbing", "climbed"),
          ("ride", "rides", "riding", "rode"), ("walk", "walks", "walking", "walked"),
          ("swim", "swims", "swimming", "swam"), ("throw", "throws", "throwing", "threw")]
_SYNONYMS = [("car", "automobile"), ("kid", "child"), ("big", "large"), ("small", "little"),
             ("photo", "photograph"), ("boat", "ship"), ("shore", "coast"),
             ("picture", "image"), ("street", "road"), ("stone", "rock"), ("hat", "cap"),
             ("jacket", "coat"), ("dog", "hound"), ("jump", "leap"), ("shout", "yell")]
_PLACES = ["on the grass", "in the snow", "near the water", "at the beach", "down the street",
           "through the park", "in front of a building", "on a rock", "by the lake"]
_ODD = ["t-shirt", "well-known", "U.S.-based", "...", "--", ",", "1,000", "3.5", "5'10",
        "“quoted”", "‘single’", "dog's", "'90s", "can't", "rock-n-roll", "e-mail", "(left)",
        "[x]", "#1", "$20", "50%", "a&b", "x/y", "mid--air", "—", "–", "…", "Mr.", "Dr.",
        "St.", "e.g.", "i.e.", "No. 5", "no. 5", "Inc.", "U.S.A.", "a.m.", "vs.", "A.",
        "etc.", "2", "1990s", "3rd", "42,000", "3.14", "1/2", "2:30", "café", "naïve",
        "Müller", "Ёлка", "straße", "ﬁsh", "日本", "Łódź", "crème brûlée", "😀", "São",
        "İstanbul", "ÀÉÎ", "end.", "Ok.", "?!", "''", "``", "DOTMULTI", "a.b.c", "x..y"]


def _paraphrase_pairs(rng: random.Random, n: int) -> list[tuple[str, str]]:
    """Multi-word phrase/paraphrase pairs drawn from the paraphrase table itself."""
    idx = _engine().resources.paraphrases
    out = []
    depth = idx.node_depth(idx.phrase_nodes)
    multi = np.flatnonzero(depth >= 2)
    words_of = {}

    def words(node):  # walk the trie keys back to the root
        if node not in words_of:
            seq, cur = [], int(node)
            while cur:
                key = int(idx.level_keys[cur])
                parent, word = divmod(key, len(idx.vocab))
                seq.append(idx.vocab[word])
                cur = parent
            words_of[node] = " ".join(reversed(seq))
        return words_of[node]

    while len(out) < n:
        row = int(multi[rng.randrange(multi.size)])
        a, b = idx.entry_offsets[row], idx.entry_offsets[row + 1]
        para = int(idx.entry_para[rng.randrange(a, b)])
        phrase, target = words(idx.phrase_nodes[row]), words(para)
        if (phrase + target).replace(" ", "").isalpha():
            out.append((phrase, target))
    return out


def stress_items(seed: int = 20150611, n: int = 240) -> list[tuple[list[str], str]]:
    """``(references, candidate)`` raw texts exercising every stage and edge case: repeated
    words, stem-only and synonym-only matches, multi-word paraphrases (drawn from the table),
    punctuation, hyphens, numbers, abbreviations, non-ASCII letters, candidates longer and
    shorter than every reference, sharing nothing, and (nearly) empty."""
    rng = random.Random(seed)
    paras = _paraphrase_pairs(rng, 40)

    def scene() -> list[str]:
        verb = rng.choice(_VERBS)
        syn = rng.choice(_SYNONYMS)
        words = [rng.choice(_SUBJECTS), "is", verb[2], rng.choice(_PLACES), "with a", syn[0]]
        if rng.random() < 0.5:
            words.insert(rng.randrange(len(words) + 1), rng.choice(paras)[0])
        if rng.random() < 0.5:
            words.insert(rng.randrange(len(words) + 1), rng.choice(_ODD))
        return words

    def variant(words: list[str]) -> list[str]:
        out = []
        for w in words:
            r = rng.random()
            for verb in _VERBS:
                if w in verb and r < 0.5:
                    w = rng.choice(verb)  # stem-only match
            for a, b in _SYNONYMS:
                if w == a and r < 0.7:
                    w = b  # synonym-only match
            for a, b in paras:
                if w == a and r < 0.8:
                    w = b  # paraphrase
            out.append(w)
        if rng.random() < 0.4:
            out.insert(rng.randrange(len(out) + 1), rng.choice(_ODD))
        if rng.random() < 0.2:
            k = rng.randrange(len(out))
            out.insert(k, out[k])  # a repeated word
        return out

    items = []
    for k in range(n):
        base = scene()
        refs = [" ".join(variant(base)) for _ in range(rng.randint(1, 5))]
        kind = k % 12
        if kind == 0:
            cand = " ".join(refs) + " " + " ".join(variant(base))  # longer than every ref
        elif kind == 1:
            cand = " ".join(base[:2])  # shorter than every ref
        elif kind == 2:
            cand = "xyzzy plugh 12345 ¿qué?"  # shares nothing
        elif kind == 3:
            cand = rng.choice(["", ".", "...", "-", "'", "|||", " ", "a", "the the"])
        elif kind == 4:  # many repeated words: the beam (40) overflows
            cand = " ".join(["a dog and a man"] * rng.randint(3, 6))
            refs = [" ".join(["a man and a dog"] * rng.randint(3, 6)), refs[0]]
        elif kind == 5:
            cand = refs[0]  # identical to a reference
        else:
            cand = " ".join(variant(base))
        items.append((refs, cand))
    return items


def _both_engines(refs_tokens, cand_tokens):
    py_corpus, py_items = Meteor(engine="python").score_tokens(refs_tokens, cand_tokens)
    java_corpus, java_items = Meteor(engine="java").score_tokens(refs_tokens, cand_tokens)
    worst = float(np.abs(py_items - java_items).max())
    return py_corpus, java_corpus, py_items, java_items, worst


@pytest.mark.slow
def test_engines_agree_on_generated_stress_set():
    _python_engine_ready()
    _java_ready()
    items = stress_items()
    refs = [[r.split() for r in rs] for rs, _ in items]
    cands = [c.split() for _, c in items]
    py_corpus, java_corpus, py_items, java_items, worst = _both_engines(refs, cands)
    print(f"stress set: {len(items)} items, worst per-item difference {worst:.1e}, "
          f"corpus {py_corpus!r} vs {java_corpus!r}")
    bad = np.flatnonzero(np.abs(py_items - java_items) > TOL)
    assert bad.size == 0, [(items[i], py_items[i], java_items[i]) for i in bad[:3]]
    assert abs(py_corpus - java_corpus) <= TOL
    # every stage matched something, and some items score 0 or 1
    from kcca.captions._meteor import _clean

    _, _, stats = _engine().score_lines([[_clean(" ".join(r)) for r in rs] for rs in refs],
                                        [_clean(" ".join(c)) for c in cands])
    for stage in range(4):
        assert stats[:, 4 + 4 * stage].sum() > 0, f"stage {stage} unused"  # content words
    assert (py_items == 0).any() and (py_items > 0.99).any()


@pytest.mark.slow
def test_normaliser_equals_the_jars_on_stress_lines():
    _python_engine_ready()
    _java_ready()
    from kcca.captions._meteor_engine.normalize import normalize_line

    lines = [t for rs, c in stress_items() for t in (*rs, c)] + _ODD
    lines = [x for x in dict.fromkeys(lines) if x.strip() and "\n" not in x]
    java = _java_lines("edu.cmu.meteor.util.Normalizer", ["en", "true"], lines)
    prefixes = _engine().resources.nonbreaking_prefixes
    bad = [(x, j, normalize_line(x, prefixes)) for x, j in zip(lines, java)
           if normalize_line(x, prefixes) != j]
    assert not bad, bad[:5]


def _stem_oracle(words: list[str]) -> list[tuple[str, str, str]]:
    """Words whose stem differs from the jar's (its ``Stemmer en`` main class; it leaves
    number-like words alone, so they are not asked)."""
    from kcca.captions._meteor_engine.stemmer import stem

    def number(w):
        return all(ch.isdigit() or ch in ",.-" for ch in w)

    asked = sorted({w for w in words if w and not number(w) and w == " ".join(w.split())
                    and " " not in w})
    java = _java_lines("Stemmer", ["en"], asked)
    return [(w, j, stem(w)) for w, j in zip(asked, java) if j != stem(w)]


@pytest.mark.slow
def test_stemmer_equals_the_jars_on_wordnet_words():
    """Every word of Meteor's WordNet synonym list (147k) and the stress set."""
    _python_engine_ready()
    _java_ready()
    syn = _engine().resources.synonyms
    words = syn.words() + [w.lower() for x in _ODD for w in x.split()]
    assert not _stem_oracle(words)


# ------------------------------------------------------------- Flickr 8K (Java, real data)
@pytest.mark.slow
@pytest.mark.real_data
def test_engines_agree_on_flickr8k_test_leave_one_out(data_dir):
    """Candidate = caption #0, references = #1-#4 of the 1,000 test images, tokenised by the
    project's PTB tokeniser (as pycocoevalcap does before Meteor); also the jar's stems of
    every word of all Flickr 8K captions."""
    _python_engine_ready()
    _java_ready()
    from kcca.captions._tokenizer import tokenize
    from kcca.data._flickr8k import load_flickr8k

    corpus = load_flickr8k(data_dir, images=False, judgments=False, lemmas=False)
    ids = list(corpus.split("test"))
    refs = [[tokenize(c) for c in corpus.captions[i][1:5]] for i in ids]
    cands = [tokenize(corpus.captions[i][0]) for i in ids]
    py_corpus, java_corpus, py_items, java_items, worst = _both_engines(refs, cands)
    print(f"Flickr 8K test leave-one-out: {len(ids)} items, worst per-item difference "
          f"{worst:.1e}, corpus {py_corpus!r} vs {java_corpus!r}")
    assert worst <= TOL and abs(py_corpus - java_corpus) <= TOL
    # the stem stage sees lower-cased normalised tokens: every word of every caption
    engine = _engine()
    words = {w for caps in corpus.captions.values() for c in caps
             for w in engine.tokens(" ".join(tokenize(c)))}
    assert not _stem_oracle(sorted(words))
    assert math.isfinite(py_corpus)
