"""Which image ids a per-image caption study scores: the gold and the candidates must cover
each other, and a gold image without a candidate is either an error or scored as empty."""

from __future__ import annotations

from typing import Hashable, Mapping


def matched_image_ids(
    gold: object,
    candidates: object,
    error: type[Exception],
    *,
    not_mappings: str,
    unknown: str,
    unscored: str | None,
) -> list[Hashable]:
    """The candidates' image ids in their order, then the gold ids that have no candidate.

    Raises ``error`` with ``not_mappings`` when either side is not a mapping, with
    ``unknown`` (formatted with ``id``) for a candidate id the gold lacks, and with
    ``unscored`` for a gold id no candidate covers; ``unscored=None`` scores such an image
    as an empty prediction instead.
    """
    if not isinstance(gold, Mapping) or not isinstance(candidates, Mapping):
        raise error(not_mappings)
    ids = list(candidates)
    for image_id in ids:
        if image_id not in gold:
            raise error(unknown.format(id=image_id))
    for image_id in gold:
        if image_id not in candidates:
            if unscored is not None:
                raise error(unscored.format(id=image_id))
            ids.append(image_id)
    return ids
