"""METEOR 1.5 (Denkowski & Lavie 2014; Chen et al. 2015, Section 3.5, eq. 11-15), as
pycocoevalcap 1.2 computes it, with two engines that give the same numbers.

METEOR aligns candidate and reference words by exact match, stems, WordNet synonyms and
paraphrases. pycocoevalcap runs ``java -jar meteor-1.5.jar - - -stdio -l en -norm``: one
``SCORE ||| ref 1 ||| ... ||| hypothesis`` line per item, then one ``EVAL`` line with all
statistics, which returns per-item scores and the corpus score (whose precision and recall
are aggregated over the corpus before combining).

* ``engine="python"`` (the default): :mod:`kcca.captions._meteor_engine`, a re-implementation
  of that jar configuration that reads the jar's word lists, WordNet synonyms and paraphrase
  table without Java (the paraphrase table is indexed once, about 10 s, and cached in the
  project cache). It needs the jar's files, not Java, and equals the jar to the last bit on
  the Flickr 8K test set (``tests/kcca/captions/test_cap_meteor_engine.py``); on 1,000 items
  about 13 times faster than the jar including each one's start-up (benchmarks/README.md).
* ``engine="java"``: drives the jar exactly as pycocoevalcap does (needs Java).

The jar is found through ``$KCCA_METEOR_JAR``, else inside an installed pycocoevalcap (the
project's optional extra ``coco``: ``pip install pycocoevalcap==1.2``), and the paraphrase
table at ``data/paraphrase-en.gz`` beside it; Java comes from ``$KCCA_JAVA`` or ``java`` on
the PATH. When something is missing, :class:`MeteorUnavailable` says what to install; no other
metric is ever reported under the name METEOR.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import tempfile
from collections.abc import Hashable, Sequence
from itertools import chain
from pathlib import Path

import numpy as np

from kcca.captions._scorer import CaptionInputError, CaptionScorer, split_at_spaces
from kcca.errors import SettingError

JAR_ENV = "KCCA_METEOR_JAR"
JAVA_ENV = "KCCA_JAVA"
ENGINES = ("python", "java")
DEFAULT_ENGINE = "python"
INSTALL_HINT = (
    "install the Meteor 1.5 jar and its data and the Snowball stemmer, e.g. `pip "
    "install pycocoevalcap==1.2 'snowballstemmer<3'` (the project's extra `coco`; "
    "pycocoevalcap ships meteor-1.5.jar and data/paraphrase-en.gz), or point "
    f"${JAR_ENV} to meteor-1.5.jar"
)
JAVA_HINT = (
    "install Java (a JRE, version 8 or later), or use the Python engine "
    "(engine='python'; kcca score-captions --meteor-engine python)"
)


class MeteorUnavailable(RuntimeError):
    """Java or the Meteor 1.5 jar cannot be found or started."""


class CaptionTooLongError(CaptionInputError):
    """A caption longer than METEOR scores (``MAX_METEOR_CHARACTERS`` of :mod:`kcca.limits`):
    ``position`` is its item's index in the candidates' order, ``reference`` the index of
    the reference among the item's references (None: the candidate)."""

    def __init__(self, message: str, *, position: int, reference: int | None, fix: str):
        super().__init__(message, fix=fix)
        self.position = position
        self.reference = reference


def check_caption_lengths(
    references: Sequence[Sequence[str]],
    candidates: Sequence[str],
    ids: Sequence[Hashable] | None = None,
) -> None:
    """Refuse a caption (a text: tokens joined by spaces) longer than
    ``MAX_METEOR_CHARACTERS`` of :mod:`kcca.limits` (or ``$KCCA_MAX_METEOR_CHARACTERS``) before
    any is scored: :class:`CaptionTooLongError` naming the item (its id from ``ids``, else
    its 1-based position) and the caption."""
    from kcca.limits import MAX_METEOR_CHARACTERS_ENV, current_limit

    limit = current_limit(MAX_METEOR_CHARACTERS_ENV)
    if max(map(len, chain(candidates, chain.from_iterable(references))), default=0) <= limit:
        return
    for k, (refs, cand) in enumerate(zip(references, candidates)):
        for j, text in [(None, cand), *enumerate(refs)]:
            length = len(text)
            if length <= limit:
                continue
            item = f"image id {ids[k]!r}" if ids is not None else f"item {k + 1}"
            which = "the candidate" if j is None else f"reference {j}"
            raise CaptionTooLongError(
                f"METEOR: {which} of {item} has {length:,} characters, over the limit of "
                f"{limit:,} (${MAX_METEOR_CHARACTERS_ENV}): METEOR's alignment takes memory "
                "and time quadratic in a caption's words",
                position=k,
                reference=j,
                fix=f"shorten that caption, or score without METEOR (kcca score-captions "
                f"--no-meteor); if the memory is there (about 0.8 GB for 60,000 characters), "
                f"raise the limit: export {MAX_METEOR_CHARACTERS_ENV}={length}",
            )


def find_meteor_jar() -> Path | None:
    """``$KCCA_METEOR_JAR`` if set, else pycocoevalcap's ``meteor/meteor-1.5.jar``, else None."""
    value = os.environ.get(JAR_ENV)
    if value:
        return Path(value) if Path(value).is_file() else None
    spec = importlib.util.find_spec("pycocoevalcap")
    if spec is None or not spec.submodule_search_locations:
        return None
    for loc in spec.submodule_search_locations:
        jar = Path(loc) / "meteor" / "meteor-1.5.jar"
        if jar.is_file():
            return jar
    return None


def find_java() -> str | None:
    """The Java executable: ``$KCCA_JAVA`` or ``java`` on the PATH."""
    value = os.environ.get(JAVA_ENV)
    if value:
        return value if shutil.which(value) else None
    return shutil.which("java")


def _check_engine(engine: str) -> str:
    if engine not in ENGINES:
        raise SettingError(f"unknown METEOR engine {engine!r}; choose one of {', '.join(ENGINES)}")
    return engine


def meteor_available(engine: str = DEFAULT_ENGINE) -> tuple[bool, str]:
    """``(True, "")`` when METEOR can run with ``engine``, else ``(False, reason with what
    to install)``. The Python engine needs the jar and the paraphrase table beside it; the
    Java engine needs the jar and Java.

    Parameters
    ----------
    engine : {"python", "java"}, default="python"
        The engine asked about.

    Returns
    -------
    available : bool
        Whether METEOR can run here with ``engine``.
    reason : str
        Empty when available; else what is missing and what to install.

    Examples
    --------
    >>> from kcca.captions import meteor_available
    >>> available, reason = meteor_available("python")
    >>> available == (reason == "")
    True
    """
    _check_engine(engine)
    problems = []
    hint = INSTALL_HINT
    if engine == "java" and find_java() is None:
        problems.append("METEOR's Java engine needs Java, which was not found")
        hint = f"{INSTALL_HINT}; {JAVA_HINT}"
    jar = find_meteor_jar()
    if jar is None:
        where = os.environ.get(JAR_ENV)
        problems.append(
            f"${JAR_ENV}={where} is not a file" if where else "meteor-1.5.jar not found"
        )
    elif engine == "python":
        import importlib.util

        from kcca.captions._meteor_engine import paraphrase_table_path

        table = paraphrase_table_path(jar)
        if not table.is_file():
            problems.append(f"the paraphrase table {table} is missing")
        if importlib.util.find_spec("snowballstemmer") is None:
            problems.append("the Snowball stemmer (package snowballstemmer) is not installed")
        else:
            from importlib.metadata import version

            found = version("snowballstemmer")
            if int(found.split(".")[0]) >= 3:
                problems.append(
                    f"snowballstemmer {found} implements Snowball 3's English "
                    "stemmer; the jar's is that of snowballstemmer 2.x"
                )
    if problems:
        return False, f"METEOR unavailable ({'; '.join(problems)}): {hint}"
    return True, ""


def joined(
    references: Sequence[Sequence[Sequence[str]]], candidates: Sequence[Sequence[str]]
) -> tuple[list[list[str]], list[str]]:
    """``(references, candidates)`` as texts: each caption's tokens joined by spaces."""
    return [[" ".join(r) for r in rs] for rs in references], [" ".join(c) for c in candidates]


def _clean(text: str) -> str:
    """Remove the field separator ``|||`` and double spaces from a hypothesis (as
    pycocoevalcap does; one pass, so three spaces become two)."""
    return text.replace("|||", "").replace("  ", " ")


def score_line(references: Sequence[str], hypothesis: str) -> str:
    """pycocoevalcap's ``SCORE`` line for one item: the references as they are (a ``|||``
    inside one splits it into more fields for the jar), the hypothesis cleaned."""
    return " ||| ".join(("SCORE", " ||| ".join(references), _clean(hypothesis)))


class Meteor(CaptionScorer):
    """METEOR 1.5 (``-l en -norm``, default task): corpus score and per-item scores.

    Needs the Meteor 1.5 jar's resources (the ``coco`` extra, or ``$KCCA_METEOR_JAR``;
    :func:`meteor_available` says what is missing): the first score of a process loads them,
    which takes seconds (:meth:`prepare` does it ahead).

    Parameters
    ----------
    engine : {"python", "java"}, default="python"
        ``"python"``: no Java; ``"java"``: the jar, as pycocoevalcap runs it.
    jar : path or None, default=None
        Path of meteor-1.5.jar (None: :func:`find_meteor_jar`).
    java : str or None, default=None
        Java executable for the Java engine (None: :func:`find_java`).
    memory : str, default="2G"
        JVM heap (``-Xmx``) of the Java engine, as pycocoevalcap.
    cache_dir : path, "default" or None, default="default"
        Cache folder of the Python engine's paraphrase index (``"default"``:
        :func:`kcca._cache.default_cache_dir`; None: no cache, the index is rebuilt).
    progress : bool, default=False
        Say on stderr when the Python engine builds its paraphrase index (the first use
        with a cache folder; every use without one), as :func:`kcca._progress.building`.

    See Also
    --------
    kcca.coco.meteor.meteor.Meteor : the same numbers with pycocoevalcap's signature.

    Examples
    --------
    >>> from kcca.captions import Meteor
    >>> Meteor()
    Meteor(engine='python')
    >>> references = {1: ["a dog runs on the grass", "a brown dog is running"]}
    >>> Meteor().compute_score(references, {1: ["a dog is running"]})  # doctest: +SKIP
    (0.2566..., array([0.2566...]))
    """

    name = "meteor"
    labels = ("METEOR",)
    split = staticmethod(split_at_spaces)

    def __init__(
        self,
        engine: str = DEFAULT_ENGINE,
        jar: str | os.PathLike | None = None,
        java: str | None = None,
        memory: str = "2G",
        cache_dir: str | os.PathLike | None = "default",
        progress: bool = False,
    ):
        self.engine = _check_engine(engine)
        self.jar = Path(jar) if jar is not None else None
        self.java = java
        self.memory = memory
        self.cache_dir = cache_dir
        self.progress = progress
        self._engine = None  # the Python engine, made on first use

    @property
    def params(self) -> dict:
        return (
            {"engine": self.engine, "memory": self.memory}
            if self.engine == "java"
            else {"engine": self.engine}
        )

    def prepare(self) -> None:
        """Load what the first score needs ahead of it (the Python engine's resources and
        compiled kernel; for the Java engine nothing): callers may run this in a background
        thread while they do other work, as pycocoevalcap starts the jar when its ``Meteor``
        is made. Scores are unchanged."""
        if self.engine == "python":
            self._python_engine().score_lines([["a dog runs"]], ["a dog runs"])

    def _python_engine(self):
        """The Python engine, found and made on the first call and kept: a call scoring one
        item at a time should not look for the jar and its table every time."""
        if self._engine is None:
            self._engine = self._find_python_engine()
        return self._engine

    def _find_python_engine(self):
        from kcca.captions._meteor_engine import (
            MeteorEngine,
            MeteorResources,
            paraphrase_table_path,
        )

        jar = self.jar or find_meteor_jar()
        if jar is None or not Path(jar).is_file():
            ok, reason = meteor_available("python")
            raise MeteorUnavailable(
                reason
                if self.jar is None
                else f"METEOR unavailable (Meteor jar {jar} not found): {INSTALL_HINT}"
            )
        table = paraphrase_table_path(jar)
        if not table.is_file():
            raise MeteorUnavailable(
                f"METEOR unavailable (the paraphrase table {table} is missing): {INSTALL_HINT}"
            )
        return MeteorEngine(MeteorResources.shared(jar, table, self.cache_dir, self.progress))

    def _command(self) -> tuple[list[str], Path]:
        java = self.java or find_java()
        jar = self.jar or find_meteor_jar()
        if java is None or jar is None or not Path(jar).is_file():
            ok, reason = meteor_available("java")
            raise MeteorUnavailable(reason or f"Meteor jar {jar} not found: {INSTALL_HINT}")
        return [
            java,
            "-jar",
            f"-Xmx{self.memory}",
            str(Path(jar).name),
            "-",
            "-",
            "-stdio",
            "-l",
            "en",
            "-norm",
        ], Path(jar).resolve().parent

    def score_tokens(self, references, candidates):
        return self.score_texts(*joined(references, candidates))

    def score_texts(
        self, references: Sequence[Sequence[str]], candidates: Sequence[str]
    ) -> tuple[float, np.ndarray]:
        """METEOR of texts as pycocoevalcap hands them to the jar (a caption's tokens joined
        by spaces: what :meth:`score_tokens` makes of its tokens).

        Parameters
        ----------
        references : sequence of sequences of str
            Per item, its reference texts.
        candidates : sequence of str
            Per item, its candidate text.

        Returns
        -------
        corpus : float
            The corpus score (the jar's answer to ``EVAL`` of every item's statistics).
        per_item : ndarray of shape (n_items,)
            Each item's score.
        """
        if self.engine == "java":
            return self._score_java(references, candidates)
        from kcca.captions._meteor_engine import split_score_line

        engine = self._python_engine()
        check_caption_lengths(references, candidates)
        fields = [split_score_line(score_line(rs, c)) for rs, c in zip(references, candidates)]
        corpus, per_item, _ = engine.score_lines([f[0] for f in fields], [f[1] for f in fields])
        return corpus, per_item

    def _score_java(self, references, candidates):
        cmd, cwd = self._command()
        check_caption_lengths(references, candidates)
        with tempfile.TemporaryFile() as err:
            try:
                proc = subprocess.Popen(
                    cmd, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err
                )
            except OSError as exc:
                raise MeteorUnavailable(f"cannot start {cmd[0]}: {exc}; {INSTALL_HINT}") from exc
            try:
                stats = []
                for refs, cand in zip(references, candidates):
                    line = score_line(refs, cand)
                    proc.stdin.write((line + "\n").encode("utf-8"))
                    proc.stdin.flush()
                    out = proc.stdout.readline().decode("utf-8").strip()
                    if not out:
                        raise MeteorUnavailable(self._died(proc, err))
                    stats.append(out)
                proc.stdin.write(("EVAL ||| " + " ||| ".join(stats) + "\n").encode("utf-8"))
                proc.stdin.flush()
                scores = []
                for _ in range(len(stats) + 1):
                    out = proc.stdout.readline().decode("utf-8").strip()
                    if not out:
                        raise MeteorUnavailable(self._died(proc, err))
                    scores.append(float(out))
            finally:
                if proc.stdin and not proc.stdin.closed:
                    proc.stdin.close()
                proc.kill()
                proc.wait()
        return scores[-1], np.array(scores[:-1], dtype=float)

    @staticmethod
    def _died(proc: subprocess.Popen, err) -> str:
        proc.kill()
        proc.wait()
        err.seek(0)
        tail = err.read().decode("utf-8", "replace")[-2000:]
        return f"the Meteor jar stopped answering (exit code {proc.returncode}): {tail}"
