"""A flag that the command would ignore in the combination given is refused, never dropped:
exit status 2, one ``error:`` line naming the flag, one ``fix:`` line saying what to do.

Every case runs where a flag let through costs seconds at most (no data folder, the committed
compact results files, tiny inputs), so that the old behaviour fails the test quickly.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kcca._cli import main
from tests.support.named_errors import one_error

RANKINGS = Path(__file__).resolve().parents[2] / "results" / "hodosh2013" / "rankings"
BOW5 = str(RANKINGS / "BoW5.ranks.npz")


@pytest.fixture
def no_data(tmp_path, monkeypatch):
    """No data folder: $KCCA_DATA_DIR unset (compact files are evaluated on what they hold)."""
    monkeypatch.delenv("KCCA_DATA_DIR", raising=False)
    return tmp_path


def refused(capsys, argv: list[str]) -> tuple[str, str]:
    """Run ``kcca ARGV``; it must exit 2 with one error and one fix, returned."""
    code = main(argv)
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2, (error, fix)
    return error, fix


# ----------------------------------------------------------------------------- evaluate
EVALUATE_CASES = [
    (["--paper-tables", "--ties", "first"], "--ties", "give the rankings files"),
    (["--paper-tables", "--relevance", "majority", "--no-bleu-rouge"],
     "--relevance, --no-bleu-rouge", "give the rankings files"),
    ([BOW5, "--compare"], "--compare", "two or more rankings files"),
    ([BOW5, "--samples", "50"], "--samples", "add --compare"),
    ([BOW5, "--no-per-query"], "--no-per-query", "--output OUT.json or --format json"),
    ([BOW5, "--judgments", "somewhere"], "--judgments", "--data-dir DIR"),
    ([BOW5, "--split", "dev"], "--split dev", "give --split test"),
]


@pytest.mark.parametrize("extra, named, fix_text", EVALUATE_CASES,
                         ids=[c[1] for c in EVALUATE_CASES])
def test_evaluate_refuses_a_flag_it_would_ignore(no_data, capsys, extra, named, fix_text):
    error, fix = refused(capsys, ["evaluate", *extra])
    assert named in error, error
    assert fix_text in fix, fix


# ----------------------------------------------------------------------- score-captions
@pytest.fixture
def coco_files(tmp_path):
    """A one-image COCO annotation file and result file."""
    import json

    refs, cands = tmp_path / "refs.json", tmp_path / "cands.json"
    refs.write_text(json.dumps([{"image_id": 1, "caption": "a dog runs on the grass"},
                                {"image_id": 1, "caption": "a brown dog running"}]))
    cands.write_text(json.dumps([{"image_id": 1, "caption": "a dog runs"}]))
    return str(refs), str(cands)


@pytest.mark.parametrize("extra, named", [
    (["--split", "dev"], "--split"),
    (["--vocabulary-size", "50", "--plot", "p.png"], "--vocabulary-size, --plot"),
    (["--out", "report.json"], "--out"),
])
def test_score_captions_refuses_human_agreement_flags_when_scoring_a_file(
        no_data, capsys, coco_files, extra, named):
    refs, cands = coco_files
    error, fix = refused(capsys, ["score-captions", "-r", refs, "-c", cands, "--metrics", "bleu",
                                  "--per-item", str(no_data / "s.json"), *extra])
    assert error == f"{named} belong to --human-agreement, which is not asked for", error
    assert fix == f"add --human-agreement, or drop {named}", fix


@pytest.mark.parametrize("extra, named", [
    (["--json"], "--json"),
    (["--no-tokenize", "--allow-empty"], "--no-tokenize, --allow-empty"),
    (["--references", "r.json", "--per-item", "o.json"], "--references, --per-item"),
])
def test_score_captions_refuses_file_flags_with_human_agreement(no_data, capsys, extra, named):
    error, fix = refused(capsys, ["score-captions", "--human-agreement", "--data-dir",
                                  str(no_data), "--metrics", "bleu", *extra])
    assert named in error and error.startswith("--human-agreement scores"), error
    assert fix.startswith(f"drop {named}, or score a result file"), fix


# --------------------------------------------------------------------------------- data
def test_data_refuses_images_dir_without_a_json_split_file(no_data, capsys):
    error, fix = refused(capsys, ["data", "--corpus", "demo", "--images-dir", str(no_data)])
    assert error.startswith("--images-dir is the image folder of a JSON split file"), error
    assert fix.startswith("drop --images-dir"), fix


# --------------------------------------------------------------------------- preprocess
@pytest.mark.parametrize("extra, why", [
    (["--preset", "bleu-rouge"], "(preset bleu-rouge)"),
    (["--no-lemmatize"], "(preset flickr8k-full, --no-lemmatize)"),
])
def test_preprocess_refuses_a_tagger_without_lemmatisation(no_data, capsys, extra, why):
    error, fix = refused(capsys, ["preprocess", "--corpus", "demo", "--tagger", "ngram",
                                  "--no-cache", "--quiet", "--show", "0", *extra])
    assert error == f"--tagger tags the words for the lemmatiser, which is off {why}", error
    assert fix == "add --lemmatize, or drop --tagger", fix


# ----------------------------------------------------------------------------- features
def test_features_refuses_a_backend_without_gram(no_data, capsys, monkeypatch):
    monkeypatch.setenv("KCCA_DATA_DIR", str(no_data))  # an empty folder: no extraction
    error, fix = refused(capsys, ["features", "--backend", "numpy", "--no-cache", "--quiet"])
    assert error.startswith("--backend numpy is the array backend of --gram"), error
    assert fix == "add --gram, or drop --backend", fix


# -------------------------------------------------------------------------------- query
def test_query_refuses_skip_bad_images_without_images(no_data, capsys):
    error, fix = refused(capsys, ["query", "a dog", "--model", str(no_data / "none.kcca.npz"),
                                  "--skip-bad-images", "--no-cache"])
    assert error.startswith("--skip-bad-images leaves unreadable files of --images out"), error
    assert fix == "add --images DIR, or drop --skip-bad-images", fix


# -------------------------------------------------------------------------------- cache
def test_cache_verify_refuses_dry_run(no_data, capsys):
    error, fix = refused(capsys, ["cache", "verify", "--dry-run", "--cache-dir",
                                  str(no_data / "cache")])
    assert error == "--dry-run shows what prune would delete, and verify deletes nothing", error
    assert fix == "run `kcca cache prune --dry-run`, or drop --dry-run", fix


# --------------------------------------------------------------------- caption-analysis
@pytest.mark.parametrize("analysis", ["content-selection", "keywords"])
@pytest.mark.parametrize("value", ["0", "-2"])
def test_caption_analysis_refuses_max_images_below_one(no_data, capsys, monkeypatch,
                                                       analysis, value):
    """0 meant every image and -N all but the last N: both are named before the data."""
    monkeypatch.setenv("KCCA_DATA_DIR", str(no_data))  # an empty folder: nothing runs
    error, fix = refused(capsys, ["caption-analysis", analysis, "--max-images", value,
                                  "--no-cache"])
    assert error == f"--max-images must be 1 or more, got {value}", error
    assert fix.startswith("give --max-images 1 or more"), fix


@pytest.mark.parametrize("command", [["query", "a dog"], ["annotate", "dog.jpg"]])
def test_query_and_annotate_refuse_top_below_one(no_data, capsys, command):
    """``--top 0`` printed a table with no rows."""
    error, fix = refused(capsys, [*command, "--model", str(no_data / "none.kcca.npz"),
                                  "--top", "0"])
    assert error == "--top must be 1 or more, got 0", error
    assert fix.startswith("give --top 1 or more"), fix


@pytest.mark.parametrize("extra", [["--metrics", "bleu"], ["--no-meteor"]])
def test_score_captions_refuses_a_meteor_engine_without_meteor(no_data, capsys, coco_files,
                                                               extra):
    refs, cands = coco_files
    error, fix = refused(capsys, ["score-captions", "-r", refs, "-c", cands, "--per-item",
                                  str(no_data / "s.json"), "--meteor-engine", "java", *extra])
    assert error.startswith("--meteor-engine java chooses how METEOR is scored"), error
    assert fix.startswith("drop --meteor-engine"), fix


# ---------------------------------------------------------------------------- fit-model
def test_fit_model_refuses_a_corpus_with_the_demo(no_data, capsys):
    """--corpus gives the corpus of --experiment or --system; the demo fits on its own."""
    error, fix = refused(capsys, ["fit-model", "--demo", "--corpus", "synthetic.json",
                                  "--out", str(no_data / "m.kcca.npz"), "--no-cache"])
    assert error.startswith("--corpus gives the corpus of --system or --experiment"), error
    assert fix == "drop --corpus, or fit a system of that corpus with --experiment FILE", fix
