"""A self-contained HTML page of one ranking (``kcca query --html``, ``kcca annotate --html``).

Thumbnails are embedded as JPEG data URIs, so the page is one file that opens anywhere.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from kcca._cache import write_text_atomic

THUMB = 160  # longest side of a thumbnail, pixels


def data_uri(image: np.ndarray | None, size: int = THUMB) -> str | None:
    """An RGB uint8 image as a ``data:image/jpeg;base64,...`` URI (longest side ``size``)."""
    if image is None:
        return None
    import cv2

    image = np.asarray(image)
    h, w = image.shape[:2]
    scale = size / max(h, w)
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_NEAREST
    small = cv2.resize(
        image, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=interp
    )
    ok, buf = cv2.imencode(
        ".jpg", cv2.cvtColor(small, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 85]
    )
    if not ok:
        return None
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode("ascii")


def _img(uri: str | None, alt: str) -> str:
    if uri is None:
        return '<div class="noimg">no image</div>'
    return f'<img src="{uri}" alt="{html.escape(alt)}">'


_STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em} .meta{color:#555;font-size:.9em}
table{border-collapse:collapse;margin-top:1em} td,th{border-bottom:1px solid #ddd;
padding:.4em .6em;vertical-align:top;text-align:left} th{background:#f4f4f4}
img{max-width:160px;max-height:160px;display:block} .noimg{width:160px;color:#999}
.num{text-align:right;font-variant-numeric:tabular-nums}
.query img{max-width:240px;max-height:240px}
ul{margin:0;padding-left:1.1em}
"""


def page(
    title: str,
    intro: str,
    head: Sequence[str],
    rows: Sequence[Sequence[str]],
    query_image: str | None = None,
) -> str:
    """An HTML document: a title, an intro (HTML), an optional query image, a table."""
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "\n".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    q = f'<div class="query">{query_image}</div>' if query_image else ""
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{html.escape(title)}'
        f"</title><style>{_STYLE}</style></head><body>\n<h1>{html.escape(title)}</h1>\n"
        f"{intro}\n{q}\n<table><tr>{cells}</tr>\n{body}\n</table></body></html>\n"
    )


def _row(rank: int, item: str, item_id: str, points: float, cosine: float, extra: str) -> list[str]:
    """A ranking's table row: the rank, the item (HTML) and its id, its Borda points and mean
    cosine, then ``extra`` (HTML)."""
    return [
        f'<span class="num">{rank}</span>',
        item,
        html.escape(item_id),
        f'<span class="num">{int(points)}</span>',
        f'<span class="num">{cosine:.3f}</span>',
        extra,
    ]


def _intro(model: Any, ranking: Any, task: str, pool_lines: str) -> str:
    """A ranking page's meta paragraph: the model, ``pool_lines`` (HTML, each ending in
    ``<br>``), the Borda count over the task's selected models and the scoring time."""
    return (
        f'<p class="meta">model: {html.escape(model.describe())}<br>'
        + pool_lines
        + f"Borda count over {len(model.projections.selected[task])} models "
        f"(Hodosh et al. 2013, Section 4.1.3); scored in {ranking.seconds * 1000:.1f} ms</p>"
    )


def search_page(model: Any, ranking: Any, pool: Any) -> str:
    """Image search: the sentence, its tokens, and the ranked images with their captions."""
    rows = []
    index = {i: k for k, i in enumerate(pool.ids)}
    for r, (image_id, pts, cos) in enumerate(zip(ranking.ids, ranking.points, ranking.cosine), 1):
        caps = ""
        if pool.captions is not None:
            caps = (
                "<ul>"
                + "".join(f"<li>{html.escape(c)}</li>" for c in pool.captions[index[image_id]])
                + "</ul>"
            )
        image = _img(data_uri(pool.image(image_id)), image_id)
        rows.append(_row(r, image, image_id, pts, cos, caps))
    unknown = ranking.unknown
    intro = _intro(
        model,
        ranking,
        "search",
        f"pool: {html.escape(pool.name)} ({len(pool)} images)<br>"
        f"tokens: {html.escape(' '.join(ranking.tokens))}"
        + (f"; not in training: {html.escape(' '.join(unknown))}" if unknown else "")
        + "<br>",
    )
    return page(
        f"Image search: {ranking.query}",
        intro,
        ["rank", "image", "id", "Borda points", "mean cosine", "captions"],
        rows,
    )


def annotation_page(model: Any, ranking: Any, pool: Any, image: np.ndarray | None) -> str:
    """Image annotation: the query image and the ranked captions (with their images)."""
    index = {c: k for k, c in enumerate(pool.ids)}
    source = getattr(model.image_pool, "source", None)
    rows = []
    for r, (cid, pts, cos) in enumerate(zip(ranking.ids, ranking.points, ranking.cosine), 1):
        k = index[cid]
        image_id = pool.image_ids[k] if pool.image_ids else None
        thumb = ""
        if image_id is not None and source is not None:
            thumb = _img(data_uri(model.image_pool.image(image_id)), image_id)
        rows.append(_row(r, html.escape(pool.texts[k]), cid, pts, cos, thumb))
    intro = _intro(
        model,
        ranking,
        "annotation",
        f"caption pool: {html.escape(pool.name)} ({len(pool)} captions)<br>",
    )
    return page(
        f"Image annotation: {Path(ranking.query).name}",
        intro,
        ["rank", "caption", "id", "Borda points", "mean cosine", "image described"],
        rows,
        _img(data_uri(image, 240), ranking.query),
    )


def write(path: str | Path, text: str) -> Path:
    """Write the page (UTF-8); returns the path."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    return write_text_atomic(p, text)
