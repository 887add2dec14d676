"""The corpus a report reads when the run was made on a captions JSON (Karpathy's format).

``kcca reproduce --corpus FILE.json [--images-dir DIR]`` names its rankings after the file's
``"dataset"`` (``coco``, ``flickr30k``), which the report cannot rebuild from the name alone.
:func:`report_corpus` takes the file from ``--corpus``, else from the ``kcca reproduce``
command that the run's ``details.json`` records, checks that its split holds the images the
rankings rank, and reads the test images from ``--images-dir`` when given, never from a
folder a file records (the recorded ``--images-dir`` is named in a note, for the user to
give); without images the page shows image ids where thumbnails would be. Other corpora
go to :func:`kcca._report.rundir.load_run_corpus`.
"""

from __future__ import annotations

import dataclasses
import shlex
from dataclasses import dataclass
from pathlib import Path

from kcca.data._corpus import Corpus
from kcca.data._errors import DataError
from kcca._report.rundir import DEMO_NAME, RunFolder, load_run_corpus


@dataclass(frozen=True)
class RecordedCorpus:
    """The captions JSON (and image folder) of the command that made a run's rankings."""

    command: str
    corpus: Path
    images_dir: Path | None


def report_corpus(
    run: RunFolder,
    *,
    corpus_name: str | None = None,
    images_dir: str | Path | None = None,
    data_dir: str | Path | None = None,
    seed: int = 0,
    splits_dir: str | Path | None = None,
) -> Corpus:
    """The corpus of ``run``'s rankings: ``corpus_name`` (``--corpus``), else the captions
    JSON the run's recorded command names, else the corpus the rankings name."""
    name = corpus_name or run.corpus_name
    recorded = recorded_corpus(run)
    if corpus_name is not None and corpus_name.endswith(".json"):
        return _json_corpus(run, Path(corpus_name), images_dir, recorded)
    if corpus_name is None and recorded is not None:
        return _json_corpus(run, recorded.corpus, images_dir, recorded)
    if corpus_name is None and run.corpus_name.endswith(".json"):
        return _json_corpus(run, Path(run.corpus_name), images_dir, None)
    if images_dir is not None:
        raise DataError(
            f"--images-dir is the image folder of a captions JSON given with --corpus, and "
            f"the report reads corpus {name!r}",
            fix="drop --images-dir, or add --corpus FILE.json",
        )
    if not _rebuildable(name):
        raise DataError(
            f"the rankings in {run.root} rank corpus {name!r}, which the report cannot "
            "rebuild from its name, and the run records no captions JSON (kcca reproduce "
            "--corpus FILE.json): give the file the run was made on",
            fix=f"kcca report {shlex.quote(str(run.root))} --corpus FILE.json",
        )
    return load_run_corpus(
        name,
        data_dir=data_dir,
        seed=seed,
        splits_dir=splits_dir,
        source="--corpus" if corpus_name else str(run.rankings[0].path),
    )


def recorded_corpus(run: RunFolder) -> RecordedCorpus | None:
    """The ``--corpus FILE.json`` and ``--images-dir`` of the recorded ``kcca reproduce``
    command of a system of the rankings' corpus; relative paths are taken from the folder the
    command ran in when its ``--out`` tells it and they are there (else as given)."""
    for details in run.details:
        command = details.get("command")
        if details.get("corpus") != run.corpus_name or not isinstance(command, str):
            continue
        try:
            words = shlex.split(command)
        except ValueError:
            continue
        corpus = _option(words, "--corpus")
        if corpus is None or not corpus.endswith(".json"):
            continue
        base = _command_folder(_option(words, "--out"), run.root)
        images = _option(words, "--images-dir")
        return RecordedCorpus(
            command,
            _from(base, corpus),
            _from(base, images) if images is not None else None,
        )
    return None


def recorded_images_dir(run: RunFolder) -> Path | None:
    """The ``--images-dir`` of the run's recorded command, when that folder is there: named
    to the user, never read unless given again."""
    recorded = recorded_corpus(run)
    folder = recorded.images_dir if recorded is not None else None
    return folder if folder is not None and folder.is_dir() else None


def _option(words: list[str], flag: str) -> str | None:
    """The value of ``flag`` (``--flag VALUE`` or ``--flag=VALUE``) among ``words``."""
    for n, word in enumerate(words):
        if word == flag and n + 1 < len(words):
            return words[n + 1]
        if word.startswith(flag + "="):
            return word[len(flag) + 1 :]
    return None


def _command_folder(out: str | None, root: Path) -> Path | None:
    """The folder a command ran in, from its relative ``--out`` and the run folder."""
    if out is None or Path(out).is_absolute():
        return None
    resolved = root.resolve()
    for base in resolved.parents:
        if (base / out).resolve() == resolved:
            return base
    return None


def _from(base: Path | None, path: str) -> Path:
    """``path`` from ``base`` (the command's folder) when it is there, else as given."""
    p = Path(path)
    if base is None or p.is_absolute() or not (base / p).exists():
        return p
    return base / p


def _same(a: Path, b: Path) -> bool:
    return a.resolve() == b.resolve()


def _rebuildable(name: str) -> bool:
    """Whether :func:`kcca._report.rundir.load_run_corpus` rebuilds a corpus by its name."""
    return (
        name in ("flickr8k", "demo")
        or name.startswith("flickr8k-splits-")
        or DEMO_NAME.fullmatch(name) is not None
    )


def _report_command(run: RunFolder, corpus: Path | str) -> str:
    return f"kcca report {shlex.quote(str(run.root))} --corpus {shlex.quote(str(corpus))}"


def _json_corpus(
    run: RunFolder,
    path: Path,
    images_dir: str | Path | None,
    recorded: RecordedCorpus | None,
) -> Corpus:
    """The captions JSON ``path`` (checked against the rankings), with the test images from
    ``images_dir`` when given."""
    from kcca.data._json_splits import load_json_splits

    if not path.is_file():
        if recorded is not None and _same(path, recorded.corpus):
            raise DataError(
                f"the rankings in {run.root} were made on --corpus {path} (recorded command "
                f"`{recorded.command}`), and that captions JSON is not there from here",
                fix=f"give that file's path from here: `{_report_command(run, 'FILE.json')}`",
            )
        raise DataError(
            f"--corpus {path}: no such file (the captions JSON of corpus "
            f"{run.corpus_name!r} that the rankings in {run.root} rank)",
            fix=_other_file_fix(run, recorded),
        )
    corpus = load_json_splits(path)
    check_pool_images(run, corpus, path, recorded)
    if images_dir is None:
        return corpus
    return with_test_images(run, corpus, path, Path(images_dir))


def _other_file_fix(run: RunFolder, recorded: RecordedCorpus | None) -> str:
    """Report on the recorded captions JSON when it is there, else on the file named."""
    if recorded is not None and recorded.corpus.is_file():
        return _report_command(run, recorded.corpus)
    return f"give the captions JSON the run was made on: `{_report_command(run, 'FILE.json')}`"


def ranked_images(run: RunFolder) -> tuple[Path, list[str]]:
    """The images the run's first results file ranks, and that file (its compact results
    file when there is one: a fraction of the rankings file's size)."""
    from kcca.data._documents import read_json
    from kcca._evaluate.compact import read_compact

    entry = run.rankings[0]
    if entry.compact is not None:
        compact = read_compact(entry.compact)
        if "annotation" in compact.query_ids:
            return entry.compact, list(compact.query_ids["annotation"])
        return entry.compact, list(compact.candidate_ids["search"])
    tasks = read_json(entry.path).get("tasks") or {}
    annotation, search = tasks.get("annotation"), tasks.get("search")
    if isinstance(annotation, dict):
        return entry.path, list(annotation.get("rankings") or {})
    queries = search.get("rankings") if isinstance(search, dict) else None
    return entry.path, [c.rpartition("#")[0] for c in queries or {}]


def check_pool_images(
    run: RunFolder, corpus: Corpus, path: Path, recorded: RecordedCorpus | None
) -> None:
    """Refuse a captions JSON whose split is not the images the rankings rank."""
    source, ranked = ranked_images(run)
    if run.split not in corpus.splits:
        ours: list[str] = []
    else:
        ours = list(corpus.split(run.split))
    if set(ours) == set(ranked):
        return
    absent = [i for i in ranked if i not in set(ours)]
    shown = f"; not in it: {', '.join(absent[:3])}{' ...' if len(absent) > 3 else ''}"
    message = (
        f"{path}: its {run.split} split ({len(ours)} images) is not the pool that {source} "
        f"ranks ({len(ranked)} images of corpus {run.corpus_name!r}"
        f"{shown if absent else ''})"
    )
    if recorded is not None and _same(path, recorded.corpus):
        raise DataError(
            message + ": the file has changed since the run",
            fix=f"rank it again, from the folder the run was made in: `{_rerun(recorded)}`",
        )
    raise DataError(message, fix=_other_file_fix(run, recorded))


def _rerun(recorded: RecordedCorpus) -> str:
    """The recorded command with its options after ``reproduce`` (where every option
    belongs), and ``--force`` to rewrite the run's tables."""
    words = shlex.split(recorded.command)
    if "reproduce" in words[1:]:
        at = words.index("reproduce", 1)
        words = [words[0], "reproduce", *words[1:at], *words[at + 1 :]]
    return shlex.join(words if "--force" in words else [*words, "--force"])


def with_test_images(run: RunFolder, corpus: Corpus, path: Path, images_dir: Path) -> Corpus:
    """``corpus`` reading the images of the report's pool from ``images_dir`` (the folder
    its image ids are relative to); other splits' images are not needed."""
    from kcca.data._images import ImageFiles, check_image_file
    from kcca.data._paths import inside

    without = f"without images (ids for thumbnails): `{_report_command(run, path)}`"
    if not images_dir.is_dir():
        raise DataError(
            f"--images-dir {images_dir} is not a folder (the image folder of {path})",
            fix=f"give the folder the image ids of {path.name} are relative to, or report "
            f"{without}",
        )
    paths = {
        i: str(inside(images_dir, i, item=f"image id {i!r}", source=path))
        for i in corpus.split(run.split)
    }
    bad = [(i, why) for i, p in paths.items() if (why := check_image_file(p)) is not None]
    if bad:
        shown = ", ".join(f"{i} ({why})" for i, why in bad[:3]) + (" ..." if len(bad) > 3 else "")
        raise DataError(
            f"--images-dir {images_dir}: {len(bad)} of the {len(paths)} {run.split} images "
            f"of {path.name} are not image files there: {shown}",
            fix=f"give the folder the image ids of {path.name} are relative to, or report "
            f"{without}",
        )
    return dataclasses.replace(corpus, images=ImageFiles(paths), image_paths=paths)
