"""``kcca score-captions``: table, per-item JSON, METEOR line, errors, human agreement."""

import json

from kcca._cli import main
from tests.support.fake_flickr8k import write_fake_flickr8k


def test_table_and_per_item_json(files, tmp_path, capsys):
    r, c = files
    out = tmp_path / "scores.json"
    assert main(["score-captions", "--references", str(r), "--candidates", str(c),
                 "--no-meteor", "--per-item", str(out)]) == 0
    text = capsys.readouterr().out
    for label in ("BLEU-1", "BLEU-2", "BLEU-3", "BLEU-4", "ROUGE-L", "CIDEr-D", "CIDEr"):
        assert any(line.startswith(label + " ") for line in text.splitlines()), label
    data = json.loads(out.read_text())
    assert [row["image_id"] for row in data["per_item"]] == [1, 2]
    assert set(data["corpus"]) == {"BLEU-1", "BLEU-2", "BLEU-3", "BLEU-4", "ROUGE-L",
                                   "CIDEr-D", "CIDEr"}
    assert data["per_item"][0]["BLEU-1"] > 0


def test_without_per_item_the_scores_are_printed_and_no_file_written(files, capsys):
    """As pycocoevalcap's users expect: the corpus scores on stdout, a file only when asked
    (before: CANDIDATES.scores.json appeared beside the candidates file)."""
    r, c = files
    before = sorted(p.name for p in c.parent.iterdir())
    assert main(["score-captions", "-r", str(r), "-c", str(c), "--no-meteor"]) == 0
    text = capsys.readouterr().out
    assert "2 images scored" in text and any(line.startswith("CIDEr-D ")
                                             for line in text.splitlines())
    assert "per-item scores" not in text
    assert sorted(p.name for p in c.parent.iterdir()) == before


def test_meteor_line_says_why_it_is_missing(files, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("KCCA_METEOR_JAR", str(tmp_path / "missing.jar"))
    r, c = files
    assert main(["score-captions", "-r", str(r), "-c", str(c), "--metrics", "bleu,meteor",
                 "--per-item", str(tmp_path / "o.json")]) == 0
    lines = capsys.readouterr().out.splitlines()
    meteor = [line for line in lines if line.startswith("METEOR")]
    assert meteor and "n/a" in meteor[0] and "pycocoevalcap" in meteor[0]


def test_bad_candidate_id_is_an_error(files, tmp_path, capsys):
    r, _ = files
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"image_id": 99, "caption": "x"}]))
    assert main(["score-captions", "-r", str(r), "-c", str(bad), "--no-meteor"]) == 2
    assert "99" in capsys.readouterr().err


def test_missing_arguments(capsys):
    assert main(["score-captions"]) == 2
    assert "--references" in capsys.readouterr().err


def test_a_missing_file_argument_is_named_with_a_fix(capsys):
    assert main(["score-captions", "--references", "refs.json"]) == 2
    err = capsys.readouterr().err
    assert "error: --candidates not given" in err and "fix: give --references" in err


def test_human_agreement_on_fake_flickr8k(tmp_path, capsys):
    write_fake_flickr8k(tmp_path, images=False)
    png, rep = tmp_path / "h.png", tmp_path / "h.json"
    assert main(["score-captions", "--human-agreement", "--data-dir", str(tmp_path),
                 "--split", "all", "--no-meteor", "--metrics", "bleu,rouge_l",
                 "--plot", str(png), "--out", str(rep)]) == 0
    text = capsys.readouterr().out
    assert "NOT comparable" in text and "k = 4" in text and "PHR" in text
    assert png.is_file() and json.loads(rep.read_text())["n_images"] == 4


def test_human_agreement_keeps_to_the_meteor_engine_flag(tmp_path, capsys, monkeypatch):
    """``--meteor-engine java`` is the engine of the leave-one-out METEOR too (it was
    dropped there, and the Python engine scored)."""
    write_fake_flickr8k(tmp_path, images=False)
    monkeypatch.setenv("KCCA_JAVA", str(tmp_path / "no-java"))
    assert main(["score-captions", "--human-agreement", "--data-dir", str(tmp_path),
                 "--split", "all", "--metrics", "meteor", "--meteor-engine", "java"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("METEOR"))
    assert "n/a" in line and "Java" in line
