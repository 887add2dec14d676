"""The model file format: data only, so loading a model never runs code from the file.

A model file is a zip archive that ``np.load(path, allow_pickle=False)`` opens (an ``.npz``):

* ``header.json`` (first member): magic, format version, toolkit and library versions, the
  spec, corpus and dev choices, the pool table and ``sha256``, a hash of the header (without
  itself), ``model.json`` and every array; read and checked before anything else;
* ``model.json``: the object tree as JSON (tagged nodes below);
* ``arr_N.npy``: the arrays (``.npy``, never pickled); arrays of at most :data:`SMALL_BYTES`
  are packed into one pool member per dtype (``pools`` in the header).

The tree and arrays are :mod:`kcca._data_tree`'s: only the classes of :data:`ALLOWED` are
rebuilt (as ``cls.__new__(cls)`` plus their state; no other class is ever imported or called),
and the POS tagger is ``$rebuild`` state, made again on load from the saved configuration and
NLTK data. Anything else is refused with :class:`ModelFormatError`. Member sizes are checked
before anything is inflated (``MAX_MODEL_BYTES`` and ``MAX_INFLATION`` of :mod:`kcca.limits`),
and every setting that drives work is bounded when the model is loaded (:mod:`kcca._model.saved`).
The hash detects damage, not forgery: safety comes from the format.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import zipfile
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from kcca import __version__
from kcca._data_tree import (
    ArchiveTooLarge,
    ClassTable,
    TreeDecoder,
    TreeEncoder,
    UnknownClassError,
    check_member_sizes,
    encode_tree,
    read_array_member,
    write_archive,
)
from kcca.errors import FileVersionError
from kcca.limits import (
    MAX_INFLATION,
    MAX_MODEL_BYTES_ENV,
    MAX_MODEL_HEADER_BYTES,
    current_limit,
)

MAGIC = "kcca-fitted-system"
#: bump when the saved layout changes; files of another version must be refitted
FORMAT_VERSION = 2
HEADER = "header.json"
TREE = "model.json"

#: the only classes a model file may hold, as ``module:name``
ALLOWED = frozenset(
    {
        "kcca._model.saved:FittedSystem",
        "kcca._systems.fitted:Projections",
        "kcca._model.saved:ImagePool",
        "kcca._model.saved:CaptionPool",
        "kcca._model.encoders:ImageEncoder",
        "kcca._model.encoders:TextEncoder",
        "kcca._model.vectors:VectorsEncoder",
        "kcca._systems.spec:SystemSpec",
        "kcca._systems.spec:KernelSpec",
        "kcca._systems.spec:GridSpec",
        "kcca.data._images:ImageFiles",
        "kcca.data._demo:DemoImages",
        "kcca.data._demo:SceneSpec",
        "kcca.data._demo:ObjectSpec",
        "kcca.data._demo_grammar:CaptionMeaning",
        "kcca.data._demo_grammar:Mention",
        "features._codebook:Codebook",
        "features.kernels._image:HistogramKernel",
        "features.kernels._image:PyramidKernel",
        "features.text._bow_kernel:BowKernel",
        "features.text._trigram_kernel:TrigramKernel",
        "features.text._tagrank_kernel:TagRankKernel",
        "features.text._tagrank_kernel:_SentenceSet",
        "features.text._idf:Idf",
        "features.text._word_kernel:WordKernel",
        "features.text._soft_trigram:SoftSequenceSet",
        "features.text._soft_trigram:CompiledItem",
        "features.text._soft_trigram:WordIds",
        "features.text._pipeline:CaptionPreprocessor",
        "features.text._compounds:CompoundNormalizer",
        "features.text._spelling:SpellingCorrector",
        "features.text._lemmatize:WordNetLemmatizer",
    }
)
#: what instances of the classes of :data:`ALLOWED` need besides a dataclass's fields: the
#: attributes of the other classes, and the fitted attributes every ``fit`` of an estimator
#: sets; a file whose state lacks one is refused when it is read
NEEDS = {
    "features._codebook:Codebook": ("cluster_centers_", "n_features_in_"),
    "features.kernels._image:HistogramKernel": ("train_items_", "train_matrix_"),
    "features.kernels._image:PyramidKernel": ("train_items_", "train_matrix_"),
    "features.text._bow_kernel:BowKernel": (
        "idf_",
        "train_features_",
        "columns_",
        "train_self_",
        "train_items_",
    ),
    "features.text._trigram_kernel:TrigramKernel": ("idf_", "train_self_", "train_items_"),
    "features.text._tagrank_kernel:TagRankKernel": (
        "word_ids_",
        "position_cdf_",
        "train_set_",
        "omega_",
        "omega_prime_",
        "train_items_",
    ),
    "features.text._pipeline:CaptionPreprocessor": (
        "compounds_",
        "speller_",
        "lemmatizer_",
        "stop_words_",
        "corrections_",
        "merges_",
        "n_fit_captions_",
    ),
    "features.text._idf:Idf": ("n_documents_", "document_frequency_", "_log_n"),
    "features.text._soft_trigram:WordIds": ("n_kernel", "base", "extra"),
    "features.text._tagrank_kernel:_SentenceSet": (
        "item_ptr",
        "sent_ptr",
        "ids",
        "r",
        "a",
        "r_sum",
        "a_sum",
    ),
    "features.text._lemmatize:WordNetLemmatizer": ("fallback",),
    "kcca.data._demo:DemoImages": ("specs", "image_size", "meanings"),
    "kcca.data._images:ImageFiles": ("paths",),
}
#: classes that moved since files of this format version were written: old name -> new name
MOVED = {"kcca._model.saved:Projections": "kcca._systems.fitted:Projections"}
#: attributes not stored but rebuilt on load: class -> {attribute: rebuilder name}
REBUILT = {"features.text._pipeline:CaptionPreprocessor": {"tagger_": "pos-tagger"}}

_ZIP_MAGIC = b"PK\x03\x04"
_MEMBER = re.compile(r"arr_[0-9]+\.npy")
#: first bytes of a pickle (protocol 2+), or of joblib's compressed files (zlib, gzip, bz2,
#: xz, lzma, lz4): the old format, never unpickled here
_OLD_MAGICS = (
    b"\x80",
    b"x\x01",
    b"x\x5e",
    b"x\x9c",
    b"x\xda",
    b"ZF",
    b"\x1f\x8b",
    b"BZh",
    b"\xfd7zXZ",
    b"\x5d\x00\x00",
    b"\x04\x22\x4d\x18",
)


def max_model_bytes() -> int:
    """The byte count in ``$KCCA_MAX_MODEL_BYTES``, else the default of ``MAX_MODEL_BYTES``
    (:mod:`kcca.limits`)."""
    return current_limit(MAX_MODEL_BYTES_ENV)


class ModelFormatError(FileVersionError):
    """A model file of another format version, damaged, or not a model file at all."""


def _pos_tagger(obj: Any, cache: Any) -> Any:
    from features.text._postag import load_tagger

    return load_tagger(obj.tagger_config(), cache=cache)


_REBUILDERS: dict[str, Callable[[Any, Any], Any]] = {"pos-tagger": _pos_tagger}


# ---------------------------------------------------------------------- fixes
def refit_fix(path: str | Path, header: Mapping[str, Any] | None = None) -> str:
    """The command that refits a model (only options of ``kcca fit-model``)."""
    p = Path(path)
    out = p.name[: -len(p.suffix)] if p.suffix in (".joblib", ".pkl", ".pickle") else p.name
    out = shlex.quote(
        str(
            p.with_name(out if out.endswith(".kcca.npz") else out + ".kcca.npz")
            if not p.name.endswith(".kcca.npz")
            else p
        )
    )
    spec = (header or {}).get("spec") if isinstance(header, Mapping) else None
    corpus = str((header or {}).get("corpus", "")) if isinstance(header, Mapping) else ""
    name = None
    if isinstance(spec, Mapping):
        name = spec.get("short_name") or spec.get("name")
    demo = "the demo model (model name demo) is refitted by kcca itself"
    if name in ("TRI5", "BoW5") and corpus.startswith("demo"):
        return (
            f"refit it with this kcca: `kcca fit-model --demo --demo-system {name} "
            f"--out {out}`; {demo}"
        )
    if isinstance(name, str) and name:
        return (
            f"refit it with this kcca: `kcca fit-model --system {shlex.quote(name)} "
            f"--out {out}`, or `kcca fit-model --experiment FILE --out {out}` with the "
            "experiment file it came from"
        )
    return (
        f"refit it with this kcca, naming the system it was fitted with: "
        f"`kcca fit-model --system BoW5 --out {out}`, "
        f"`kcca fit-model --experiment FILE --out {out}` or "
        f"`kcca fit-model --demo --out {out}`; {demo}"
    )


def _error(
    path: Path, message: str, header: Mapping[str, Any] | None = None, *, damaged: bool = False
) -> ModelFormatError:
    fix = refit_fix(path, header)
    if damaged:
        fix = "copy the file again from its source, or " + fix
    return ModelFormatError(f"{path}: {message}", fix=fix)


# ---------------------------------------------------------------------- encode
#: the classes a model file may hold, and those that moved
CLASSES = ClassTable(ALLOWED, MOVED, NEEDS)
#: the fix of a value that a model file cannot hold
_REFUSED_FIX = (
    "fit a system whose kernels are built in (kernels of plug-ins cannot be "
    "saved as model files); evaluate other systems with kcca reproduce"
)


# ---------------------------------------------------------------------- hashing
def _buffer(a: np.ndarray) -> tuple[str, Any]:
    if a.flags.c_contiguous:
        return "C", a.data
    if a.flags.f_contiguous:
        return "F", a.T.data
    return "C", np.ascontiguousarray(a).data


def content_hash(header: Mapping[str, Any], tree: bytes, arrays: Mapping[str, np.ndarray]) -> str:
    """sha256 of the header (less ``sha256``), the tree's JSON bytes and every array."""
    h = hashlib.sha256()
    h.update(
        json.dumps({k: v for k, v in header.items() if k != "sha256"}, sort_keys=True).encode()
    )
    h.update(b"\0")
    h.update(tree)
    for name in sorted(arrays):
        a = arrays[name]
        order, buf = _buffer(a)
        h.update(json.dumps([name, a.dtype.str, list(a.shape), order]).encode())
        h.update(buf)
    return h.hexdigest()


# ---------------------------------------------------------------------- files
def write(path: str | Path, header: Mapping[str, Any], obj: Any, *, compress: int = 0) -> Path:
    """Write ``obj`` with ``header`` (atomically); ``compress`` 1-9 deflates the members."""
    from kcca._cache import atomic_write

    enc = TreeEncoder(
        CLASSES,
        what="a model file",
        allowed_name="kcca._model.file_format.ALLOWED",
        refused_fix=_REFUSED_FIX,
        rebuilt=REBUILT,
    )
    tree, arrays, pools = encode_tree(enc, obj, "model")
    head = {**header, "magic": MAGIC, "format_version": FORMAT_VERSION, "pools": pools}
    head["sha256"] = content_hash(head, tree, arrays)
    members = {HEADER: json.dumps(head, indent=1, sort_keys=True).encode(), TREE: tree}

    def dump(tmp: str) -> None:
        write_archive(tmp, members, arrays, compress=compress)

    return atomic_write(Path(path), dump)


def _sniff(path: Path) -> None:
    """Refuse what is not a zip before any parser sees it (an old joblib model: refit)."""
    with open(path, "rb") as f:
        start = f.read(8)
    if start.startswith(_ZIP_MAGIC):
        return
    if start.startswith(_OLD_MAGICS):
        raise _error(
            path,
            "a model in the old joblib/pickle format; this kcca "
            f"{__version__} reads data-only model files and never unpickles one",
        )
    if not start:
        raise _error(path, "the file is empty: not a kcca model file")
    raise _error(path, "not a kcca model file (no zip archive)")


def _open(path: Path) -> Any:
    if not path.is_file():
        from kcca._file_kinds import check_regular_file, path_kind

        missing = path_kind(path) == "missing"
        out = shlex.quote(str(path)) if missing else "bow5.kcca.npz"
        check_regular_file(
            path,
            "model file",
            fix=f"fit one with `kcca fit-model --system BoW5 --out {out}`, or use the demo model: "
            "--model demo",
        )
    _sniff(path)
    try:
        return np.load(path, allow_pickle=False)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise _error(
            path,
            f"truncated or damaged zip archive ({exc}): not a complete kcca model file",
            damaged=True,
        ) from None


def _header(path: Path, npz: Any) -> dict[str, Any]:
    try:
        info = npz.zip.getinfo(HEADER)
    except KeyError:
        raise _error(path, f"a zip archive without {HEADER}: not a kcca model file") from None
    if info.file_size > MAX_MODEL_HEADER_BYTES:
        raise _error(path, f"{HEADER} is too large: not a kcca model file")
    try:
        raw = npz.zip.read(HEADER)
        header = json.loads(raw.decode("utf-8"))
    except (zipfile.BadZipFile, OSError, EOFError, UnicodeDecodeError, ValueError) as exc:
        raise _error(
            path, f"unreadable {HEADER} ({exc}): damaged or not a kcca model file"
        ) from None
    except RecursionError:
        raise _error(
            path, f"{HEADER} is JSON nested too deeply to read: damaged or not a kcca model file"
        ) from None
    if not isinstance(header, dict) or header.get("magic") != MAGIC:
        raise _error(path, "not a kcca model file (wrong magic in its header)")
    found = header.get("format_version")
    if found != FORMAT_VERSION:
        raise _error(
            path,
            f"a kcca model of format version {found!r} (written by kcca "
            f"{header.get('kcca_version', '?')}); this kcca {__version__} reads "
            f"format version {FORMAT_VERSION}: refit the model",
            header,
        )
    return header


def read_header(path: str | Path) -> dict[str, Any]:
    """The checked header of a model file (the arrays are not read)."""
    path = Path(path)
    npz = _open(path)
    with npz:
        return _header(path, npz)


def read(path: str | Path, *, cache: Any = None) -> tuple[dict[str, Any], Any]:
    """``(header, object)`` of a model file: header checked first, then the content hash,
    then the tree decoded with the allowed classes only. ``cache`` serves rebuilt state (the
    POS tagger). Every problem is a :class:`ModelFormatError` naming the file."""
    path = Path(path)
    npz = _open(path)
    with npz:
        header = _header(path, npz)
        try:
            check_member_sizes(npz.zip, max_total=max_model_bytes(), max_ratio=MAX_INFLATION)
        except ArchiveTooLarge as exc:
            fix = refit_fix(path, header)
            if exc.total is not None:
                fix = (
                    f"if you trust the file and have the memory, raise the limit: "
                    f"`export {MAX_MODEL_BYTES_ENV}={exc.total}`; else " + fix
                )
            raise ModelFormatError(f"{path}: refused: {exc}", fix=fix) from None
        try:
            members = npz.zip.namelist()
            odd = [m for m in members if m not in (HEADER, TREE) and not _MEMBER.fullmatch(m)]
            if odd or TREE not in members:
                raise ValueError(f"unexpected members {odd[:3]}" if odd else f"no {TREE}")
            tree = npz.zip.read(TREE)
            arrays = {}
            for m in members:
                if m in (HEADER, TREE):
                    continue
                arrays[m[:-4]] = read_array_member(npz.zip, m)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, KeyError, MemoryError) as exc:
            raise _error(
                path, f"damaged or truncated model file ({exc})", header, damaged=True
            ) from None
    for name, a in arrays.items():
        if a.dtype.kind in "fc" and not np.isfinite(a).all():
            raise _error(
                path,
                f"array {name} holds NaN or infinite values, which no fitted model has",
                header,
                damaged=True,
            )
    if content_hash(header, tree, arrays) != header.get("sha256"):
        raise _error(
            path,
            "the content does not match the hash in its header: the file "
            "was damaged or modified after it was written",
            header,
            damaged=True,
        )
    try:
        pools = header.get("pools")
        dec = TreeDecoder(
            arrays, pools, CLASSES, cache=cache, rebuilt=REBUILT, rebuilders=_REBUILDERS
        )
        obj = dec.decode(tree)
    except UnknownClassError as exc:
        raise _error(
            path,
            f"refused: it names the class {str(exc)!r}, which a kcca model "
            "file may not hold (only kcca._model.file_format.ALLOWED)",
            header,
        ) from None
    except (
        ValueError,
        TypeError,
        KeyError,
        AttributeError,
        IndexError,
        RecursionError,
        MemoryError,
    ) as exc:
        raise _error(path, f"malformed model tree ({type(exc).__name__}: {exc})", header) from None
    if dec.pending:
        raise _error(path, "malformed model tree (state to rebuild outside its object)", header)
    return header, obj
