"""The Java PTB tokeniser as pycocoevalcap 1.2 runs it, for comparing many captions at once.

pycocoevalcap's ``ptbtokenizer.py`` writes the captions (``\\n`` inside a caption replaced by a
space) one per line, UTF-8, to a file, runs::

    java -cp stanford-corenlp-3.4.1.jar edu.stanford.nlp.process.PTBTokenizer \\
         -preserveLines -lowerCase FILE

and keeps, of each output line, ``[w for w in line.rstrip().split(' ') if w not in
PUNCTUATIONS]``. :func:`java_tokenize` does the same with one JVM for a whole batch.

``isolate=False`` is pycocoevalcap's file exactly (caption after caption). ``isolate=True``
puts a line holding only :data:`SENTINEL` after each caption, so that every caption is
tokenised as a line followed by a neutral line (what :func:`kcca.captions._tokenizer.tokenize`
models), whatever its neighbours are, and a caption holding other line breaks (``\\r``,
U+2028 ...: several output lines) is still read back as one token list. A tag whose quoted
attribute opens in one caption and closes in a later one would make one token of both; the
batch is then split in two and retried, so results never shift.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

SENTINEL = "qzsentinelqz"


def java_jar() -> Path | None:
    """pycocoevalcap's CoreNLP 3.4.1 jar when it and ``java`` are installed, else None."""
    try:
        from pycocoevalcap.tokenizer import ptbtokenizer
    except ImportError:
        return None
    jar = Path(ptbtokenizer.__file__).parent / ptbtokenizer.STANFORD_CORENLP_3_4_1_JAR
    return jar if jar.is_file() and shutil.which("java") else None


def _punctuations() -> frozenset[str]:
    from pycocoevalcap.tokenizer.ptbtokenizer import PUNCTUATIONS

    return frozenset(PUNCTUATIONS)


def _run(jar: Path, text: str) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "captions.txt"
        src.write_bytes(text.encode())
        out = subprocess.run(["java", "-cp", str(jar), "edu.stanford.nlp.process.PTBTokenizer",
                              "-preserveLines", "-lowerCase", str(src)],
                             capture_output=True, check=True).stdout
    return out.decode().split("\n")


def java_tokenize(texts: Sequence[str], *, isolate: bool = True,
                  jar: Path | None = None) -> list[list[str]]:
    """The tokens pycocoevalcap keeps for each text (one JVM call per batch)."""
    jar = jar or java_jar()
    if jar is None:
        raise RuntimeError("Java or pycocoevalcap (the jar) is not installed")
    punct = _punctuations()
    lines = [t.replace("\n", " ") for t in texts]
    if not isolate:
        out = _run(jar, "\n".join(lines))
        if len(out) < len(lines):
            raise ValueError(f"{len(lines)} captions gave {len(out)} output lines: some caption "
                             "holds a line break other than \\n; use isolate=True")
        return [[w for w in line.rstrip().split(" ") if w and w not in punct]
                for line in out[:len(lines)]]
    if any(SENTINEL in t for t in lines):
        raise ValueError(f"a text contains the sentinel {SENTINEL!r}")
    out = _run(jar, "".join(f"{t}\n{SENTINEL}\n" for t in lines))
    result: list[list[str]] = []
    current: list[str] = []
    for line in out:
        if line == SENTINEL:
            result.append(current)
            current = []
        else:
            current += [w for w in line.rstrip().split(" ") if w and w not in punct]
    if len(result) != len(lines):  # a token swallowed a sentinel line: split the batch
        if len(lines) == 1:
            raise ValueError(f"cannot isolate {texts[0]!r}")
        half = len(texts) // 2
        return (java_tokenize(texts[:half], jar=jar)
                + java_tokenize(texts[half:], jar=jar))
    return result
