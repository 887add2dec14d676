"""The trigram kernel TRI (Section 3.4.3, eq. 12-16) and its word-kernel form (eq. 19-21).

``K_TRI(s, s') = sum_{w: l(w) <= 3} m_{s,w} m_{s',w} lambda_m^{2 l(w)}`` (eq. 15), with matches
as spans (eq. 12; see :mod:`.sequences`), ``lambda_m = 0.5``, ``lambda_g = 1`` (gaps free).
Multi-caption items: the unnormalised kernel summed over the cross product of captions, divided by
the geometric mean of the self-sums (Sections 3.4.3, 4.1.3). ``TrigramKernel()`` is exactly this
plain TRI5. Options:

* ``single_caption=True``: TRI1, one caption per training item drawn with ``random_state``;
* ``weighting="sqrt-idf"``: eq. 16 (TRI5^sqrt-idf): ``lambda_w`` = product of the words' plain
  IDFs enters the kernel once, i.e. each sequence feature is scaled by ``sqrt(lambda_w)``;
  (``"idf"`` scales features by ``lambda_w``; not a system of the paper);
* ``word_kernel``: a :class:`~features.text._word_kernel.WordKernel` ``kappa``: eq. 20 (eq. 21
  with sqrt-idf), ``sigma(w, w') = prod_i kappa(w_i, w'_i)`` (eq. 19), identity outside the word
  kernel's vocabulary. Computed exactly by :mod:`.soft_trigram`.

Exact matching uses explicit sparse features (a sparse matrix product). The training
representation (TRI1's reduction) is used when ``gram``'s first argument is the very list
given to ``fit``; :meth:`gram_train` / :meth:`gram_columns` give the train x train kernel or
some of its columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from features.kernels._base import register_kernel
from features.text._bow_kernel import SparseSequenceKernel
from features.text._idf import Idf
from features.text._sequences import geometric_normalize, item_spans
from features.text._soft_trigram import (
    ENGINES,
    SoftSequenceSet,
    WordIds,
    compile_item,
    soft_block,
    soft_diag,
)
from features.text._text_items import as_items, one_caption_each
from kcca.errors import SettingError


@register_kernel("trigram")
@dataclass(eq=False, repr=False)
class TrigramKernel(SparseSequenceKernel):
    """TRI / TRI1 / TRI^sqrt-idf, optionally with a word kernel (eq. 15, 16, 20, 21).

    Items are token lists; a training item is the captions of one image (a list of token
    lists).

    Parameters
    ----------
    lambda_m : float, default=0.5
        Match weight; each length-l match is weighted ``lambda_m ** (2 l)``.
    lambda_g : float, default=1.0
        Gap weight (1 = gaps not penalised); eq. 14.
    max_length : {1, 2, 3}, default=3
        Longest sequence (3 = trigram; 1 gives the BoW kernel).
    weighting : {None, "sqrt-idf", "idf"}, default=None
        ``"sqrt-idf"`` is eq. 16 / 21.
    single_caption : bool, default=False
        TRI1: one caption per training item, drawn with ``random_state``.
    random_state : int or None, default=0
        Seed of the TRI1 draw.
    word_kernel : WordKernel or None, default=None
        A :class:`~features.text._word_kernel.WordKernel` for eq. 20/21 (a soft match: the
        kernel is then not positive semi-definite in general, ``positive_semidefinite`` is
        False and KCCA fits it with ``indefinite="psd-part"``), or None for exact matching.
    n_jobs : int or None, default=None
        Threads for the word-kernel engine (None = all cores).
    progress : bool, default=True
        Show a tqdm bar for the word-kernel engine.
    backend : {"numpy", "cupy", "auto", "array_api_strict"}, default="numpy"
        The array namespace of the ``"array-api"`` engine (``"auto"``: cupy when a GPU is
        available); the numba engine ignores it.
    engine : {"numba", "array-api"}, default="numba"
        The word-kernel engine of :func:`features.text._soft_trigram.soft_block`: numba (the
        fastest on every machine timed, a GPU one included) or dense products on
        ``backend``'s array namespace. Same numbers to float rounding; self-kernels (the
        normalisation) always use numba.

    Attributes
    ----------
    idf_ : Idf
        The IDF weights of the training images.
    train_items_ : sequence
        The training items.

    Examples
    --------
    Exact matching, then "puppy" matching "dog" through a word kernel:

    >>> import numpy as np
    >>> from features.text._trigram_kernel import TrigramKernel
    >>> from features.text._word_kernel import WordKernel
    >>> train = [[["a", "dog", "runs"], ["dog", "running"]],
    ...          [["a", "red", "car"], ["car", "on", "road"]]]
    >>> test = [["puppy", "runs"], ["red", "car"]]
    >>> TrigramKernel(progress=False).fit(train).gram(test).round(3)
    array([[0.235, 0.   ],
           [0.   , 0.698]])
    >>> similar = WordKernel("toy", ("dog", "puppy"), np.array([[1.0, 0.8], [0.8, 1.0]]))
    >>> soft = TrigramKernel(word_kernel=similar, n_jobs=1, progress=False).fit(train)
    >>> soft.gram(test).round(3), soft.positive_semidefinite
    (array([[0.657, 0.   ],
            [0.   , 0.698]]), False)
    """

    execution_params = ("backend", "engine", "n_jobs", "progress")
    run_inputs = ("word_kernel",)

    lambda_m: float = 0.5
    lambda_g: float = 1.0
    max_length: int = 3
    weighting: str | None = None
    single_caption: bool = False
    random_state: int | None = 0
    word_kernel: Any = None
    n_jobs: int | None = None
    progress: bool = True
    backend: str = "numpy"
    engine: str = "numba"

    @property  # read-only here; nothing assigns it on an instance
    def positive_semidefinite(self) -> bool:  # type: ignore[override]
        """Exact matching (eq. 15, 16) gives a PSD kernel; a soft match through a word kernel
        (eq. 20, 21) is not PSD in general, its word similarities being thresholded and
        max-combined (Section 4.1.2), so KCCA uses the positive part of its training kernel."""
        return self.word_kernel is None

    def _length(self) -> int:
        return self.max_length

    def _lambda_g(self) -> float:
        return float(self.lambda_g)

    def _lambda_m(self) -> float:
        return float(self.lambda_m)

    def _check_params(self) -> None:
        super()._check_params()
        if self.max_length not in (1, 2, 3):
            raise SettingError(f"max_length must be 1, 2 or 3, got {self.max_length}")
        if not self.lambda_m > 0 or not self.lambda_g > 0:
            raise SettingError(
                f"lambda_m and lambda_g must be positive, got {self.lambda_m}, {self.lambda_g}"
            )
        wk = self.word_kernel
        if wk is not None and not (hasattr(wk, "vocabulary") and hasattr(wk, "matrix")):
            raise TypeError(
                "word_kernel must be a features.text._word_kernel.WordKernel "
                f"(vocabulary + matrix), got {type(wk).__name__}"
            )
        if self.backend not in ("numpy", "cupy", "auto", "array_api_strict"):
            raise SettingError(
                f"backend must be numpy, cupy, auto or array_api_strict, got {self.backend!r}"
            )
        if getattr(self, "engine", "numba") not in ENGINES:
            raise SettingError(f"engine must be one of {', '.join(ENGINES)}, got {self.engine!r}")

    def _soft_block(
        self,
        a: SoftSequenceSet,
        b: SoftSequenceSet,
        n_kernel: int,
        *,
        symmetric: bool = False,
        desc: str,
    ) -> np.ndarray:
        """The unnormalised word-kernel block by the chosen engine."""
        engine = getattr(self, "engine", "numba")  # models saved before the parameter
        backend = None
        if engine == "array-api":
            from kcca._backend import resolve_backend

            backend = resolve_backend(getattr(self, "backend", "numpy"))
        return soft_block(
            a,
            b,
            self.kappa_,
            n_kernel,
            engine=engine,
            backend=backend,
            symmetric=symmetric,
            n_jobs=self.n_jobs,
            progress=self.progress,
            desc=desc,
        )

    # ------------------------------------------------------------ word-kernel path
    def _compile(self, items, ids: WordIds) -> SoftSequenceSet:
        weight = self._seq_weight()
        compiled = []
        for it in items:
            feat = item_spans(it, self.max_length, self._lambda_g())
            if weight is not None:
                feat = {k: v * weight(k) for k, v in feat.items()}
            compiled.append(compile_item(feat, ids))
        return SoftSequenceSet.pack(compiled)

    def fit(self, train_items: Sequence[Any]) -> "TrigramKernel":
        if self.word_kernel is None:
            return super().fit(train_items)
        items = as_items(train_items, "training items")
        self._check_params()
        self.idf_ = Idf().fit(items)
        used = one_caption_each(items, self.random_state) if self.single_caption else items
        self.kappa_ = np.ascontiguousarray(self.word_kernel.matrix, dtype=np.float64)
        ids = WordIds(tuple(self.word_kernel.vocabulary))
        self.train_set_ = self._compile(used, ids)
        self.word_ids_ = ids.frozen()
        self.train_self_ = soft_diag(self.train_set_, self.kappa_, ids.n_kernel)
        self.train_items_ = train_items
        return self

    def _soft_side(self, items, ids: WordIds) -> tuple[SoftSequenceSet, np.ndarray]:
        if items is self.train_items_:
            return self.train_set_, self.train_self_
        s = self._compile(as_items(items), ids)
        return s, soft_diag(s, self.kappa_, ids.n_kernel)

    def _gram(self, items_a: Sequence[Any], items_b: Sequence[Any]) -> np.ndarray:
        if self.word_kernel is None:
            return super()._gram(items_a, items_b)
        self._check_fitted()
        ids = self.word_ids_.extended()
        a, da = self._soft_side(items_a, ids)
        same = items_a is items_b
        b, db = (a, da) if same else self._soft_side(items_b, ids)
        k = self._soft_block(a, b, ids.n_kernel, symmetric=same, desc=f"{self.name} kernel")
        return geometric_normalize(k, da, db, out=k, same=same)

    def gram_columns(self, indices: Sequence[int]) -> np.ndarray:
        """Columns ``indices`` of the train x train kernel: shape (n_train, len(indices))."""
        if self.word_kernel is None:
            return super().gram_columns(indices)
        self._check_fitted()
        idx = np.asarray(indices, dtype=np.int64)
        n = len(self.train_set_)
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise IndexError(f"column indices must lie in [0, {n}); got {idx.min()}..{idx.max()}")
        cols = self.train_set_.take(idx)
        k = self._soft_block(
            self.train_set_, cols, self.word_ids_.n_kernel, desc=f"{self.name} columns"
        )
        k = geometric_normalize(k, self.train_self_, self.train_self_[idx], out=k)
        zero = self.train_self_[idx] <= 0  # the unit diagonal of the train x train kernel
        k[idx[zero], np.flatnonzero(zero)] = 1.0
        return k
