"""A saved, fitted system: ranks images for any sentence and captions for any image.

:class:`FittedSystem` holds what :func:`kcca._systems.run_system` computes and then throws away:
the kernels' fitted state (:mod:`kcca._model.encoders`), the KCCA directions of the models the
dev set chose (Section 4.1.3: per task the 15 models, 5 best by R@1, R@5 and R@10, with p and d
frozen) and the test pools' projections. A query is scored as a test item is: its kernel row
against the training items, projected (eq. 3-4), cosine to every candidate in the shared space
(eq. 4), each model's ranking, Borda count over the task's models (Sec. 4.1.3). Candidates that are
given as a pool (the model's test pool, a folder of images, a caption file) are projected
once; a query then costs one kernel row, a few (1 x n_train) x (n_train x n) products and the
cosines. A side whose kernel is ``vectors`` takes its queries as vectors files
(:meth:`FittedSystem.rank_images_for_vectors`, :meth:`FittedSystem.rank_captions_for_vectors`,
:mod:`kcca._model.vectors`).

File format (:mod:`kcca._model.file_format`): data only, a zip of a JSON header (format
version :data:`FORMAT_VERSION`, toolkit version, spec, corpus, content hash), a JSON object
tree and ``.npy`` arrays; loading one never runs code from the file. A file of another format
version, an old joblib model, a damaged or foreign file raises :class:`ModelFormatError`
naming the file and the fix (refit with ``kcca fit-model``).
"""

from __future__ import annotations

import datetime as _dt
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from kcca import __version__
from kcca._model import file_format
from kcca._model.encoders import ImageEncoder, QueryError, TextEncoder, folder_images
from kcca._model.file_format import FORMAT_VERSION, MAGIC, ModelFormatError
from kcca._model.vectors import SIDES, VectorsEncoder, vectors_fix
from kcca._systems.fitted import Projections
from kcca._systems.spec import SystemSpec
from kcca.errors import SettingError

__all__ = [
    "FORMAT_VERSION",
    "MAGIC",
    "ModelFormatError",
    "FittedSystem",
    "Projections",
    "ImagePool",
    "CaptionPool",
    "Ranking",
    "save_model",
    "load_model",
    "read_header",
    "header_of",
]


#: items given as vectors projected and ranked at a time (:meth:`FittedSystem.project_vectors`)
QUERIES_AT_ONCE = 256


# ------------------------------------------------------------------------ pools
@dataclass
class ImagePool:
    """Candidate images with their projections. ``source`` reads an id's RGB image (for
    thumbnails; None when not available); ``captions`` optional captions of each image."""

    ids: list[str]
    projections: dict[float, np.ndarray]
    name: str = "images"
    source: Any = None
    captions: list[tuple[str, ...]] | None = None
    skipped: dict[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.ids)

    def keep_files_inside(self, folder: str | Path | None) -> dict[str, str]:
        """Read the pool's image files (thumbnails) only inside ``folder``, the data folder
        the user names (None: none): the files a model file names elsewhere are never read
        (their thumbnails are left out). Returns those left out, id -> file."""
        from kcca.data._images import ImageFiles
        from kcca.data._paths import within

        if type(self.source) is not ImageFiles:  # the demo's renderer, or none: no files
            return {}
        paths = self.source.paths
        kept = {i: p for i, p in paths.items() if folder is not None and within(folder, p)}
        if len(kept) < len(paths):
            self.source = ImageFiles(kept) if kept else None
        return {i: p for i, p in paths.items() if i not in kept}

    def image(self, image_id: str) -> np.ndarray | None:
        """The RGB image of a pool id, or None when it cannot be read."""
        if self.source is None:
            return None
        try:
            return self.source(image_id)
        except Exception:  # noqa: BLE001 - a thumbnail is optional
            return None


@dataclass
class CaptionPool:
    """Candidate captions with their projections; ``image_ids`` the image each describes
    (None for free captions), ``tokens`` their preprocessed tokens."""

    ids: list[str]
    texts: list[str]
    projections: dict[float, np.ndarray]
    name: str = "captions"
    image_ids: list[str | None] | None = None
    tokens: list[list[str]] | None = None

    def __len__(self) -> int:
        return len(self.ids)


@dataclass
class Ranking:
    """One query's Borda-aggregated ranking (best first), cut at ``top`` when asked.

    ``indices`` into the pool, ``ids`` the candidates, ``points`` their Borda points (N - r per
    model), ``cosine`` their mean cosine over the task's models (for display); ``tokens`` and
    ``unknown`` the query's words (search), ``seconds`` the scoring time.
    """

    task: str
    query: str
    indices: np.ndarray
    ids: list[str]
    points: np.ndarray
    cosine: np.ndarray
    pool_size: int
    tokens: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def __len__(self) -> int:
        return len(self.ids)


# ------------------------------------------------------------------------- model
@dataclass
class FittedSystem:
    """A system fitted on a corpus, ready to rank new sentences and images (module docstring).

    Build one with :func:`kcca._model.build.fit_system`; save with :meth:`save`, read with
    :func:`load_model`. ``chosen`` holds the dev choices (p, d, criterion, selected models).
    """

    spec: SystemSpec
    corpus: str
    chosen: dict[str, Any]
    image: ImageEncoder | VectorsEncoder
    text: TextEncoder | VectorsEncoder
    projections: Projections
    image_pool: ImagePool
    caption_pool: CaptionPool
    info: dict[str, Any] = field(default_factory=dict)

    # ------------------------------------------------------------- pools
    def image_pool_from_folder(
        self,
        folder: str | Path,
        *,
        n_jobs: int = 1,
        skip_bad: bool = False,
        progress: bool = False,
        cache: Any = None,
    ) -> ImagePool:
        """Every image file of ``folder``, described with the saved codebooks and projected.

        With an enabled ``cache`` (:class:`kcca._cache.Cache`) each file's description is kept
        (:meth:`ImageEncoder.cached_features`), so later queries on the folder only compute
        the kernel block and the projections.
        """
        from kcca.data._images import ImageFiles

        image = self._encoder("image", ImageEncoder, "a pool of image files")
        paths = folder_images(folder)
        if cache is None or not cache.enabled:
            return self.image_pool_from_source(
                ImageFiles(paths),
                list(paths),
                name=str(folder),
                n_jobs=n_jobs,
                skip_bad=skip_bad,
                progress=progress,
            )
        records, skipped = image.cached_features(
            paths, cache, n_jobs=n_jobs, skip_bad=skip_bad, progress=progress
        )
        return self._pool_of_records(records, skipped, ImageFiles(paths), str(folder), n_jobs)

    def image_pool_from_source(
        self,
        source: Any,
        ids: Sequence[str],
        *,
        name: str = "images",
        n_jobs: int = 1,
        skip_bad: bool = False,
        progress: bool = False,
    ) -> ImagePool:
        """Images of ``ids`` read from ``source`` (callable id -> RGB, or a mapping)."""
        image = self._encoder("image", ImageEncoder, "a pool of image files")
        records, skipped = image.features(
            source, ids, n_jobs=n_jobs, skip_bad=skip_bad, progress=progress
        )
        return self._pool_of_records(records, skipped, source, name, n_jobs)

    def _pool_of_records(
        self, records: Sequence[Any], skipped: dict[str, str], source: Any, name: str, n_jobs: int
    ) -> ImagePool:
        if not records:
            raise QueryError(f"no readable image in {name} ({len(skipped)} skipped)")
        K = self._encoder("image", ImageEncoder, "images").block(records, n_jobs=n_jobs)
        shown = source if not isinstance(source, Mapping) else dict(source).__getitem__
        return ImagePool(
            [r.image_id for r in records], self.projections.project_x(K), name, shown, None, skipped
        )

    def caption_pool_from_texts(
        self, texts: Sequence[str], ids: Sequence[str] | None = None, *, name: str = "captions"
    ) -> CaptionPool:
        """Free captions (one per entry), preprocessed as the training captions and projected."""
        text = self._encoder("text", TextEncoder, "a pool of captions")
        texts = [t for t in texts]
        if not texts:
            raise QueryError(f"the caption pool {name} is empty")
        ids = list(ids) if ids is not None else [f"caption-{i + 1}" for i in range(len(texts))]
        tokens = [text.tokens(t) if t.strip() else [] for t in texts]
        K = text.block(tokens)
        return CaptionPool(
            ids, list(texts), self.projections.project_y(K), name, [None] * len(texts), tokens
        )

    def caption_pool_from_file(self, path: str | Path) -> CaptionPool:
        """One caption per non-empty line of a UTF-8 text file (``ID<TAB>caption`` also read)."""
        ids, texts = read_caption_file(path)
        return self.caption_pool_from_texts(texts, ids, name=str(Path(path)))

    def warm_up(self) -> "FittedSystem":
        """Load lazily read resources (WordNet for lemmatised models) so that the first query
        costs what the others do; returns self."""
        if isinstance(self.text, TextEncoder):
            self.text.warm_up()
        return self

    def _encoder(self, side: str, kind: type, what: str) -> Any:
        """The encoder of ``side`` when it is a ``kind``; a model whose side reads vectors
        gets a :class:`QueryError` telling to give vectors (``what``: the query)."""
        encoder = getattr(self, side)
        if not isinstance(encoder, kind):
            raise QueryError(
                f"{what} cannot be encoded by this model: its {side} kernel reads vectors "
                f"(fitted on {encoder.source}, dimension {encoder.dim})",
                fix=vectors_fix(side),
            )
        return encoder

    def vectors_encoder(self, side: str) -> VectorsEncoder:
        """The :class:`~kcca._model.vectors.VectorsEncoder` of ``side`` (``image`` or
        ``text``); a :class:`QueryError` when that side's kernel does not read vectors."""
        encoder = getattr(self, side)
        if not isinstance(encoder, VectorsEncoder):
            raise QueryError(
                f"this model's {side} kernel is {getattr(self.spec, side + '_kernel').name}, "
                f"not vectors: it takes {'sentences' if side == 'text' else 'image files'}, "
                "not vectors files",
                fix="drop --vectors and give "
                + ("the sentence" if side == "text" else "the image file"),
            )
        return encoder

    def project_vectors(
        self, side: str, vectors: Any, ids: Sequence[str] | None = None
    ) -> tuple[list[str], dict[float, np.ndarray]]:
        """``(ids, projections)`` of new items of ``side`` (``image`` or ``text``) given as
        vectors: a vectors file (checked as the ``vectors`` kernel checks it, and for the
        model's dimension) or its :class:`~features._vectors_file.ItemVectors`; ``ids`` the
        rows to project (None: every row), :data:`QUERIES_AT_ONCE` at a time (a side that
        keeps its training vectors computes kernel rows of that many items at once)."""
        encoder = self.vectors_encoder(side)
        if isinstance(vectors, (str, Path)):
            vectors = encoder.read(vectors)
        chosen = list(vectors.ids if ids is None else ids)
        project = getattr(self.projections, f"project_{SIDES[side]}")
        parts = [
            project(encoder.block(vectors, chosen[first : first + QUERIES_AT_ONCE]))
            for first in range(0, max(len(chosen), 1), QUERIES_AT_ONCE)
        ]
        return chosen, {k: np.concatenate([part[k] for part in parts]) for k in parts[0]}

    # ------------------------------------------------------------- ranking
    def rank_images(
        self, sentence: str, pool: ImagePool | None = None, top: int | None = None
    ) -> Ranking:
        """Image search (eq. 1): rank ``pool`` (default the test pool) for a sentence."""
        t = time.perf_counter()
        pool = pool or self.image_pool
        text = self._encoder("text", TextEncoder, f"the sentence {sentence!r}")
        tokens, unknown = text.check_query(sentence)
        K = text.block([tokens])
        if not np.any(K):
            raise QueryError(
                f"the query {sentence!r} ({', '.join(tokens)}) has kernel value 0 with every "
                "training item: the model cannot place it; use words of the training captions"
            )
        zy = self.projections.project_y(K)
        r = self._rank("search", sentence, zy, pool.projections, pool.ids, top, t)
        r.tokens, r.unknown = tokens, unknown
        return r

    def rank_captions(
        self,
        image: np.ndarray | str | Path,
        pool: CaptionPool | None = None,
        top: int | None = None,
    ) -> Ranking:
        """Image annotation (eq. 1): rank ``pool`` (default the test pool's captions) for an
        image (an RGB uint8 array or an image file)."""
        from kcca.data._images import read_image

        t = time.perf_counter()
        pool = pool or self.caption_pool
        name = "image"
        if isinstance(image, (str, Path)):
            name = str(image)
        encoder = self._encoder("image", ImageEncoder, f"the image {name}")
        if isinstance(image, (str, Path)):
            image = read_image(image)
        records, _ = encoder.features({name: np.asarray(image)}, [name])
        zx = self.projections.project_x(encoder.block(records))
        return self._rank("annotation", name, zx, pool.projections, pool.ids, top, t)

    def rank_images_for_vectors(
        self,
        vectors: Any,
        ids: Sequence[str] | None = None,
        pool: ImagePool | None = None,
        top: int | None = None,
    ) -> list[Ranking]:
        """Image search for captions given as vectors (a vectors file or its
        :class:`~features._vectors_file.ItemVectors`; ``ids`` the rows, None: all): one
        ranking of ``pool`` (default the test pool) per caption, in row order."""
        return self._vector_rankings("search", "text", vectors, ids, pool or self.image_pool, top)

    def rank_captions_for_vectors(
        self,
        vectors: Any,
        ids: Sequence[str] | None = None,
        pool: CaptionPool | None = None,
        top: int | None = None,
    ) -> list[Ranking]:
        """Image annotation for images given as vectors (a vectors file or its
        :class:`~features._vectors_file.ItemVectors`; ``ids`` the rows, None: all): one
        ranking of ``pool`` (default the test pool's captions) per image, in row order."""
        pool = pool or self.caption_pool
        return self._vector_rankings("annotation", "image", vectors, ids, pool, top)

    def _vector_rankings(
        self, task: str, side: str, vectors: Any, ids: Sequence[str] | None, pool: Any, top: Any
    ) -> list[Ranking]:
        """The rankings of ``pool`` for the rows ``ids`` of ``vectors`` (of ``side``), ranked
        :data:`QUERIES_AT_ONCE` at a time: each model's scores stay (queries x pool) at that
        size whatever the file's length."""
        if isinstance(vectors, (str, Path)):
            vectors = self.vectors_encoder(side).read(vectors)
        chosen = list(vectors.ids if ids is None else ids)
        out: list[Ranking] = []
        for first in range(0, len(chosen), QUERIES_AT_ONCE):
            t = time.perf_counter()
            names, z = self.project_vectors(side, vectors, chosen[first : first + QUERIES_AT_ONCE])
            out += self._rankings(task, names, z, pool.projections, pool.ids, top, t)
        return out

    def _rank(
        self,
        task: str,
        query: str,
        q: Mapping[float, np.ndarray],
        c: Mapping[float, np.ndarray],
        ids: Sequence[str],
        top: int | None,
        start: float,
    ) -> Ranking:
        return self._rankings(task, [query], q, c, ids, top, start)[0]

    def _rankings(
        self,
        task: str,
        queries: Sequence[str],
        q: Mapping[float, np.ndarray],
        c: Mapping[float, np.ndarray],
        ids: Sequence[str],
        top: int | None,
        start: float,
    ) -> list[Ranking]:
        """The Borda-aggregated ranking of each projected query (rows of ``q``), cut at
        ``top``; each gets an equal share of the time since ``start``."""
        from kcca._borda import borda_from_scores

        scores = self.projections.scores(task, q, c)
        res = borda_from_scores(scores)
        mean_cos = np.mean(scores, axis=0)
        out = []
        for row, query in enumerate(queries):
            order = res.ranking[row]
            if top is not None:
                order = order[: max(0, int(top))]
            out.append(
                Ranking(
                    task,
                    query,
                    order,
                    [ids[i] for i in order],
                    res.points[row][order],
                    mean_cos[row][order],
                    len(ids),
                )
            )
        seconds = (time.perf_counter() - start) / max(len(out), 1)
        for ranking in out:
            ranking.seconds = seconds
        return out

    def rank_pool(
        self, task: str, queries: Mapping[float, np.ndarray], candidates: Mapping[float, np.ndarray]
    ) -> np.ndarray:
        """(n_queries, n_candidates) Borda rankings of projected queries (as run_system)."""
        from kcca._borda import borda_from_scores

        return borda_from_scores(self.projections.scores(task, queries, candidates)).ranking

    # ------------------------------------------------------------- io
    def save(self, path: str | Path, compress: int = 0) -> Path:
        """Write the model file (:mod:`kcca._model.file_format`); returns the path."""
        return save_model(self, path, compress=compress)

    def describe(self) -> str:
        """One line: system, corpus, p, d, models, sizes."""
        sel = self.projections.selected
        return (
            f"{self.spec.label} fitted on {self.corpus} "
            f"(train {self.info.get('n_train', self.projections.n_train)}; "
            f"p={self.projections.p:g}, d={self.projections.d:g}; "
            + ", ".join(f"{len(v)} {k} models" for k, v in sel.items())
            + f"; test pool {len(self.image_pool)} images / {len(self.caption_pool)} captions)"
        )


def header_of(model: FittedSystem) -> dict[str, Any]:
    """The plain-data header written first (toolkit and library versions, spec, corpus)."""
    import nltk
    import scipy
    import sklearn

    return {
        "kcca_version": __version__,
        "created": _dt.datetime.now().isoformat(timespec="seconds"),
        "spec": model.spec.as_dict(),
        "corpus": model.corpus,
        "chosen": {k: v for k, v in model.chosen.items() if k != "selected"},
        "libraries": {
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "scikit-learn": sklearn.__version__,
            "nltk": nltk.__version__,
        },
    }


def save_model(model: FittedSystem, path: str | Path, compress: int = 0) -> Path:
    """Write ``model`` as a model file, atomically (an interrupted save leaves none).

    ``compress`` 1-9 deflates the arrays (as ``np.savez_compressed``): a smaller file, slower
    to write and read. A model holding an object of a class the format does not allow (a
    plug-in kernel) raises :class:`~kcca.errors.DataError` naming it.
    """
    if not isinstance(model, FittedSystem):
        raise TypeError(f"expected a FittedSystem, got {type(model).__name__}")
    if not 0 <= int(compress) <= 9:
        raise SettingError(f"compress must be 0-9, got {compress!r}")
    return file_format.write(path, header_of(model), model, compress=int(compress))


def read_header(path: str | Path) -> dict[str, Any]:
    """The checked header of a model file (magic, format version, spec; arrays not read)."""
    return file_format.read_header(path)


def load_model(path: str | Path, cache: Any = None) -> FittedSystem:
    """Read a model written by :func:`save_model`; no code from the file runs.

    Raises :class:`ModelFormatError` (naming the file and the fix: refit) for a file of
    another format version, an old joblib model, a damaged, truncated or foreign file, and
    :class:`~kcca.errors.DataError` for a missing file. ``cache`` (a :class:`kcca._cache.Cache`)
    keeps state rebuilt on load (the POS tagger of lemmatising preprocessors).
    """
    header, model = file_format.read(path, cache=cache)
    if not isinstance(model, FittedSystem):
        raise ModelFormatError(
            f"{path}: the header is a model's but the body is not",
            fix=file_format.refit_fix(path, header),
        )
    problem = _projection_problem(model.projections) or _vectors_problem(model)
    if problem:
        raise ModelFormatError(f"{path}: {problem}", fix=file_format.refit_fix(path, header))
    return model


def _projection_problem(proj: Any) -> str | None:
    """What is wrong with a model's directions (eq. 3), or ``None``: p > 0 and d >= 1 finite,
    each kappa's weights a 2-d float array with one row count per view, offsets one per
    column, and every selected (kappa, n) within its block. The row counts are checked
    against the encoders by :func:`_vectors_problem` where a side reads vectors."""
    from kcca._systems.fitted import Projections

    if not isinstance(proj, Projections):
        return "the model's projections are not a Projections table"
    p, d = proj.p, proj.d
    number = (int, float, np.integer, np.floating)
    if not all(isinstance(v, number) and not isinstance(v, bool) for v in (p, d)):
        return "p and d are not numbers"
    if not (np.isfinite(p) and np.isfinite(d) and p > 0 and d >= 1):
        return f"p = {p!r} and d = {d!r} are outside p > 0, d >= 1"
    n_rows: dict[str, set[int]] = {"x": set(), "y": set()}
    for side in ("x", "y"):
        weights, offsets = getattr(proj, f"{side}_weights"), getattr(proj, f"{side}_offset")
        if not isinstance(weights, dict) or not isinstance(offsets, dict):
            return f"{side}_weights and {side}_offset are not tables by kappa"
        for kappa, w in weights.items():
            off = offsets.get(kappa)
            if not isinstance(w, np.ndarray) or w.ndim != 2 or w.dtype.kind != "f":
                return f"{side}_weights[{kappa!r}] is not a 2-d float array"
            if not isinstance(off, np.ndarray) or off.shape != (w.shape[1],):
                return f"{side}_offset[{kappa!r}] does not have one value per direction"
            n_rows[side].add(w.shape[0])
    if any(len(rows) > 1 for rows in n_rows.values()):
        return f"the directions have {sorted(n_rows['x'] | n_rows['y'])} rows: one count per view"
    if not isinstance(proj.selected, dict):
        return "the selected models are not a table by task"
    for task, models in proj.selected.items():
        for model in models:
            if not isinstance(model, tuple) or len(model) != 2:
                return f"a selected model of {task} is not a (kappa, n) pair"
            kappa, n = model
            for side in ("x", "y"):
                w = getattr(proj, f"{side}_weights").get(kappa)
                if w is None or type(n) is not int or not 1 <= n <= w.shape[1]:
                    return f"the selected model (kappa={kappa!r}, n={n!r}) of {task} is missing"
    return None


def _vectors_problem(model: FittedSystem) -> str | None:
    """What is wrong with a model's sides, or ``None``: the two views' directions have one
    row per training item, unless a side reads vectors: then its encoder's settings are a
    vectors kernel's and its directions have the rows it gives them (the dimension when
    folded, else its training vectors' count)."""
    from features.kernels._vector_functions import check_function
    from kcca.errors import KccaUserError

    proj = model.projections
    encoders = {"x": model.image, "y": model.text}
    if not any(isinstance(e, VectorsEncoder) for e in encoders.values()):
        if proj.rows("x") != proj.rows("y"):
            return "the two views' directions have different row counts: one per training item"
        return None
    for side, encoder in encoders.items():
        if not isinstance(encoder, VectorsEncoder):
            continue
        try:
            check_function(encoder.function, encoder.gamma, encoder.degree, encoder.coef0)
        except (KccaUserError, TypeError, ValueError) as exc:
            return f"the {encoder.side} vectors kernel's settings are invalid ({exc})"
        if SIDES.get(encoder.side) != side or type(encoder.dim) is not int or encoder.dim < 1:
            return f"the {side} side's vectors encoder is malformed"
        train = encoder.train_vectors
        if train is not None and (
            not isinstance(train, np.ndarray)
            or train.dtype.kind != "f"
            or train.shape != (encoder.n_train, encoder.dim)
        ):
            shape = (encoder.n_train, encoder.dim)
            return f"the {encoder.side} side's training vectors are not {shape} floats"
        if proj.rows(side) != encoder.rows:
            return (
                f"the {encoder.side} side's directions have {proj.rows(side)} rows, "
                f"its vectors encoder gives {encoder.rows}"
            )
    return None


def read_caption_file(path: str | Path) -> tuple[list[str], list[str]]:
    """``(ids, captions)`` of a caption file: one caption per non-empty line of UTF-8 text,
    ``ID<TAB>caption`` or a bare caption (id ``line N``); a :class:`QueryError` names a
    missing, undecodable or empty file."""
    p = Path(path)
    if not p.is_file():
        raise QueryError(f"caption file {p} does not exist")
    from kcca.data._text_files import read_utf8

    ids, texts = [], []
    for n, line in enumerate(read_utf8(p, error=QueryError).splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        cid, sep, text = line.partition("\t")
        if not sep:
            cid, text = f"line {n}", line
        ids.append(cid)
        texts.append(text)
    if not texts:
        raise QueryError(f"caption file {p} has no captions (one per line)")
    return ids, texts
