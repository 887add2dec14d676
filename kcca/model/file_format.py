"""The model file format: data only, so loading a model never runs code from the file.

A model file is a zip archive that ``np.load(path, allow_pickle=False)`` opens (an ``.npz``):

* ``header.json`` (first member): magic, format version, toolkit and library versions, the
  spec, corpus and dev choices, the pool table and ``sha256``, a hash of the header (without
  itself), ``model.json`` and every array; read and checked before anything else;
* ``model.json``: the object tree as JSON (tagged nodes below);
* ``arr_N.npy``: the arrays (``.npy``, never pickled); arrays of at most :data:`SMALL_BYTES`
  are packed into one pool member per dtype (``pools`` in the header).

JSON values stand for themselves; a JSON object is a dict with str keys none of which starts
with ``$``, unless it is a tagged node: ``$tuple``, ``$set``, ``$frozenset``, ``$items`` (any
other dict, as ``[key, value]`` pairs), ``$counter``, ``$array``,
``$scalar`` (a numpy scalar), ``$dtype``, ``$csr`` (a scipy CSR matrix), ``$object`` with
``$state`` (an instance of a class of :data:`ALLOWED`, rebuilt as ``cls.__new__(cls)`` plus its
state; no other class is ever imported or called) and ``$rebuild`` (state rebuilt on load from
the saved configuration and NLTK data, e.g. the POS tagger). Anything else is refused with
:class:`ModelFormatError`. The hash detects damage, not forgery: safety comes from the format.
"""

from __future__ import annotations

import gc
import hashlib
import importlib
import json
import re
import shlex
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from kcca import __version__
from kcca.errors import DataError, FileVersionError

MAGIC = "kcca-fitted-system"
#: bump when the saved layout changes; files of another version must be refitted
FORMAT_VERSION = 2
HEADER = "header.json"
TREE = "model.json"
#: arrays of at most this many bytes share one pool member per dtype
SMALL_BYTES = 4096
#: the largest header.json read (a bigger one is not a model file)
MAX_HEADER_BYTES = 1 << 24
#: array dtype kinds a model file may hold (no objects, no records)
DTYPE_KINDS = "biufcSU"

#: the only classes a model file may hold, as ``module:name``
ALLOWED = frozenset(
    {
        "kcca.model.saved:FittedSystem",
        "kcca.systems.fitted:Projections",
        "kcca.model.saved:ImagePool",
        "kcca.model.saved:CaptionPool",
        "kcca.model.encoders:ImageEncoder",
        "kcca.model.encoders:TextEncoder",
        "kcca.systems.spec:SystemSpec",
        "kcca.systems.spec:KernelSpec",
        "kcca.systems.spec:GridSpec",
        "kcca.data.images:ImageFiles",
        "kcca.data.demo:DemoImages",
        "kcca.data.demo:SceneSpec",
        "kcca.data.demo:ObjectSpec",
        "kcca.data.demo_grammar:CaptionMeaning",
        "kcca.data.demo_grammar:Mention",
        "features.codebook:Codebook",
        "features.kernels.image:HistogramKernel",
        "features.kernels.image:PyramidKernel",
        "features.text.bow_kernel:BowKernel",
        "features.text.trigram_kernel:TrigramKernel",
        "features.text.tagrank_kernel:TagRankKernel",
        "features.text.tagrank_kernel:_SentenceSet",
        "features.text.idf:Idf",
        "features.text.word_kernel:WordKernel",
        "features.text.soft_trigram:SoftSequenceSet",
        "features.text.soft_trigram:CompiledItem",
        "features.text.soft_trigram:WordIds",
        "features.text.pipeline:CaptionPreprocessor",
        "features.text.compounds:CompoundNormalizer",
        "features.text.spelling:SpellingCorrector",
        "features.text.lemmatize:WordNetLemmatizer",
    }
)
#: classes that moved since files of this format version were written: old name -> new name
MOVED = {"kcca.model.saved:Projections": "kcca.systems.fitted:Projections"}
#: attributes not stored but rebuilt on load: class -> {attribute: rebuilder name}
REBUILT = {"features.text.pipeline:CaptionPreprocessor": {"tagger_": "pos-tagger"}}

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


class ModelFormatError(FileVersionError):
    """A model file of another format version, damaged, or not a model file at all."""


class _Rebuild:
    """Placeholder for an attribute rebuilt on load (:data:`REBUILT`)."""

    def __init__(self, kind: str):
        self.kind = kind


def _pos_tagger(obj: Any, cache: Any) -> Any:
    from features.text.postag import load_tagger

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
    demo = "`kcca query TEXT --model demo` refits the demo model itself"
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
def _class_name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


_CLASSES: dict[str, type] = {}


def _resolve(name: str) -> type[object]:
    """An allowed class by ``module:name`` (only modules of :data:`ALLOWED` are imported)."""
    name = MOVED.get(name, name)
    cls = _CLASSES.get(name)
    if cls is None:
        if name not in ALLOWED:
            raise KeyError(name)
        module, _, attr = name.partition(":")
        cls = _CLASSES[name] = getattr(importlib.import_module(module), attr)
    return cls


def _state(obj: Any) -> dict:
    getstate = getattr(obj, "__getstate__", None)
    state = getstate() if getstate is not None else vars(obj)
    if state is None:
        return {}
    if not isinstance(state, dict):
        raise TypeError(f"{type(obj).__name__} has a non-dict state")
    return dict(state)


class _Encoder:
    """Python values -> a JSON tree plus arrays (members and per-dtype pools)."""

    def __init__(self) -> None:
        self.members: dict[str, np.ndarray] = {}
        self.pools: dict[str, list[np.ndarray]] = {}
        self.pool_size: dict[str, int] = {}
        self.seen: dict[int, Any] = {}
        self.keep: list[Any] = []
        self.active: set[int] = set()

    def encode(self, x: Any, path: str) -> Any:
        t = type(x)
        if x is None or t in (bool, int, float, str):
            return x
        if t is np.ndarray:
            return self.array(x, path)
        if isinstance(x, np.generic):
            if x.dtype.kind not in "biufU":
                raise DataError(f"{path}: a numpy {x.dtype} scalar cannot be stored")
            return {"$scalar": [x.dtype.str, x.item()]}
        if isinstance(x, np.dtype):
            if x.kind not in DTYPE_KINDS:
                raise DataError(f"{path}: the dtype {x} cannot be stored")
            return {"$dtype": x.str}
        if id(x) in self.active:
            raise DataError(f"{path}: a reference cycle cannot be stored in a model file")
        self.active.add(id(x))
        try:
            return self._container(x, t, path)
        finally:
            self.active.discard(id(x))

    def _container(self, x: Any, t: type, path: str) -> Any:
        enc = self.encode
        if t is list:
            return [enc(v, f"{path}[{i}]") for i, v in enumerate(x)]
        if t is tuple:
            return {"$tuple": [enc(v, f"{path}[{i}]") for i, v in enumerate(x)]}
        if t is dict:
            if all(type(k) is str and not k.startswith("$") for k in x):
                return {k: enc(v, f"{path}[{k!r}]") for k, v in x.items()}
            return {
                "$items": [[enc(k, f"{path}.key"), enc(v, f"{path}[{k!r}]")] for k, v in x.items()]
            }
        if t is Counter:
            return {
                "$counter": [
                    [enc(k, f"{path}.key"), enc(v, f"{path}[{k!r}]")] for k, v in x.items()
                ]
            }
        if t in (set, frozenset):
            try:
                values = sorted(x)
            except TypeError:
                values = list(x)
            return {f"${t.__name__}": [enc(v, f"{path}[]") for v in values]}
        if t.__module__.startswith("scipy.sparse") and t.__name__ == "csr_matrix":
            return {
                "$csr": {
                    "data": self.array(x.data, path + ".data"),
                    "indices": self.array(x.indices, path + ".indices"),
                    "indptr": self.array(x.indptr, path + ".indptr"),
                    "shape": [int(n) for n in x.shape],
                }
            }
        name = _class_name(t)
        try:
            allowed = _resolve(name) is t
        except (KeyError, ImportError, AttributeError):
            allowed = False
        if not allowed:
            raise DataError(
                f"{path}: a {name.replace(':', '.')} cannot be stored in a model file (only "
                "the classes of kcca.model.file_format.ALLOWED)",
                fix="fit a system whose kernels are built in (kernels of plug-ins cannot be "
                "saved as model files); evaluate other systems with kcca reproduce",
            )
        state = _state(x)
        for attr, kind in REBUILT.get(name, {}).items():
            if state.get(attr) is not None:
                state[attr] = _Rebuild(kind)
        out = {}
        for k, v in state.items():
            if type(k) is not str or k.startswith("$"):
                raise DataError(f"{path}: {name} has an attribute name {k!r} that cannot be stored")
            out[k] = {"$rebuild": v.kind} if isinstance(v, _Rebuild) else enc(v, f"{path}.{k}")
        return {"$object": name, "$state": out}

    def array(self, a: np.ndarray, path: str) -> Any:
        ref = self.seen.get(id(a))
        if ref is not None:
            return ref
        if a.dtype.kind not in DTYPE_KINDS or a.dtype.fields is not None:
            raise DataError(
                f"{path}: an array of dtype {a.dtype} cannot be stored in a model "
                "file (numbers, booleans and strings only)"
            )
        if a.nbytes <= SMALL_BYTES and a.flags.c_contiguous and a.dtype.kind in "biuf":
            key = a.dtype.str
            start = self.pool_size.get(key, 0)
            self.pools.setdefault(key, []).append(a.reshape(-1))
            self.pool_size[key] = start + a.size
            ref = {"$array": [key, start, list(a.shape)]}
        else:
            name = f"arr_{len(self.members)}"
            self.members[name] = a
            ref = {"$array": name}
        self.seen[id(a)] = ref
        self.keep.append(a)
        return ref

    def finish(self) -> tuple[dict[str, np.ndarray], dict[str, str]]:
        """All members, pools included, and the pool table (dtype -> member)."""
        pools = {}
        for key, parts in self.pools.items():
            name = f"arr_{len(self.members)}"
            self.members[name] = np.concatenate(parts).astype(np.dtype(key), copy=False)
            pools[key] = name
        return self.members, pools


# ---------------------------------------------------------------------- decode
class _Decoder:
    """A JSON tree (``object_hook``) -> Python values, with only allowed classes."""

    def __init__(
        self, arrays: Mapping[str, np.ndarray], pools: Mapping[str, str], cache: Any
    ) -> None:
        self.arrays = arrays
        self.pools = {k: arrays[v] for k, v in pools.items()}
        self.cache = cache
        self.pending = 0

    def hook(self, node: dict) -> Any:
        if len(node) > 2:
            return node
        tag = next(iter(node), "")
        if not tag.startswith("$"):
            return node
        if tag == "$object":
            if set(node) != {"$object", "$state"}:
                raise ValueError(f"malformed object node with keys {sorted(node)}")
            return self.instance(node["$object"], node["$state"])
        if len(node) != 1:
            raise ValueError(f"malformed node with keys {sorted(node)}")
        value = node[tag]
        if tag == "$tuple":
            return tuple(_list(value, tag))
        if tag == "$set":
            return set(_list(value, tag))
        if tag == "$frozenset":
            return frozenset(_list(value, tag))
        if tag == "$items":
            return dict(_pairs(value, tag))
        if tag == "$counter":
            return Counter(dict(_pairs(value, tag)))
        if tag == "$array":
            return self.array(value)
        if tag == "$scalar":
            dtype, v = _list(value, tag)
            dt = np.dtype(_str(dtype, tag))
            if (
                dt.kind not in "biufU"
                or type(v) not in (bool, int, float, str)
                or (dt.kind == "U") != (type(v) is str)
            ):
                raise ValueError(f"bad numpy scalar {value!r}")
            return dt.type(v)
        if tag == "$dtype":
            dt = np.dtype(_str(value, tag))
            if dt.kind not in DTYPE_KINDS:
                raise ValueError(f"dtype {dt} is not allowed")
            return dt
        if tag == "$csr":
            import scipy.sparse as sp

            if not isinstance(value, dict) or set(value) != {"data", "indices", "indptr", "shape"}:
                raise ValueError("malformed $csr node")
            return sp.csr_matrix(
                (value["data"], value["indices"], value["indptr"]),
                shape=tuple(int(n) for n in _list(value["shape"], tag)),
            )
        if tag == "$rebuild":
            if value not in _REBUILDERS:
                raise ValueError(f"unknown rebuilt state {value!r}")
            self.pending += 1
            return _Rebuild(value)
        raise ValueError(f"unknown tag {tag!r}")

    def array(self, ref: Any) -> np.ndarray:
        if isinstance(ref, str):
            if ref not in self.arrays:
                raise ValueError(f"unknown array member {ref!r}")
            return self.arrays[ref]
        key, start, shape = _list(ref, "$array")
        pool = self.pools.get(key)
        shape = tuple(_list(shape, "$array"))
        if (
            pool is None
            or type(start) is not int
            or not all(type(n) is int and n >= 0 for n in shape)
        ):
            raise ValueError(f"bad pooled array reference {ref!r}")
        size = int(np.prod(shape, dtype=np.int64))
        if start < 0 or start + size > pool.shape[0]:
            raise ValueError(f"pooled array reference {ref!r} is out of range")
        return pool[start : start + size].reshape(shape).copy()

    def instance(self, name: Any, state: Any) -> Any:
        try:
            cls = _resolve(_str(name, "$object"))
        except KeyError:
            raise UnknownClassError(name) from None
        if not isinstance(state, dict):
            raise ValueError(f"the state of {name} is not a table")
        rebuild = {k: v for k, v in state.items() if isinstance(v, _Rebuild)}
        for k, v in rebuild.items():
            if REBUILT.get(name, {}).get(k) != v.kind:
                raise ValueError(f"{name}.{k} cannot be rebuilt as {v.kind!r}")
            state[k] = None
        obj: Any = cls.__new__(cls)
        setstate = getattr(cls, "__setstate__", None)
        if setstate is not None:
            obj.__setstate__(state)
        else:
            obj.__dict__.update(state)
        for k, v in rebuild.items():
            self.pending -= 1
            obj.__dict__[k] = _REBUILDERS[v.kind](obj, self.cache)
        return obj


class UnknownClassError(ValueError):
    """A class name in a file that is not in :data:`ALLOWED`."""


def _list(value: Any, tag: str) -> list:
    if type(value) is not list:
        raise ValueError(f"{tag} must hold a list")
    return value


def _str(value: Any, tag: str) -> str:
    if type(value) is not str:
        raise ValueError(f"{tag} must hold a string")
    return value


def _pairs(value: Any, tag: str) -> list[tuple[Any, Any]]:
    out = []
    for pair in _list(value, tag):
        if type(pair) is not list or len(pair) != 2:
            raise ValueError(f"{tag} must hold [key, value] pairs")
        out.append((pair[0], pair[1]))
    return out


def _without_gc(build: Callable[[], Any]) -> Any:
    """``build()`` with the cyclic garbage collector paused (a tree makes no cycles; the
    collector would rescan the growing tree many times)."""
    was = gc.isenabled()
    gc.disable()
    try:
        return build()
    finally:
        if was:
            gc.enable()


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
    from kcca.cache import atomic_write

    enc = _Encoder()
    root = enc.encode(obj, "model")
    arrays, pools = enc.finish()
    tree = json.dumps(root, ensure_ascii=True, separators=(",", ":")).encode()
    head = {**header, "magic": MAGIC, "format_version": FORMAT_VERSION, "pools": pools}
    head["sha256"] = content_hash(head, tree, arrays)
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    level = int(compress) if compress else None

    def dump(tmp: str) -> None:
        with zipfile.ZipFile(
            tmp, "w", compression=method, compresslevel=level, allowZip64=True
        ) as zf:
            zf.writestr(HEADER, json.dumps(head, indent=1, sort_keys=True))
            zf.writestr(TREE, tree)
            for name, a in arrays.items():
                with zf.open(name + ".npy", "w", force_zip64=True) as f:
                    np.lib.format.write_array(f, np.asanyarray(a), allow_pickle=False)

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
        raise DataError(
            f"model file {path} does not exist",
            fix="fit one with `kcca fit-model --system BoW5 --out "
            f"{shlex.quote(str(path))}`, or use the demo model: "
            "`kcca query TEXT --model demo`",
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
    if info.file_size > MAX_HEADER_BYTES:
        raise _error(path, f"{HEADER} is too large: not a kcca model file")
    try:
        raw = npz.zip.read(HEADER)
        header = json.loads(raw.decode("utf-8"))
    except (zipfile.BadZipFile, OSError, EOFError, UnicodeDecodeError, ValueError) as exc:
        raise _error(
            path, f"unreadable {HEADER} ({exc}): damaged or not a kcca model file"
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
            members = npz.zip.namelist()
            odd = [m for m in members if m not in (HEADER, TREE) and not _MEMBER.fullmatch(m)]
            if odd or TREE not in members:
                raise ValueError(f"unexpected members {odd[:3]}" if odd else f"no {TREE}")
            tree = npz.zip.read(TREE)
            arrays = {}
            for m in members:
                if m in (HEADER, TREE):
                    continue
                a = npz[m[:-4]]
                if not isinstance(a, np.ndarray) or a.dtype.kind not in DTYPE_KINDS:
                    raise ValueError(f"member {m} is not an array of numbers or strings")
                arrays[m[:-4]] = a
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, KeyError) as exc:
            raise _error(
                path, f"damaged or truncated model file ({exc})", header, damaged=True
            ) from None
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
        if not isinstance(pools, dict) or not all(
            isinstance(v, str) and v in arrays and arrays[v].ndim == 1 and arrays[v].dtype.str == k
            for k, v in pools.items()
        ):
            raise ValueError("bad pool table in the header")
        dec = _Decoder(arrays, pools, cache)
        obj = _without_gc(lambda: json.loads(tree.decode("utf-8"), object_hook=dec.hook))
    except UnknownClassError as exc:
        raise _error(
            path,
            f"refused: it names the class {str(exc)!r}, which a kcca model "
            "file may not hold (only kcca.model.file_format.ALLOWED)",
            header,
        ) from None
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError) as exc:
        raise _error(path, f"malformed model tree ({type(exc).__name__}: {exc})", header) from None
    if dec.pending:
        raise _error(path, "malformed model tree (state to rebuild outside its object)", header)
    return header, obj
