"""METEOR (Denkowski & Lavie 2014; Chen et al. 2015, eq. 11-15) by driving the Meteor 1.5 jar.

METEOR aligns candidate and reference words by exact match, stems, WordNet synonyms and
paraphrases (the paraphrase table ships with the jar), so it is not re-implemented here: this
module runs ``java -jar meteor-1.5.jar - - -stdio -l en -norm`` exactly as pycocoevalcap 1.2
does (one ``SCORE ||| ref 1 ||| ... ||| hypothesis`` line per item, then one ``EVAL`` line
with all statistics, which returns per-item scores and the corpus score, whose precision and
recall are aggregated over the corpus before combining).

The jar is found through ``$KCCA_METEOR_JAR``, else inside an installed pycocoevalcap (the
project's optional extra ``coco``: ``pip install pycocoevalcap==1.2``); Java comes from
``$KCCA_JAVA`` or ``java`` on the PATH. When either is missing, :class:`MeteorUnavailable`
says what to install; no other metric is ever reported under the name METEOR.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from kcca.captions.scorer import CaptionScorer, register_scorer

JAR_ENV = "KCCA_METEOR_JAR"
JAVA_ENV = "KCCA_JAVA"
INSTALL_HINT = ("install Java (a JRE, version 8 or later) and the Meteor 1.5 jar, e.g. "
                "`pip install pycocoevalcap==1.2` (the project's extra `coco`, which ships "
                f"meteor-1.5.jar), or point ${JAR_ENV} to meteor-1.5.jar")


class MeteorUnavailable(RuntimeError):
    """Java or the Meteor 1.5 jar cannot be found or started."""


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


def meteor_available() -> tuple[bool, str]:
    """``(True, "")`` when METEOR can run, else ``(False, reason with what to install)``."""
    problems = []
    if find_java() is None:
        problems.append("METEOR needs Java, which was not found")
    if find_meteor_jar() is None:
        where = os.environ.get(JAR_ENV)
        problems.append(f"${JAR_ENV}={where} is not a file" if where else
                        "meteor-1.5.jar not found")
    if problems:
        return False, f"METEOR unavailable ({'; '.join(problems)}): {INSTALL_HINT}"
    return True, ""


def _clean(text: str) -> str:
    """Remove the field separator ``|||`` and double spaces (as pycocoevalcap does)."""
    return text.replace("|||", "").replace("  ", " ")


class Meteor(CaptionScorer):
    """METEOR 1.5 (``-l en -norm``) through Java: corpus score and per-item scores.

    Args:
        jar: path of meteor-1.5.jar (default: :func:`find_meteor_jar`).
        java: Java executable (default: :func:`find_java`).
        memory: JVM heap (``-Xmx``), ``"2G"`` as pycocoevalcap.
    """

    name = "meteor"
    labels = ("METEOR",)

    def __init__(self, jar: str | os.PathLike | None = None, java: str | None = None,
                 memory: str = "2G"):
        self.jar = Path(jar) if jar is not None else None
        self.java = java
        self.memory = memory

    @property
    def params(self) -> dict:
        return {"memory": self.memory}

    def _command(self) -> tuple[list[str], Path]:
        java = self.java or find_java()
        jar = self.jar or find_meteor_jar()
        if java is None or jar is None or not Path(jar).is_file():
            ok, reason = meteor_available()
            raise MeteorUnavailable(reason or f"Meteor jar {jar} not found: {INSTALL_HINT}")
        return [java, "-jar", f"-Xmx{self.memory}", str(Path(jar).name), "-", "-", "-stdio",
                "-l", "en", "-norm"], Path(jar).resolve().parent

    def score_tokens(self, references, candidates):
        cmd, cwd = self._command()
        with tempfile.TemporaryFile() as err:
            try:
                proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=err)
            except OSError as exc:
                raise MeteorUnavailable(f"cannot start {cmd[0]}: {exc}; {INSTALL_HINT}") from exc
            try:
                stats = []
                for refs, cand in zip(references, candidates):
                    line = " ||| ".join(["SCORE", " ||| ".join(_clean(" ".join(r)) for r in refs),
                                         _clean(" ".join(cand))])
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


register_scorer("meteor", Meteor)
