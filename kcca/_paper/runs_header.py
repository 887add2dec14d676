"""The header's account of how the systems were run, from their run details
(``details.json``, :func:`kcca._evaluate.results_files.read_details`): the settings chosen on
dev and the grid searched, and the command and date of each run."""

from __future__ import annotations

from kcca._evaluate.results_files import chosen_text
from kcca._paper.tables import short_name


def run_text(entry: dict) -> str:
    """The header's account of one system's run: chosen settings, the grid searched, and the
    command and date when recorded."""
    text = chosen_text(entry.get("chosen"))
    grid = (entry.get("spec") or {}).get("grid") or {}
    extra = []
    if "p" in (entry.get("chosen") or {}) and grid.get("p") and grid.get("d"):
        extra.append(
            "searched p in {"
            + ", ".join(f"{v:g}" for v in grid["p"])
            + "}, d in {"
            + ", ".join(f"{v:g}" for v in grid["d"])
            + "}"
        )
    if entry.get("command"):
        extra.append(
            f"run by `{entry['command']}`" + (f" on {entry['date']}" if entry.get("date") else "")
        )
    return text + (f" ({'; '.join(extra)})" if extra and text else "")


def header_runs(entries: dict[str, dict], chosen: dict[str, str]) -> list[str]:
    """The header's two lines on how the systems were run, systems grouped: by the settings
    chosen on dev (and the grid searched), and by the command that ran them (with dates)."""
    settings: dict[str, list[str]] = {}
    commands: dict[str, list[str]] = {}
    dates: dict[str, list[str]] = {}
    for s, c in chosen.items():
        e = entries.get(s) or {}
        text = run_text({k: v for k, v in e.items() if k not in ("command", "date")}) or c
        settings.setdefault(text, []).append(short_name(s))
        if e.get("command"):
            commands.setdefault(e["command"], []).append(short_name(s))
            if e.get("date"):
                dates.setdefault(e["command"], []).append(str(e["date"]))
    lines = [
        "chosen on dev (frozen): "
        + ("; ".join(f"{k}: {', '.join(v)}" for k, v in settings.items()) or "n/a")
    ]
    if commands:

        def when(cmd: str) -> str:
            d = sorted(dates.get(cmd, []))
            return "" if not d else f" on {d[0]}" if d[0] == d[-1] else f" {d[0]} to {d[-1]}"

        lines.append(
            "run by: "
            + "; ".join(
                f"`{cmd}`{when(cmd)} ({len(v)}): {', '.join(v)}" for cmd, v in commands.items()
            )
        )
    return lines
