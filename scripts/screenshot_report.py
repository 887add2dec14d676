"""Write the HTML report of a run folder and save a screenshot of it (headless Chromium).

    python scripts/screenshot_report.py results/hodosh2013 --data-dir /path/to/data \\
        -o docs/report-flickr8k.png

Uses the same code as ``kcca report`` (:func:`kcca._report.build_report`) and as the browser
test (:mod:`kcca._report.browser`: the system Chromium and chromedriver, never a download).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run_dir", help="output folder of `kcca demo` or `kcca reproduce`")
    p.add_argument("-o", "--output", required=True, help="PNG to write")
    p.add_argument("--report-dir", default=None,
                   help="where the report goes (default: a temporary folder)")
    p.add_argument("--data-dir", default=None, help="folder holding flickr8k/ ($KCCA_DATA_DIR)")
    p.add_argument("--width", type=int, default=1300, help="window width (default 1300)")
    p.add_argument("--height", type=int, default=1600, help="window height (default 1600)")
    p.add_argument("--scroll-to", default=None,
                   help="id of a section to scroll to: summary, plots, annotation, search")
    args = p.parse_args(argv)

    from kcca._report import build_report
    from kcca._report.browser import screenshot, unavailable

    reason = unavailable()
    if reason:
        print(f"screenshot_report: {reason}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.report_dir) if args.report_dir else Path(tmp) / "report"
        page = build_report(args.run_dir, out, data_dir=args.data_dir, progress=True)
        png = screenshot(page, args.output, width=args.width, height=args.height,
                         scroll_to=args.scroll_to)
    print(f"wrote {png} ({png.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
