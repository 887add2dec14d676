"""One run configuration: what changes the numbers and how the run executes (Section 4.1).

A :class:`RunConfig` is the one carrier of a run's settings beyond its experiment files, from
the command line (or a notebook) through :class:`~kcca._systems.blocks.Workspace`,
:func:`~kcca._systems.runner.run_system` and :func:`~kcca._systems.run.run_systems` to worker
processes and Dask tasks:

* :class:`RunSettings`: what changes the numbers (the seed of every random choice, the image
  features' codebooks, the solver's factor precision and search rank). Cache keys are derived
  from these fields and from the data's fingerprints;
* :class:`Execution`: how the run executes (executor, workers, array backend, progress bars,
  where workers find the data). No field of it enters a cache key: kernels take these settings
  through their declared ``execution_params`` (:func:`features.kernels._base.with_execution`).

An experiment folder may hold a ``run.toml`` with a ``[run]`` table of either kind's fields
(:func:`load_run_table`); flags override it (:meth:`RunConfig.replace`).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from kcca.data._documents import parse_toml
from kcca.data._text_files import read_utf8
from kcca.errors import DataError, SettingError, type_name
from kcca._names import PROTOCOLS

#: the executors of :func:`kcca._systems.run.run_systems`
EXECUTORS = ("serial", "processes", "dask")
#: the file of an experiment folder that holds its ``[run]`` table (not a system)
RUN_FILE = "run.toml"


@dataclass(frozen=True)
class RunSettings:
    """What changes the numbers beyond the experiment files.

    ``seed``: every random choice (codebook samples, BoW1/TRI1 draws, the tagger's and word
    kernels' samples); ``image_config``: an :class:`features._image_features.ImageFeatureConfig`
    (None: the paper's codebooks, seeded by ``seed``); ``precision``: the incomplete-Cholesky
    precision of the KCCA factors (None: the solver's own); ``search_rank``: the rank of the
    factors of the (p, d) search on dev (None: each experiment file's ``grid.search_rank``;
    0: full precision); ``protocol``: the test protocols ranked, ``"paper"`` (the paper's
    one-caption pool, Section 4.1.1) or ``"all-captions"`` (that pool and the literature's
    pools of every test caption, :mod:`kcca._evaluate.protocol_ranks`).
    """

    seed: int = 0
    image_config: Any = None
    precision: float | None = None
    search_rank: int | None = None
    protocol: str = "paper"

    def __post_init__(self) -> None:
        if self.protocol not in PROTOCOLS:
            from kcca.errors import unknown_name

            raise unknown_name("protocol", self.protocol, PROTOCOLS)

    def image_features(self) -> Any:
        """The image feature settings of the run (the paper's with ``seed`` when unset)."""
        from features._image_features import ImageFeatureConfig

        return self.image_config or ImageFeatureConfig(seed=self.seed)


@dataclass(frozen=True)
class Execution:
    """How the run executes (never what it computes).

    ``executor``: one of :data:`EXECUTORS`; ``jobs``: worker processes (``"processes"``),
    threads per task (``"dask"``) or threads of the kernels (``"serial"``; None: all cores);
    ``scheduler``: the Dask scheduler's address; ``backend``: the array backend of kernels and
    solver (``"numpy"``, ``"cupy"``, ``"auto"``; same numbers within rounding); ``progress``:
    tqdm bars; ``data_dir`` and ``splits``: where worker processes reload the corpus (Flickr
    8K), ``corpus_file`` and ``images_dir`` instead for a corpus in the JSON split format
    (:mod:`kcca.data._json_splits`); ``nltk_path``: the NLTK data folders workers search first
    (empty: their own ``$NLTK_DATA``).
    """

    executor: str = "serial"
    jobs: int | None = 1
    scheduler: str | None = None
    backend: str = "numpy"
    progress: bool = True
    data_dir: str | None = None
    splits: str | None = None
    corpus_file: str | None = None
    images_dir: str | None = None
    nltk_path: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.executor not in EXECUTORS:
            raise SettingError(
                f"executor must be one of {', '.join(EXECUTORS)}, got {self.executor!r}"
            )
        if self.executor == "dask" and not self.scheduler:
            raise DataError(
                "the dask executor needs the scheduler's address (scheduler=...)",
                fix="give the address of a running Dask scheduler (kcca reproduce --scheduler "
                "tcp://HOST:8786), or choose another executor",
            )

    def kernel_settings(self) -> dict[str, Any]:
        """The settings a kernel may declare in ``execution_params``."""
        return {"backend": self.backend, "n_jobs": self.jobs, "progress": self.progress}


@dataclass(frozen=True)
class RunConfig:
    """A run's :class:`RunSettings` and :class:`Execution` (see the module docstring)."""

    settings: RunSettings = field(default_factory=RunSettings)
    execution: Execution = field(default_factory=Execution)

    @classmethod
    def of(cls, **values: Any) -> "RunConfig":
        """A configuration from field names of either part (``RunConfig.of(seed=1, jobs=2)``)."""
        return cls().replace(**values)

    def replace(self, **values: Any) -> "RunConfig":
        """This configuration with the named fields (of either part) set to the values given."""
        unknown = sorted(set(values) - _SETTING_NAMES - _EXECUTION_NAMES)
        if unknown:
            raise TypeError(
                f"unknown run setting(s) {', '.join(unknown)}: use "
                f"{', '.join(sorted(_SETTING_NAMES | _EXECUTION_NAMES))}"
            )
        settings = {k: v for k, v in values.items() if k in _SETTING_NAMES}
        execution = {k: v for k, v in values.items() if k in _EXECUTION_NAMES}
        return RunConfig(
            dataclasses.replace(self.settings, **settings),
            dataclasses.replace(self.execution, **execution),
        )

    def for_worker(self, jobs: int | None = 1) -> "RunConfig":
        """The configuration a worker runs one system with: serially, ``jobs`` threads, no
        progress bars."""
        return self.replace(executor="serial", jobs=jobs, scheduler=None, progress=False)

    def header(self) -> str:
        """The run-settings line of a table header (``seed: 0; array backend: numpy ...``)."""
        from kcca._backend import describe_backend

        s = self.settings
        parts = [f"seed: {s.seed}", f"array backend: {describe_backend(self.execution.backend)}"]
        if s.image_config is not None:
            image = _changed(s.image_features())
            if image.get("seed") == s.seed:  # the run's seed, named first
                del image["seed"]
            parts.append(f"image features: {json.dumps(image)}")
        if s.precision is not None:
            parts.append(f"solver precision: {s.precision:g}")
        if s.search_rank is not None:
            parts.append(f"search rank: {s.search_rank}")
        if s.protocol != "paper":
            parts.append(f"protocol: {s.protocol}")
        return "; ".join(parts)


_SETTING_NAMES = {f.name for f in fields(RunSettings)}
_EXECUTION_NAMES = {f.name for f in fields(Execution)}


def _changed(config: Any) -> dict[str, Any]:
    """The fields of a dataclass instance that differ from its class's defaults."""
    default = type(config)()
    return {
        f.name: getattr(config, f.name)
        for f in fields(config)
        if getattr(config, f.name) != getattr(default, f.name)
    }


def load_run_table(folder: str | Path) -> dict[str, Any]:
    """The ``[run]`` table of ``folder/run.toml`` as :meth:`RunConfig.replace` values (empty
    when the folder has no such file); ``image_features`` becomes an ``ImageFeatureConfig``.
    Unknown keys and bad values are :class:`~kcca.errors.DataError` naming the file."""
    path = Path(folder) / RUN_FILE
    if not path.is_file():
        return {}
    try:
        text = read_utf8(path)  # a BOM is named with its fix
    except OSError as exc:
        raise DataError(f"{path}: {exc}", fix=f"correct the TOML of {path}") from None
    table = parse_toml(text, path).get("run", {})
    if not isinstance(table, dict):
        raise DataError(
            f"{path}: run must be a table ([run]), got {type_name(table)}",
            fix=f"write the run settings under a [run] header in {path}",
        )
    allowed = (_SETTING_NAMES | _EXECUTION_NAMES | {"image_features"}) - {"image_config"}
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise DataError(
            f"{path}: unknown key(s) {', '.join(unknown)} in [run]",
            fix=f"use only {', '.join(sorted(allowed))} in the [run] table of {path}",
        )
    values = dict(table)
    executor = values.get("executor", EXECUTORS[0])
    if executor not in EXECUTORS:
        raise DataError(
            f"{path}: [run] executor must be one of {', '.join(EXECUTORS)}, got {executor!r}",
            fix=f'write executor = "serial" (or processes, dask) in the [run] table of {path}',
        )
    seed = values.get("seed", 0)
    if not (isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0):
        raise DataError(
            f"{path}: [run] seed must be an integer >= 0, got {seed!r}",
            fix=f"write seed = 0 (or another integer >= 0) in the [run] table of {path}",
        )
    if "image_features" in values:
        from features._image_features import ImageFeatureConfig

        image = values.pop("image_features")
        try:
            values["image_config"] = ImageFeatureConfig(**{"seed": values.get("seed", 0), **image})
        except TypeError as exc:
            raise DataError(
                f"{path}: [run.image_features]: {exc}",
                fix=f"give only these fields in the [run.image_features] table of {path}: "
                + ", ".join(f.name for f in fields(ImageFeatureConfig)),
            ) from None
        except ValueError as exc:  # a value out of range, named with its field
            raise DataError(
                f"{path}: [run.image_features]: {exc}",
                fix=f"correct that value in the [run.image_features] table of {path}",
            ) from None
    return values
