"""Running several systems (Section 4): the library core behind ``kcca reproduce``.

:func:`run_systems` runs each :class:`~kcca._systems.spec.SystemSpec` with
:func:`~kcca._systems.runner.run_system` on one of three executors (:class:`Execution`):

* ``"serial"``: one after the other in this process (one system's text kernel in memory at a
  time);
* ``"processes"``: on local worker processes (joblib/loky), the machine's BLAS threads split
  between them (one system's eigendecompositions use two cores poorly, two systems side by
  side use them well), after computing once the image blocks and KCCA image factors the
  systems share (:func:`shared_image_blocks`);
* ``"dask"``: as independent tasks on a Dask cluster (:mod:`kcca._systems.distributed`).

The numbers are the same on every executor. Each system's rankings file is written to
``rank_dir`` (``<SYSTEM>.json``, with its compact results file) and its run details are
merged into ``details.json`` there; ``on_result`` receives a one-line summary per system
(and per failure) for the caller to print.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from kcca._names import TASKS
from kcca._provenance import now

from kcca._systems.config import EXECUTORS, Execution, RunConfig
from kcca._systems.spec import rankings_stem

__all__ = ["EXECUTORS", "Execution", "RunConfig", "run_systems"]


def slug(name: str) -> str:
    """A system name as a file name (``TRI5^sqrtidf_A,D(ic)`` -> ``TRI5_sqrtidf_A_D_ic_``):
    :func:`kcca._systems.spec.rankings_stem`, the one rule."""
    return rankings_stem(name)


def summary_line(label: str, chosen: str, table: dict, seconds: float | None = None) -> str:
    """``LABEL: CHOSEN; annotation R@1/5/10 a/b/c; search R@1/5/10 d/e/f (Ns)``."""
    parts = [f"{label}: {chosen}"]
    for task in TASKS:
        m = table.get(task, {})
        if all(f"R@{k}" in m for k in (1, 5, 10)):
            parts.append(f"{task} R@1/5/10 " + "/".join(f"{m[f'R@{k}']:.1f}" for k in (1, 5, 10)))
    return "; ".join(parts) + (f" ({seconds:.0f}s)" if seconds is not None else "")


def stages_text(timings: dict[str, float]) -> str:
    """``image kernel 3s, text kernel 40s, ...`` (stages of :func:`kcca._systems.run_system`)."""
    return ", ".join(f"{k} {v:.0f}s" for k, v in timings.items())


def shared_image_blocks(specs: Sequence[Any], ws: Any) -> None:
    """The image features and kernel blocks the systems share, computed once (and cached)
    before the systems go to workers, so they do not all compute them at once; likewise the
    KCCA factor of an image kernel for each p that two or more KCCA systems use."""
    seen: dict[str, Any] = {}  # image kernel spec by its JSON
    uses: dict[tuple[str, float], int] = {}  # (image kernel, p) -> KCCA systems using it
    for spec in specs:
        name = json.dumps(spec.image_kernel.as_dict(), sort_keys=True)
        seen.setdefault(name, spec.image_kernel)
        if spec.model == "kcca":
            for p in spec.grid.p:
                uses[(name, float(p))] = uses.get((name, float(p)), 0) + 1
    for kernel in seen.values():
        ws.image_blocks(kernel)
    if not ws.cache.enabled:
        return
    for (name, p), count in uses.items():
        if count > 1:
            ws.image_factor(seen[name], p)


def run_systems(
    specs: Sequence[Any],
    corpus: Any,
    ws: Any,
    rank_dir: str | Path,
    *,
    command: str = "",
    on_result: Callable[[str], None] = print,
    on_failure: Callable[[str], None] | None = None,
) -> list[str]:
    """Run ``specs`` on ``corpus`` in workspace ``ws``, on the executor of its configuration
    (``ws.config.execution``), writing each system's rankings and run details to ``rank_dir``;
    returns the names of the systems that failed (a failed system does not stop the others on
    the parallel executors). ``command`` is recorded with each system's details;
    ``on_result`` receives the summary lines, ``on_failure`` (default ``on_result``) the
    failures."""
    rank_dir = Path(rank_dir)
    rank_dir.mkdir(parents=True, exist_ok=True)
    batch = _Batch(
        list(specs), corpus, ws, rank_dir, command, _Say(on_result, on_failure or on_result)
    )
    executor = {"serial": batch.serially, "processes": batch.on_processes, "dask": batch.on_cluster}
    return executor[ws.config.execution.executor]()


@dataclass(frozen=True)
class _Say:
    result: Callable[[str], None]
    failure: Callable[[str], None]

    def __call__(self, line: str) -> None:
        self.result(line)


def _finished_line(
    spec: Any, chosen: Any, table: dict, timings: dict[str, float], stages: dict, eta: Any
) -> str:
    """A finished system's summary line with its stage timings and the time left; adds its
    timings to the run's totals ``stages``."""
    from kcca._evaluate.results_files import chosen_text

    for stage, secs in timings.items():
        stages[stage] = stages.get(stage, 0.0) + secs
    return (
        summary_line(spec.label, chosen_text(chosen), table, sum(timings.values()))
        + f" [{stages_text(timings)}]; {eta.text()}"
    )


def record_task_result(
    spec: Any, res: dict, corpus: Any, rank_dir: Path, command: str, **extra: Any
) -> None:
    """Write a worker's rankings file and merge its run details (plus ``extra``)."""
    from kcca._evaluate.rankings_io import write_rankings
    from kcca._evaluate.results_files import merge_details

    rankings = write_rankings(
        rank_dir / f"{slug(spec.name)}.json",
        corpus.pool("test"),
        res["rankings"],
        system=spec.name,
        corpus=corpus.name,
        split="test",
        gold_ties=res.get("gold_ties"),
    )
    write_all_captions(rankings, spec.name, corpus, res.get("protocol_ranks"))
    merge_details(rank_dir, [{**res["details"], "command": command, "date": now(), **extra}])


def write_all_captions(rankings_file: Path, system: str, corpus: Any, pools: Any) -> None:
    """Write a system's all-captions ranks beside its rankings file
    (:mod:`kcca._evaluate.protocol_ranks`); without them (a run under the paper's protocol),
    remove the file an earlier run of the system wrote there, so that no figure of another
    run is shown beside this run's rankings. A file there that is not an all-captions ranks
    file is not ours and is left alone (reading it is then an error naming it)."""
    from kcca._evaluate.protocol_ranks import (
        protocol_ranks_of,
        protocol_ranks_path,
        remove_protocol_ranks,
        write_protocol_ranks,
    )

    path = protocol_ranks_path(rankings_file)
    if pools is None:
        remove_protocol_ranks(path)
    else:
        write_protocol_ranks(path, protocol_ranks_of(system, corpus, pools))


def _cache_dir(ws: Any) -> str | None:
    """The cache folder workers open (None: no cache)."""
    return str(ws.cache.root) if ws.cache.enabled else None


def _system_task(spec, task: tuple[RunConfig, str | None], threads: int):
    """One system in a worker process with ``threads`` BLAS threads: (spec, result, error)."""
    from threadpoolctl import threadpool_limits

    from kcca._systems.distributed import run_system_task

    try:
        with threadpool_limits(limits=threads):
            return spec, run_system_task(spec, *task), None
    except Exception as exc:  # noqa: BLE001 - report every system's failure, go on
        return spec, None, f"{type(exc).__name__}: {exc}"


@dataclass(frozen=True)
class _Batch:
    """One call of :func:`run_systems`: the systems, where they run and write, and where their
    lines go; a method per executor."""

    specs: list[Any]
    corpus: Any
    ws: Any
    rank_dir: Path
    command: str
    say: _Say

    def serially(self) -> list[str]:
        from tqdm.auto import tqdm

        from kcca._evaluate.results_files import merge_details
        from kcca._systems.eta import RemainingTime
        from kcca._systems.runner import run_system

        start = time.perf_counter()
        eta = RemainingTime(len(self.specs))
        stages: dict[str, float] = {}
        execution = self.ws.config.execution
        bar = tqdm(self.specs, desc="systems", unit="system", disable=not execution.progress)
        for spec in bar:
            bar.set_postfix_str(spec.label)
            res = run_system(self.corpus, spec, workspace=self.ws)
            self.ws.release_text_blocks()  # one system's text kernel in memory at a time
            eta.done(sum(res.timings.values()))
            # the system's numbers are shown before its files are written (a failed write
            # keeps them)
            self.say(_finished_line(spec, res.chosen, res.table(), res.timings, stages, eta))
            rankings = res.write_rankings(self.rank_dir / f"{slug(spec.name)}.json", self.corpus)
            write_all_captions(rankings, spec.name, self.corpus, res.protocol_ranks)
            merge_details(
                self.rank_dir, [{**res.to_json(), "command": self.command, "date": now()}]
            )
        if self.specs:
            self.say(
                f"stage timings over {len(self.specs)} system(s): {stages_text(stages)}; "
                f"total {time.perf_counter() - start:.0f}s"
            )
        return []

    def on_processes(self) -> list[str]:
        from joblib import delayed, effective_n_jobs
        from tqdm.auto import tqdm

        from kcca._systems.eta import RemainingTime
        from kcca._workers import worker_parallel

        execution = self.ws.config.execution
        workers = min(effective_n_jobs(execution.jobs), len(self.specs))
        threads = max(1, (os.cpu_count() or 1) // workers)
        shared_image_blocks(self.specs, self.ws)
        task = (self.ws.config.for_worker(jobs=1), _cache_dir(self.ws))
        self.say(
            f"running {len(self.specs)} systems on {workers} worker processes, "
            f"{threads} BLAS thread(s) each"
        )
        start = time.perf_counter()
        eta = RemainingTime(len(self.specs))
        stages: dict[str, float] = {}
        failed: list[str] = []
        jobs = (delayed(_system_task)(spec, task, threads) for spec in self.specs)
        bar = tqdm(
            total=len(self.specs), desc="systems", unit="system", disable=not execution.progress
        )
        for spec, res, err in worker_parallel(
            n_jobs=workers, backend="loky", return_as="generator_unordered"
        )(jobs):
            bar.update(1)
            eta.done(0.0 if err is not None else sum(res["details"].get("timings", {}).values()))
            if err is not None:
                self.say.failure(f"{spec.label}: failed: {err}")
                failed.append(spec.name)
                continue
            details = res["details"]
            self.say(
                _finished_line(
                    spec,
                    details.get("chosen"),
                    res["table"],
                    details.get("timings", {}),
                    stages,
                    eta,
                )
            )
            record_task_result(spec, res, self.corpus, self.rank_dir, self.command)
        bar.close()
        self.say(
            f"stage timings over {len(self.specs)} system(s), summed over workers: "
            f"{stages_text(stages)}; wall {time.perf_counter() - start:.0f}s"
        )
        return failed

    def on_cluster(self) -> list[str]:
        from kcca._evaluate.results_files import chosen_text
        from kcca._systems.distributed import run_systems_on_cluster

        execution: Execution = self.ws.config.execution
        if self.ws.cache.enabled:  # shared image features / blocks first, extraction on the cluster
            shared_image_blocks(self.specs, self.ws)

        def done(spec, res: dict) -> None:
            self.say(
                summary_line(spec.label, chosen_text(res["details"].get("chosen")), res["table"])
            )
            record_task_result(
                spec, res, self.corpus, self.rank_dir, self.command, scheduler=execution.scheduler
            )

        # Execution refuses the dask executor without a scheduler address
        assert execution.scheduler is not None
        _, errors = run_systems_on_cluster(
            execution.scheduler,
            self.specs,
            self.ws.config.for_worker(jobs=execution.jobs),
            _cache_dir(self.ws),
            on_done=done,
        )
        for name, err in errors.items():
            self.say.failure(f"{name}: failed on the cluster: {err}")
        return list(errors)
