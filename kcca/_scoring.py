"""Cosine similarity in the induced space (eq. 4): score matrices for annotation and search.

``f_KCCA(i, s) = sim(alpha K_I(i), beta K_S(s))`` (eq. 4). Image annotation ranks captions for
each query image, so its score matrix is ``(n_images, n_captions)``; image search ranks
images for each query caption, ``(n_captions, n_images)`` (eq. 1). A zero projection (a
direction with zero correlation) has no angle: its cosine is defined as 0, never NaN.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

from kcca._backend import array_namespace


def _unit_rows(Z: Any, xp: Any) -> Any:
    norm = xp.linalg.vector_norm(Z, axis=1, keepdims=True)
    return Z / xp.where(norm > 0, norm, 1.0)


def _check_pair(A: Any, B: Any, a_name: str, b_name: str) -> None:
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[1]:
        raise ValueError(
            f"{a_name} and {b_name} must be 2-D projections with the same number of components, "
            f"got shapes {tuple(A.shape)} and {tuple(B.shape)}"
        )


def cosine_scores(queries: Any, candidates: Any) -> Any:
    """``scores[q, c] = cos(queries[q], candidates[c])`` (eq. 4), 0 where a vector is zero."""
    xp = array_namespace(queries, candidates)
    _check_pair(queries, candidates, "queries", "candidates")
    return xp.linalg.matmul(
        _unit_rows(queries, xp), xp.matrix_transpose(_unit_rows(candidates, xp))
    )


def annotation_scores(image_proj: Any, caption_proj: Any) -> Any:
    """Image annotation (eq. 1): ``(n_images, n_captions)`` cosine scores."""
    return cosine_scores(image_proj, caption_proj)


def search_scores(image_proj: Any, caption_proj: Any) -> Any:
    """Image search (eq. 1): ``(n_captions, n_images)`` cosine scores."""
    return cosine_scores(caption_proj, image_proj)


def prefix_cosine_scores(
    queries: Any, candidates: Any, n_components: Sequence[int]
) -> Iterator[tuple[int, Any]]:
    """Cosine scores using only the first ``n`` components, for each ``n`` (ascending).

    Dot products and norms of prefixes are cumulative, so all ``n`` of the grid cost one
    product over the largest ``n``: yields ``(n, scores)``.
    """
    xp = array_namespace(queries, candidates)
    _check_pair(queries, candidates, "queries", "candidates")
    ns = sorted(int(n) for n in n_components)
    if ns and (ns[0] < 1 or ns[-1] > queries.shape[1]):
        raise ValueError(f"n_components must lie in [1, {queries.shape[1]}], got {ns[0]}..{ns[-1]}")
    dots = xp.zeros((queries.shape[0], candidates.shape[0]), dtype=queries.dtype)
    nq = xp.zeros((queries.shape[0],), dtype=queries.dtype)
    nc = xp.zeros((candidates.shape[0],), dtype=candidates.dtype)
    done = 0
    for n in ns:
        if n > done:
            qa, ca = queries[:, done:n], candidates[:, done:n]
            dots = dots + xp.linalg.matmul(qa, xp.matrix_transpose(ca))
            nq = nq + xp.sum(qa * qa, axis=1)
            nc = nc + xp.sum(ca * ca, axis=1)
            done = n
        sq = xp.sqrt(nq)
        sc = xp.sqrt(nc)
        denom = sq[:, None] * sc[None, :]
        yield n, xp.where(denom > 0, dots / xp.where(denom > 0, denom, 1.0), 0.0)
