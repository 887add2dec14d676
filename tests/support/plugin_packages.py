"""A fake installed distribution that declares kernel plug-ins through entry points."""

from __future__ import annotations

from pathlib import Path

from features.kernels._base import ENTRY_POINT_GROUP


def fake_package(root: Path, entry_points: dict[str, str], module: str | None = None) -> None:
    """An installed-looking distribution under ``root`` (put ``root`` on sys.path)."""
    info = root / "kcca_fake_plugin-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kcca-fake-plugin\nVersion: 0.1\n")
    lines = "\n".join(f"{k} = {v}" for k, v in entry_points.items())
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{lines}\n")
    if module:
        (root / "kcca_fake_plugin_mod.py").write_text(module)
