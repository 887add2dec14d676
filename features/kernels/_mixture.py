"""``mix``: a weighted average of image kernels, ``K = sum_j w_j K_j / sum_j w_j``.

The paper averages its three per-feature kernels (eq. 6); ``mix`` does the same for whole
registered kernels, so that an experiment file can combine, for example, the paper's pyramid
kernel with the ``fisher`` kernel::

    [image_kernel]
    name = "mix"
    params = {parts = [{name = "pyramid", weight = 1}, {name = "fisher", weight = 1}]}

Each part is ``{name, params (optional), weight (optional, default 1)}``. A system
(:class:`kcca._systems.blocks.Workspace`) builds and caches each part's blocks with the items
that part takes, then calls :meth:`MixtureKernel.combine`; used directly, ``fit`` and
``gram`` take one item sequence per part (in the order of ``parts``). As for the paper's
kernels, p is applied to the mixed block (by the solver, or by ``p`` here).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from features.kernels._base import Kernel, entrywise_power, make_kernel, register_kernel
from kcca.errors import SettingError


def check_parts(parts: Any) -> list[dict[str, Any]]:
    """Normalised parts ``[{name, params, weight}]``; clear errors for malformed ones."""
    fix = (
        'give parts = [{name = "pyramid", weight = 1}, {name = "fisher", params = {...}}]'
        " (each a kernel name with optional params and a positive weight)"
    )
    if isinstance(parts, (str, bytes)) or not isinstance(parts, Sequence) or not parts:
        raise SettingError(f"mix kernel: parts must be a non-empty list, got {parts!r}; {fix}")
    out = []
    for i, part in enumerate(parts):
        if not isinstance(part, Mapping) or not isinstance(part.get("name"), str):
            raise SettingError(f"mix kernel: part {i} ({part!r}) has no kernel name; {fix}")
        unknown = set(part) - {"name", "params", "weight"}
        if unknown:
            raise SettingError(f"mix kernel: part {i} has unknown keys {sorted(unknown)}; {fix}")
        if part["name"] == "mix":
            raise SettingError(f"mix kernel: part {i} is itself a mix; list its parts directly")
        params = part.get("params", {})
        weight = part.get("weight", 1)
        if not isinstance(params, Mapping):
            raise SettingError(f"mix kernel: part {i} params must be a table, got {params!r}")
        if (
            isinstance(weight, bool)
            or not isinstance(weight, (int, float))
            or not np.isfinite(weight)
            or weight <= 0
        ):
            raise SettingError(
                f"mix kernel: part {i} weight must be a positive number, got {weight!r}"
            )
        out.append({"name": part["name"], "params": dict(params), "weight": float(weight)})
    return out


@register_kernel("mix")
@dataclass(eq=False, repr=False)
class MixtureKernel(Kernel):
    """Weighted average of registered image kernels, raised to ``p`` (module docstring).

    Used directly, ``fit`` and ``gram`` take one item sequence per part (in the order of
    ``parts``); a system builds each part's blocks and calls :meth:`combine`.

    Parameters
    ----------
    parts : sequence of dict, default=()
        ``{"name": ..., "params": {...} (optional), "weight": ... (optional, default 1)}``
        per registered kernel averaged.
    p : float, default=1.0
        Entry-wise power of the mixed block.

    Attributes
    ----------
    kernels_ : list of Kernel
        The fitted part kernels (each with ``p = 1``).
    train_items_ : sequence of sequence
        The training items, one sequence per part.

    Examples
    --------
    >>> import numpy as np
    >>> from features.kernels._mixture import MixtureKernel
    >>> mix = MixtureKernel(parts=[{"name": "pyramid"}, {"name": "fisher", "weight": 3}])
    >>> print(mix.weights())
    [0.25 0.75]
    >>> mix.combine([np.ones((2, 2)), np.zeros((2, 2))])
    array([[0.25, 0.25],
           [0.25, 0.25]])
    """

    item_type = "image-mixture"

    parts: Sequence[Mapping[str, Any]] = ()
    p: float = 1.0

    def part_kernels(self, **overrides: Any) -> list[Kernel]:
        """One kernel object per part (``overrides`` go to the parts that take them)."""
        kernels = []
        for part in check_parts(self.parts):
            probe = make_kernel(part["name"], **part["params"])
            taken = probe.get_params(deep=False)
            extra = {k: v for k, v in overrides.items() if k in taken}
            kernels.append(make_kernel(part["name"], **{**part["params"], **extra}))
        return kernels

    def weights(self) -> np.ndarray:
        w = np.array([part["weight"] for part in check_parts(self.parts)])
        return w / w.sum()

    def combine(self, blocks: Sequence[np.ndarray]) -> np.ndarray:
        """``(sum_j w_j B_j)^p`` of the parts' blocks (same shape, in the order of ``parts``)."""
        w = self.weights()
        if len(blocks) != len(w):
            raise ValueError(f"mix kernel: {len(blocks)} blocks for {len(w)} parts")
        shapes = {tuple(np.shape(b)) for b in blocks}
        if len(shapes) != 1:
            raise ValueError(f"mix kernel: the parts' blocks differ in shape: {sorted(shapes)}")
        out = sum(wj * np.asarray(b, dtype=np.float64) for wj, b in zip(w, blocks))
        return entrywise_power(out, self.p, self.name)

    def fit(self, train_items: Sequence[Sequence[Any]]) -> "MixtureKernel":
        """Fit every part on its own training items (one sequence per part)."""
        self.kernels_ = self.part_kernels(p=1.0)
        if len(train_items) != len(self.kernels_):
            raise ValueError(
                f"mix kernel: {len(train_items)} item lists for "
                f"{len(self.kernels_)} parts (give one per part)"
            )
        for k, items in zip(self.kernels_, train_items):
            k.fit(items)
        self.train_items_ = train_items
        return self

    def _gram(
        self, items_a: Sequence[Sequence[Any]], items_b: Sequence[Sequence[Any]]
    ) -> np.ndarray:
        same = items_b is self.train_items_
        return self.combine(
            [k.gram(a, None if same else b) for k, a, b in zip(self.kernels_, items_a, items_b)]
        )

    def gram(
        self, items_a: Sequence[Sequence[Any]], items_b: Sequence[Sequence[Any]] | None = None
    ) -> np.ndarray:
        if items_b is None:
            self._check_fitted()
            items_b = self.train_items_
        out = self._gram(items_a, items_b)
        if len(items_a) and len(items_b):
            expected = (len(items_a[0]), len(items_b[0]))
            if out.shape != expected:
                raise ValueError(f"mix kernel block has shape {out.shape}, expected {expected}")
        return out

    def diag(self, items: Sequence[Sequence[Any]]) -> np.ndarray:
        self._check_fitted()
        return self.combine([k.diag(i)[None, :] for k, i in zip(self.kernels_, items)])[0]
