"""The demo's HTML report in a real browser: headless Chromium through Selenium.

Uses the system Chromium and chromedriver (``apt-get install chromium chromium-driver``) with
explicit paths; Selenium Manager is made to fail if anything calls it, so nothing is ever
downloaded. Skipped, with the reason, where selenium, Chromium or chromedriver is missing.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from kcca._report.browser import headless_chromium, open_report, unavailable
from tests.support.optional_tools import skip_unless

REASON = unavailable()


@pytest.fixture(autouse=True)
def _browser():
    skip_unless(REASON is None, f"no headless browser: {REASON}")

DEMO_FLAGS = ["--n-train", "40", "--n-dev", "12", "--n-test", "12", "--image-size", "40",
              "--sheet", "2", "--p", "2", "--d", "1", "--kappas", "1", "--n-count", "3"]


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory) -> Path:
    """A tiny ``kcca demo`` run; its last stage writes the report and prints the path."""
    import contextlib
    import io

    from kcca._cli import main

    root = tmp_path_factory.mktemp("demo")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["demo", "--out", str(root / "out"), *DEMO_FLAGS,
                     "--cache-dir", str(root / "cache"), "--quiet"]) == 0
    page = root / "out" / "report" / "index.html"
    assert f"wrote HTML report to {page}" in " ".join(buf.getvalue().split())  # lines wrap
    return page


@pytest.fixture()
def driver(monkeypatch):
    from selenium.webdriver.common.selenium_manager import SeleniumManager

    def forbidden(*_a, **_k):
        raise AssertionError("Selenium Manager must not run (it may download a driver)")

    monkeypatch.setattr(SeleniumManager, "binary_paths", forbidden)
    drv = headless_chromium(1280, 1000)
    try:
        yield drv
    finally:
        drv.quit()


def visible_rows(drv, table_id: str) -> int:
    return drv.execute_script(
        "return Array.from(document.querySelectorAll('#' + arguments[0] + ' tbody tr'))"
        ".filter(function (r) { return r.offsetParent !== null; }).length;", table_id)


def wait_for(fn, timeout: float = 10.0):
    end = time.monotonic() + timeout
    value = fn()
    while not value and time.monotonic() < end:
        time.sleep(0.05)
        value = fn()
    return value


def test_demo_report_renders_in_chromium(demo_report, driver, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    open_report(driver, demo_report)
    shot = tmp_path / "report.png"
    assert driver.save_screenshot(str(shot))
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5_000

    # every image decoded: thumbnails of queries and candidates, and the plots
    images = driver.execute_script(
        "return Array.from(document.images).map(function (i) {"
        " return [i.getAttribute('src'), i.naturalWidth]; });")
    assert len(images) > 12
    assert [src for src, width in images if not width > 0] == []
    assert any(src.startswith("plots/") for src, _ in images)

    # the tables have rows: systems + chance in the summary, queries in both browsers
    for task in ("annotation", "search"):
        assert visible_rows(driver, f"summary-{task}") == 3  # TRI5, BoW5, chance
        assert visible_rows(driver, f"queries-{task}") == 12
    cands = driver.find_elements(By.CSS_SELECTOR, "#queries-annotation ol.cands li")
    assert len(cands) == 12 * 10

    # the filter: an image id leaves one row, nonsense none, clearing brings all back
    first_id = driver.execute_script(
        "return JSON.parse(document.getElementById('report-data').textContent).images[0];")
    box = driver.find_element(By.ID, "filter-annotation")
    box.send_keys(first_id)
    assert wait_for(lambda: visible_rows(driver, "queries-annotation") == 1)
    box.clear()
    box.send_keys("no-such-query-zzz")
    assert wait_for(lambda: visible_rows(driver, "queries-annotation") == 0)
    driver.execute_script("var b = arguments[0]; b.value = '';"
                          " b.dispatchEvent(new Event('input'));", box)
    assert wait_for(lambda: visible_rows(driver, "queries-annotation") == 12)

    # a word of the captions filters the search queries to a strict, non-empty subset
    word = driver.execute_script(
        "var d = JSON.parse(document.getElementById('report-data').textContent);"
        "var counts = {}; d.captions.forEach(function (c) {"
        "  new Set(c.toLowerCase().split(/\\s+/)).forEach(function (w) {"
        "    counts[w] = (counts[w] || 0) + 1; }); });"
        "return Object.keys(counts).filter(function (w) {"
        "  return w.length > 3 && counts[w] > 1 && counts[w] < d.n; })[0];")
    assert word
    driver.find_element(By.ID, "filter-search").send_keys(word)
    n_search = wait_for(lambda: 0 < visible_rows(driver, "queries-search") < 12)
    assert n_search

    # the system selector switches the rankings shown
    Select(driver.find_element(By.ID, "system")).select_by_visible_text("BoW5")
    count = driver.find_element(By.CSS_SELECTOR, "#annotation .count").text
    assert "ranked by BoW5" in count
