"""Open a report in headless Chromium through Selenium (screenshots, browser tests).

Uses the system's Chromium and chromedriver (Debian: ``apt-get install chromium
chromium-driver``) with both paths given explicitly, so Selenium Manager never runs and
nothing is downloaded. :func:`unavailable` says why a browser cannot be started (for skips).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

BROWSERS = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
DRIVERS = ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")


def _first(paths: tuple[str, ...], name: str) -> str | None:
    for p in paths:
        if Path(p).is_file():
            return p
    return shutil.which(name)


def find_chromium() -> tuple[str | None, str | None]:
    """(browser binary, chromedriver) from the system, ``None`` where absent."""
    return _first(BROWSERS, "chromium"), _first(DRIVERS, "chromedriver")


def unavailable() -> str | None:
    """Why a headless browser cannot be started here, or ``None`` when it can."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    binary, driver = find_chromium()
    if binary is None:
        return "no Chromium binary (apt-get install chromium)"
    if driver is None:
        return "no chromedriver (apt-get install chromium-driver)"
    return None


def headless_chromium(
    width: int = 1400, height: int = 1000, *, binary: str | None = None, driver: str | None = None
) -> Any:
    """A Selenium ``webdriver.Chrome`` on the system Chromium, headless, ``width x height``."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    found_binary, found_driver = find_chromium()
    binary, driver = binary or found_binary, driver or found_driver
    if binary is None or driver is None:
        raise RuntimeError(unavailable() or "no Chromium / chromedriver")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--no-first-run",
        "--disable-extensions",
        f"--window-size={width},{height}",
    ):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)


def open_report(drv: Any, page: str | Path, timeout: float = 30.0) -> None:
    """Load a report page and wait until its script ran and every image finished loading."""
    drv.get(Path(page).resolve().as_uri())
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        done = drv.execute_script(
            "return document.readyState === 'complete' && document.body.dataset.ready === '1'"
            " && Array.from(document.images).every(function (i) { return i.complete; });"
        )
        if done:
            return
        time.sleep(0.1)
    raise TimeoutError(f"{page}: the report did not finish loading in {timeout:.0f}s")


def screenshot(
    page: str | Path,
    png: str | Path,
    *,
    width: int = 1400,
    height: int = 1000,
    scroll_to: str | None = None,
) -> Path:
    """Save a PNG of ``page`` in a ``width x height`` window (optionally scrolled to a CSS id)."""
    drv = headless_chromium(width, height)
    try:
        open_report(drv, page)
        if scroll_to:
            drv.execute_script(
                "var e = document.getElementById(arguments[0]); if (e) { e.scrollIntoView(); }",
                scroll_to,
            )
        out = Path(png)
        out.parent.mkdir(parents=True, exist_ok=True)
        if not drv.save_screenshot(str(out)):
            raise RuntimeError(f"Chromium could not save a screenshot to {out}")
        return out
    finally:
        drv.quit()
