"""Every requested table from the evaluated systems (:mod:`kcca._paper.evaluated_systems`):
their values (``system -> task -> metric -> aggregate``), the significance tests each table's
markers need (:func:`kcca._paper.tables.needed_comparisons`,
:func:`kcca._evaluate.system.compare_systems`), the judgment-only Tables 8-10
(:mod:`kcca._paper.agreement`), and the notes beside each table (:mod:`kcca._paper.tables`
lays them out)."""

from __future__ import annotations

import logging
import math
from typing import Sequence

from kcca.data._corpus import Corpus
from kcca.data._errors import DataError
from kcca._evaluate.system import SystemEvaluation, compare_systems
from kcca._paper import tables as T
from kcca._paper.evaluated_systems import SystemData
from kcca._paper.random_baseline import NOTE as RANDOM_NOTE

log = logging.getLogger(__name__)


def values_of(data: dict[str, SystemData]) -> dict[str, dict[str, dict[str, float]]]:
    """``system -> task -> metric -> aggregate``, judged coverage (percent) and Table 5's total."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for name, d in data.items():
        v = {t: dict(m) for t, m in d.evaluation.table().items()}
        cov = d.evaluation.coverage
        for task in T.TASKS:
            c = cov.get(task, {})
            tv = v.setdefault(task, {})
            for k in (1, 5, 10):
                if f"top-{k} judged" in c:
                    tv[T.COVERAGE[f"top-{k}"]] = 100.0 * c[f"top-{k} judged"]
            if "R-precision judged" in c:
                tv[T.COVERAGE["R-precision"]] = 100.0 * c["R-precision judged"]
            if "top-1 expert judged" in c:
                tv[T.COVERAGE["expert"]] = 100.0 * c["top-1 expert judged"]
        if cov.get("R-precision total (Table 5)") is not None:
            v["total"] = {"R-precision": float(cov["R-precision total (Table 5)"])}
        out[name] = v
    return out


def pvalues_for(
    data: dict[str, SystemData],
    comparisons: Sequence[tuple[str, str, str, str]],
    *,
    n_samples: int,
    seed: int,
) -> dict[tuple[str, str, str, str], tuple[float, str]]:
    """p-values of the pairs, with the paper's test per metric (``compare_systems``)."""
    out = {}
    for key in dict.fromkeys(comparisons):
        a, b, task, metric = key
        pa = data[a].evaluation.metrics.get(task, {}).get(metric)
        pb = data[b].evaluation.metrics.get(task, {}).get(metric)
        if pa is None or pb is None:
            continue
        ea = SystemEvaluation(a, {task: {metric: pa}}, {})
        eb = SystemEvaluation(b, {task: {metric: pb}}, {})
        try:
            res = compare_systems(ea, eb, n_samples=n_samples, seed=seed)[task][metric]
        except DataError as exc:  # e.g. no query judged for both (expert mean)
            log.warning("%s vs %s, %s %s: %s", a, b, task, metric, exc)
            continue
        if res["p"] is not None and not math.isnan(res["p"]):
            out[key] = (float(res["p"]), res["test"])
    return out


def build_tables(
    tables: Sequence[str],
    data: dict[str, SystemData],
    corpus: Corpus | None,
    *,
    split: str = "test",
    n_samples: int = 100_000,
    seed: int = 0,
    random: SystemData | None = None,
) -> dict[str, T.TableResult]:
    """Every requested table from evaluated systems (and the corpus's judgments for 8-10)."""
    from kcca._paper import agreement

    values = values_of(data)
    all_data = dict(data)
    if random is not None:
        all_data[T.RANDOM] = random
        values.update(values_of({T.RANDOM: random}))
    present = list(all_data)
    comparisons = [c for t in tables for c in T.needed_comparisons(t, present)]
    pvalues = pvalues_for(all_data, comparisons, n_samples=n_samples, seed=seed)
    out: dict[str, T.TableResult] = {}
    cache: dict = {}
    expert = corpus is not None and corpus.expert is not None
    crowd = corpus is not None and corpus.crowd is not None
    for t in tables:
        if t in ("1", "2", "3", "4", "5", "11", "12"):
            vals = values if t in ("1", "2") else {k: v for k, v in values.items() if k != T.RANDOM}
            res = T.system_table(t, vals, pvalues)
        elif t == "6":
            res = T.table6(values, pvalues)
        elif t == "7":
            res = T.table7(
                {k: v for k, v in values.items() if k != T.RANDOM}, agreement.table7_from_paper()
            )
        elif t in ("8", "9", "10"):
            res = _judgment_table(t, corpus, split, expert, crowd, cache)
        else:
            raise ValueError(f"unknown table {t!r}")
        _add_notes(t, res, corpus, expert, crowd, with_random=random is not None)
        out[t] = res
    return out


def _add_notes(
    t: str,
    res: T.TableResult,
    corpus: Corpus | None,
    expert: bool,
    crowd: bool,
    *,
    with_random: bool,
) -> None:
    """The notes beside table ``t``: what the data at hand leaves out, the Random row, and
    how far the expert judgments reach (Tables 1-2)."""
    need = T.NEEDS.get(t, "")
    if corpus is None and t in ("8", "9", "10"):
        res.notes = [
            f"needs the {need or 'judgment'} files of the corpus (no data at hand: "
            "set --data-dir or KCCA_DATA_DIR)"
        ]
    elif corpus is None and need:
        res.notes.append(
            f"no corpus data at hand: the {need} columns hold what the "
            "compact results files stored"
            + ("; the Random row's need the data" if t in ("1", "2") else "")
        )
    elif ("expert" in need and not expert) or ("crowd" in need and not crowd):
        res.notes.append(f"the corpus has no {need} judgments: those columns are empty")
    if t in ("1", "2") and with_random:
        res.notes.append(RANDOM_NOTE)
    if t in ("1", "2"):
        res.notes.append(
            "expert judgments (ExpertAnnotations.txt) cover the pairs the "
            "paper's systems returned; our first captions that were not "
            "judged count as below every threshold (Table 1) and are left out "
            "of the mean (Table 2): compare with the coverage column"
        )


def _judgment_table(
    t: str, corpus: Corpus | None, split: str, expert: bool, crowd: bool, cache: dict
) -> T.TableResult:
    """Tables 8-10 from the judgment files alone (``kcca._paper.agreement``)."""
    from kcca._paper import agreement

    if not expert or (t == "10" and not crowd):
        need = "expert" if t != "10" else "crowd and expert"
        return T.TableResult(t, [], notes=[f"no {need} judgments: not computed"])
    assert corpus is not None  # expert judgments come with a corpus (build_tables)
    try:
        if t == "10":
            return T.table10(agreement.table10(corpus))
        if "8_9" not in cache:
            cache["8_9"] = T.tables8_9(agreement.tables8_9(corpus, split))
        return cache["8_9"][t]
    except (LookupError, OSError, DataError) as exc:  # e.g. NLTK stop words missing
        return T.TableResult(t, [], notes=[f"not computed: {exc}"])
