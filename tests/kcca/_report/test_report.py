"""``kcca report``: the page's data, escaping, self-containment, paper numbers, errors."""

from __future__ import annotations

import dataclasses
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from kcca.data._errors import DataError
from kcca._evaluate.original import original_ranks
from kcca._evaluate.rankings_io import read_rankings
from kcca._report import build_report
from kcca._report.gather import chance_levels, paper_numbers
from kcca._report.render import diff_class, fmt, script_json
from kcca._report.rundir import load_run_corpus, scan_run_folder
from tests.support.report_runs import tiny_corpus, write_run

DATA_RE = re.compile(r'<script type="application/json" id="report-data">(.*?)</script>', re.S)


def page_json(html: str) -> dict:
    m = DATA_RE.search(html)
    assert m, "no report-data script"
    return json.loads(m.group(1))


class Links(HTMLParser):
    """Every src / href attribute of a page, and its <img> sources."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.images: list[str] = []

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("src", "href") and v is not None:
                self.urls.append(v)
                if tag == "img":
                    self.images.append(v)


def links(html: str) -> Links:
    p = Links()
    p.feed(html)
    return p


# ------------------------------------------------------------------ the page and its data
def test_build_report_writes_page_thumbnails_and_plots(run_dir, corpus, tmp_path):
    out = tmp_path / "report"
    page = build_report(run_dir, out, corpus=corpus, top_k=4, thumb_size=32)
    assert page == out / "index.html"
    html = page.read_text(encoding="utf-8")
    data = page_json(html)
    pool = corpus.pool("test")
    assert data["n"] == len(pool) == 12 and data["k"] == 4
    assert data["images"] == [p[0] for p in pool] and data["captions"] == [p[2] for p in pool]
    assert [s["name"] for s in data["systems"]] == ["BoW5", "TRI5"]
    for s, f in zip(data["systems"], ("rankings_BoW5.json", "rankings_TRI5.json")):
        rk = read_rankings(run_dir / f, pool)
        for task in ("annotation", "search"):
            assert s[task]["top"] == rk.tasks[task][:, :4].tolist()
            assert s[task]["rank"] == original_ranks(rk.tasks[task]).tolist()
    # thumbnails: one small JPEG per pool image, beside the page
    assert len(data["thumbs"]) == 12
    for url in data["thumbs"]:
        assert url.startswith("thumbs/")
        raw = (out / url).read_bytes()
        assert raw[:3] == b"\xff\xd8\xff"
    import cv2

    img = cv2.imread(str(out / data["thumbs"][0]))
    assert max(img.shape[:2]) == 32
    # the plot is copied and shown; the summary has a row per system and chance
    assert (out / "plots" / "recall_at_k.png").is_file()
    assert 'src="plots/recall_at_k.png"' in html
    for task in ("annotation", "search"):
        table = re.search(rf'<table class="summary" id="summary-{task}">(.*?)</table>', html,
                          re.S).group(1)
        assert table.count("<tr") == 1 + 2 + 1  # header, two systems, chance
    # synthetic crowd judgments: every shown pair is judged, the gold pair relevant
    assert data["judgments"]["0,0"]["c"][2] == 1
    assert 'id="filter-annotation"' in html and 'id="system"' in html


def test_judgment_marks_follow_the_relevance_rule(run_dir, corpus, tmp_path):
    page = build_report(run_dir, tmp_path / "r", corpus=corpus, top_k=12, thumb_size=32)
    data = page_json(page.read_text(encoding="utf-8"))
    ids, cids = data["images"], data["captionIds"]
    for key, jd in data["judgments"].items():
        i, j = map(int, key.split(","))
        crowd = corpus.crowd[(ids[i], cids[j])]
        assert jd["c"][:2] == [crowd.yes, crowd.no]
        assert jd["c"][2] == int(crowd.relevant())


def test_text_is_escaped_in_html_and_in_the_json(tmp_path):
    corpus = tiny_corpus()
    evil = '</script><script>alert("x")</script> & <b>bold</b>'
    first = corpus.split("test")[0]
    caps = list(corpus.captions[first])
    caps[corpus.pool_caption_index] = evil
    corpus = dataclasses.replace(corpus, captions={**corpus.captions, first: tuple(caps)})
    run = write_run(tmp_path / "run", corpus, systems=('<img src=x onerror=alert(1)>',))
    html = build_report(run, tmp_path / "out", corpus=corpus, thumb_size=32).read_text()
    assert "<img src=x" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "<b>bold</b>" not in html and 'alert("x")' not in html
    # exactly the page's own two scripts, and the JSON gives the text back intact
    assert html.count("<script") == 2 and html.count("</script>") == 2
    data = page_json(html)
    assert data["captions"][0] == evil
    assert data["systems"][0]["name"] == '<img src=x onerror=alert(1)>'


def test_script_json_escapes_markup_characters():
    text = script_json({"a": "</script>&<!--", "b": "\u2028"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"a": "</script>&<!--", "b": "\u2028"}


@pytest.mark.parametrize("embed", [False, True])
def test_page_is_self_contained(run_dir, corpus, tmp_path, embed):
    out = tmp_path / "out"
    html = build_report(run_dir, out, corpus=corpus, embed=embed, thumb_size=32).read_text()
    found = links(html)
    assert found.images, "the plot should be an <img>"
    for url in found.urls + page_json(html)["thumbs"]:
        assert not re.match(r"(https?:)?//", url, re.I), url
        if not url.startswith(("#", "data:")):
            assert (out / url).is_file(), url
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I)
    assert not re.search(r"url\(\s*['\"]?(https?:)?//", html, re.I)
    assert "@import" not in html
    if embed:
        assert all(u.startswith("data:image/") for u in found.images)
        assert all(u.startswith("data:image/jpeg") for u in page_json(html)["thumbs"])
        assert not (out / "thumbs").exists() and not (out / "plots").exists()


def test_report_inside_run_folder_skips_its_own_plots(run_dir, corpus):
    build_report(run_dir, corpus=corpus, thumb_size=32)
    again = build_report(run_dir, corpus=corpus, thumb_size=32)
    assert again == run_dir / "report" / "index.html"
    assert sorted(p.name for p in (run_dir / "report" / "plots").iterdir()) == ["recall_at_k.png"]
    assert scan_run_folder(run_dir, exclude=run_dir / "report").plots == [
        run_dir / "recall_at_k.png"]


# ------------------------------------------------------------------ paper numbers
def test_paper_numbers_and_difference_colours():
    bow5 = paper_numbers("BoW5")
    assert bow5["annotation"]["R@1"] == 6.2 and bow5["search"]["median rank"] == 60
    assert bow5["annotation"]["S@1"] == 15.0 and bow5["annotation"]["expert mean"] == 1.98
    assert paper_numbers("TRI5SEM")["annotation"]["R@1"] == 8.3
    assert paper_numbers("my-system") == {"annotation": {}, "search": {}}
    assert diff_class("R@1", 7.0, 6.2) == "better"
    assert diff_class("R@1", 4.6, 6.2) == "worse"
    assert diff_class("median rank", 47, 58) == "better"
    assert diff_class("median rank", 70, 58) == "worse"
    assert diff_class("R@10", 23.2, 24.3) == "close"
    assert diff_class("R@1", None, 6.2) == "" == diff_class("R@1", 5.0, None)
    assert fmt("median rank", 47.0) == "47" and fmt("median rank", 58.5) == "58.5"
    assert chance_levels(1000) == {"R@1": 0.1, "R@5": 0.5, "R@10": 1.0, "median rank": 500.5}


@pytest.mark.data_variables
def test_summary_shows_paper_beside_ours_for_flickr8k(run_dir, corpus, tmp_path):
    """The paper's columns appear only for the Flickr 8K test pool (faked here by name)."""
    html = build_report(run_dir, tmp_path / "a", corpus=corpus, thumb_size=32).read_text()
    assert "paper 6.2" not in html and "not shown" in html
    flickr_named = dataclasses.replace(corpus, name="flickr8k")
    html = build_report(run_dir, tmp_path / "b", corpus=flickr_named, thumb_size=32).read_text()
    assert "paper 6.2" in html and "paper 7.1" in html  # BoW5 and TRI5 annotation R@1
    assert re.search(r'<td class="(better|worse|close)" title="ours [\d.]+, paper 6.2"', html)
    assert "not shown" not in html


def test_table_csv_disagreement_is_noted(run_dir, corpus, tmp_path):
    (run_dir / "table11.csv").write_text(
        "table,system,task,metric,ours,paper\n11,BoW5,annotation,R@1,99.00,6.2\n")
    (run_dir / "table11.md").write_text("# T\n\n- command: `kcca reproduce`\n- seed: 0\n\n## x\n")
    html = build_report(run_dir, tmp_path / "o", corpus=corpus, thumb_size=32).read_text()
    assert "table11.csv: BoW5 annotation R@1 is 99.00 there" in html
    assert "command: `kcca reproduce`" in html


# ------------------------------------------------------------------ corpus and errors
def test_demo_corpus_is_rebuilt_from_its_recorded_name(run_dir, corpus, tmp_path):
    again = load_run_corpus(corpus.name)
    assert again.captions == corpus.captions and again.splits == corpus.splits
    page = build_report(run_dir, tmp_path / "o", thumb_size=32)  # corpus from the files
    assert page_json(page.read_text())["images"] == list(corpus.split("test"))


def test_unknown_corpus_and_replaced_splits_need_a_flag():
    with pytest.raises(DataError, match="--corpus"):
        load_run_corpus("mystery")
    with pytest.raises(DataError, match="--splits"):
        load_run_corpus("flickr8k-splits-x")


def test_missing_or_empty_run_folder_errors_name_the_path_and_the_fix(tmp_path):
    missing = tmp_path / "nope"
    with pytest.raises(DataError, match=re.escape(str(missing))) as exc:
        scan_run_folder(missing)
    assert "kcca demo --out" in str(exc.value)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "other.json").write_text('{"a": 1}')
    with pytest.raises(DataError, match=r"no rankings files in .*empty") as exc:
        scan_run_folder(empty)
    assert "kcca reproduce --out" in str(exc.value)
    assert exc.value.fix == f"kcca demo --out {empty}"


def test_a_results_folder_without_rankings_is_never_offered_a_demo(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    (results / "table3.md").write_text("# Table 3\n")
    with pytest.raises(DataError, match="only tables") as exc:
        scan_run_folder(results)
    assert exc.value.fix == f"kcca reproduce --out {results} --force"
    assert "demo" not in str(exc.value) + exc.value.fix


def test_rankings_of_different_pools_are_an_error(tmp_path, corpus):
    run = write_run(tmp_path / "run", corpus, systems=("A",))
    other = tiny_corpus(seed=2)
    write_run(tmp_path / "run", other, systems=("B",), sub="rankings")
    with pytest.raises(DataError, match="different pools"):
        scan_run_folder(run)


def test_reproduce_layout_is_found(tmp_path, corpus):
    run = write_run(tmp_path / "run", corpus, systems=("BoW5",), sub="rankings")
    (run / "rankings" / "details.json").write_text(json.dumps(
        [{"system": "BoW5", "chosen": {"p": 2.0, "d": 1.0}}]))
    found = scan_run_folder(run)
    assert [r.path.name for r in found.rankings] == ["BoW5.json"]
    html = build_report(run, tmp_path / "o", corpus=corpus, thumb_size=32).read_text()
    assert "p=2, d=1" in html


def test_cli_report(run_dir, tmp_path, capsys):
    from kcca._cli import main

    out = tmp_path / "cli"
    assert main(["report", str(run_dir), "-o", str(out), "--top-k", "3", "--embed",
                 "--thumb-size", "24", "--quiet"]) == 0
    assert f"wrote report to {out / 'index.html'}" in capsys.readouterr().out
    assert page_json((out / "index.html").read_text())["k"] == 3
    assert main(["report", str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["report", str(run_dir), "--top-k", "0"]) == 2


def test_cli_report_refuses_splits_for_a_corpus_other_than_flickr8k(run_dir, tmp_path, capsys):
    """``--splits`` replaces Flickr 8K's splits; with a demo corpus it is named, not dropped."""
    from kcca._cli import main

    out = tmp_path / "cli"
    assert main(["report", str(run_dir), "-o", str(out), "--splits", str(tmp_path),
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "error: --splits replaces the splits of Flickr 8K" in err, err
    assert "fix: drop --splits" in err, err
    assert not (out / "index.html").exists()


def test_top_k_is_capped_by_the_pool(run_dir, corpus, tmp_path):
    data = page_json(build_report(run_dir, tmp_path / "o", corpus=corpus, top_k=100,
                                  thumb_size=32).read_text())
    assert data["k"] == 12
    assert all(len(row) == 12 for row in data["systems"][0]["annotation"]["top"])
    assert np.array(data["systems"][0]["search"]["top"]).shape == (12, 12)
    assert Path(tmp_path / "o" / "index.html").stat().st_size < 200_000


def test_browser_unavailable_names_the_missing_piece(monkeypatch):
    from kcca._report import browser

    monkeypatch.setattr(browser, "BROWSERS", ())
    monkeypatch.setattr(browser, "DRIVERS", ())
    monkeypatch.setattr(browser.shutil, "which", lambda name: None)
    reason = browser.unavailable()
    assert reason is not None and ("apt-get install chromium" in reason
                                   or "selenium" in reason)


def test_many_notes_fold_away_so_the_summary_table_shows():
    from kcca._report.render import MAX_OPEN_NOTES, _notes_html

    few = _notes_html("<li>a</li>", 1)
    assert few.startswith('<ul class="notes">') and "<details" not in few
    many = _notes_html("<li>x</li>" * (MAX_OPEN_NOTES + 1), MAX_OPEN_NOTES + 1)
    assert many.startswith('<details class="notes"><summary>Judged coverage and other notes (7)')
    assert _notes_html("", 0) == ""


def test_systems_in_the_papers_order():
    from types import SimpleNamespace

    from kcca._report.gather import _paper_order

    names = ["TRI5SEM", "zz-plugin", "BoW5", "NN", "TRI5", "BoW1"]
    ordered = sorted((SimpleNamespace(system=s) for s in names), key=_paper_order)
    assert [e.system for e in ordered] == ["NN", "BoW1", "BoW5", "TRI5", "TRI5SEM", "zz-plugin"]


def test_coverage_note_adds_the_judging_protocol_estimate_when_there_is_one():
    from kcca._report.gather import SystemData, _coverage_notes

    def system(metrics):
        return SystemData("BoW5", "BoW5.json", "BoW5", metrics, {}, {}, {},
                          coverage={"annotation": {"top-1 judged": 0.5, "top-5 judged": 0.5,
                                                   "top-10 judged": 0.4}})

    plain = _coverage_notes(system({"annotation": {"S@1": 11.0}}))
    assert len(plain) == 1 and "judging protocol" not in plain[0]
    est = {f"S@{k} imputed": v for k, v in ((1, 11.2), (5, 30.0), (10, 41.5))}
    (note,) = _coverage_notes(system({"annotation": {"S@1": 11.0, **est}}))
    assert "top-10 40 %" in note and "S@1/5/10 would be 11.2 / 30.0 / 41.5" in note
