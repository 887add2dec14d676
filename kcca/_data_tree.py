"""Python objects as data: a JSON tree plus NumPy arrays, rebuilt with allowed classes only.

The one serialisation of the toolkit's own files (model files, :mod:`kcca._model.file_format`;
cache entries, :mod:`kcca._cache`): nothing in such a file is ever unpickled or called, so a file
whoever wrote it cannot run code. The tree is JSON: values stand for themselves, a JSON object
is a dict with str keys none of which starts with ``$``, unless it is a tagged node:
``$tuple``, ``$set``, ``$frozenset``, ``$items`` (any other dict, as ``[key, value]`` pairs),
``$counter``, ``$array``, ``$scalar`` (a numpy scalar), ``$dtype``, ``$csr`` (a scipy CSR
matrix), ``$object`` with ``$state`` (an instance of a class of the reader's allow-list, rebuilt
as ``cls.__new__(cls)`` plus its state; no other class is ever imported or called) and
``$rebuild`` (state rebuilt on load by a named function of the reader, e.g. the POS tagger).

Arrays are ``.npy`` members (``allow_pickle=False``); arrays of at most :data:`SMALL_BYTES`
share one pool member per dtype. :class:`Archive` reads such a zip with every member's size
checked against a limit before it is inflated.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from kcca.errors import DataError

#: arrays of at most this many bytes share one pool member per dtype
SMALL_BYTES = 4096
#: array dtype kinds a file may hold (no objects, no records)
DTYPE_KINDS = "biufcSU"
#: module paths that files written before a module became private hold -> its path now
#: (docs/design.md#public-api); a class name under an old path is read under the new one
OLD_MODULES: dict[str, str] = {
    "features.codebook": "features._codebook",
    "features.color": "features._color",
    "features.color_patches": "features._color_patches",
    "features.descriptors": "features._descriptors",
    "features.feature_types": "features._feature_types",
    "features.fisher": "features._fisher",
    "features.image_features": "features._image_features",
    "features.kernels.base": "features.kernels._base",
    "features.kernels.fisher": "features.kernels._fisher",
    "features.kernels.image": "features.kernels._image",
    "features.kernels.intersection": "features.kernels._intersection",
    "features.kernels.mixture": "features.kernels._mixture",
    "features.kernels.row_chunks": "features.kernels._row_chunks",
    "features.kernels.vector_functions": "features.kernels._vector_functions",
    "features.kernels.vectors": "features.kernels._vectors",
    "features.params": "features._params",
    "features.pyramid": "features._pyramid",
    "features.sift": "features._sift",
    "features.text.bow_kernel": "features.text._bow_kernel",
    "features.text.compounds": "features.text._compounds",
    "features.text.corpus_tokens": "features.text._corpus_tokens",
    "features.text.english_corpus": "features.text._english_corpus",
    "features.text.f1_similarity": "features.text._f1_similarity",
    "features.text.idf": "features.text._idf",
    "features.text.lemmatize": "features.text._lemmatize",
    "features.text.pipeline": "features.text._pipeline",
    "features.text.postag": "features.text._postag",
    "features.text.presets": "features.text._presets",
    "features.text.resources": "features.text._resources",
    "features.text.sequences": "features.text._sequences",
    "features.text.similarity_alignment": "features.text._similarity_alignment",
    "features.text.similarity_distributional": "features.text._similarity_distributional",
    "features.text.similarity_lin": "features.text._similarity_lin",
    "features.text.soft_trigram": "features.text._soft_trigram",
    "features.text.spelling": "features.text._spelling",
    "features.text.stopwords": "features.text._stopwords",
    "features.text.tagrank_kernel": "features.text._tagrank_kernel",
    "features.text.text_items": "features.text._text_items",
    "features.text.tokenize": "features.text._tokenize",
    "features.text.trigram_kernel": "features.text._trigram_kernel",
    "features.text.vocabulary": "features.text._vocabulary",
    "features.text.word_kernel": "features.text._word_kernel",
    "features.text.word_kernels": "features.text._word_kernels",
    "features.texture": "features._texture",
    "features.vectors_file": "features._vectors_file",
    "features.vectors_writer": "features._vectors_writer",
    "kcca.atomic_files": "kcca._atomic_files",
    "kcca.backend": "kcca._backend",
    "kcca.borda": "kcca._borda",
    "kcca.cache": "kcca._cache",
    "kcca.cache_audit": "kcca._cache_audit",
    "kcca.cache_entry": "kcca._cache_entry",
    "kcca.captions.bast": "kcca.captions._bast",
    "kcca.captions.bleu": "kcca.captions._bleu",
    "kcca.captions.cider": "kcca.captions._cider",
    "kcca.captions.coco_io": "kcca.captions._coco_io",
    "kcca.captions.content_selection": "kcca.captions._content_selection",
    "kcca.captions.evaluate": "kcca.captions._evaluate",
    "kcca.captions.flickr_st": "kcca.captions._flickr_st",
    "kcca.captions.human_agreement": "kcca.captions._human_agreement",
    "kcca.captions.image_ids": "kcca.captions._image_ids",
    "kcca.captions.keywords": "kcca.captions._keywords",
    "kcca.captions.meteor": "kcca.captions._meteor",
    "kcca.captions.meteor_engine": "kcca.captions._meteor_engine",
    "kcca.captions.registry": "kcca.captions._registry",
    "kcca.captions.rouge": "kcca.captions._rouge",
    "kcca.captions.scorer": "kcca.captions._scorer",
    "kcca.captions.tokenizer": "kcca.captions._tokenizer",
    "kcca.cli": "kcca._cli",
    "kcca.data.corpus": "kcca.data._corpus",
    "kcca.data.demo": "kcca.data._demo",
    "kcca.data.demo_grammar": "kcca.data._demo_grammar",
    "kcca.data.documents": "kcca.data._documents",
    "kcca.data.errors": "kcca.data._errors",
    "kcca.data.flickr8k": "kcca.data._flickr8k",
    "kcca.data.image_header": "kcca.data._image_header",
    "kcca.data.images": "kcca.data._images",
    "kcca.data.json_splits": "kcca.data._json_splits",
    "kcca.data.lines": "kcca.data._lines",
    "kcca.data.paths": "kcca.data._paths",
    "kcca.data.text_files": "kcca.data._text_files",
    "kcca.data_tree": "kcca._data_tree",
    "kcca.demo": "kcca._demo",
    "kcca.evaluate": "kcca._evaluate",
    "kcca.file_kinds": "kcca._file_kinds",
    "kcca.fingerprints": "kcca._fingerprints",
    "kcca.line_width": "kcca._line_width",
    "kcca.lowrank": "kcca._lowrank",
    "kcca.model": "kcca._model",
    "kcca.names": "kcca._names",
    "kcca.paper": "kcca._paper",
    "kcca.progress": "kcca._progress",
    "kcca.provenance": "kcca._provenance",
    "kcca.report": "kcca._report",
    "kcca.scoring": "kcca._scoring",
    "kcca.selection": "kcca._selection",
    "kcca.solver": "kcca._solver",
    "kcca.systems": "kcca._systems",
    "kcca.workers": "kcca._workers",
}


class UnknownClassError(ValueError):
    """A class name in a file that is not in the reader's allow-list."""


class Rebuild:
    """Placeholder for an attribute rebuilt on load by a named rebuilder."""

    def __init__(self, kind: str):
        self.kind = kind


def class_name(cls: type) -> str:
    """``module:qualname``, the name a file gives a class."""
    return f"{cls.__module__}:{cls.__qualname__}"


def current_class_name(name: str) -> str:
    """``module:qualname`` with an old module path (:data:`OLD_MODULES`) made the path now.

    Parameters
    ----------
    name : str
        A class name as a file holds it.

    Returns
    -------
    str
        The name with the longest old module path it starts with replaced; ``name`` itself
        when it starts with none.
    """
    module, sep, attr = name.partition(":")
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        new = OLD_MODULES.get(".".join(parts[:end]))
        if new is not None:
            return ".".join([new, *parts[end:]]) + sep + attr
    return name


class ClassTable:
    """The classes a kind of file may hold (``module:name`` strings; only their modules are
    ever imported) and the names that moved (old name -> new name)."""

    def __init__(
        self,
        allowed: frozenset[str],
        moved: Mapping[str, str] | None = None,
        needs: Mapping[str, Iterable[str]] | None = None,
    ):
        self.allowed = allowed
        self.moved = dict(moved or {})
        #: class -> the attributes its instances need besides a dataclass's fields
        self.needs = {k: frozenset(v) for k, v in (needs or {}).items()}
        self._classes: dict[str, type] = {}

    def current(self, name: str) -> str:
        """The name a class of a file has now: its module's path now, then its new name."""
        name = current_class_name(name)
        return self.moved.get(name, name)

    def resolve(self, name: str) -> type[object]:
        """An allowed class by ``module:name``; ``KeyError`` for any other name."""
        name = self.current(name)
        cls = self._classes.get(name)
        if cls is None:
            if name not in self.allowed:
                raise KeyError(name)
            module, _, attr = name.partition(":")
            cls = self._classes[name] = getattr(importlib.import_module(module), attr)
        return cls

    def missing(self, name: str, obj: Any) -> list[str]:
        """The attributes an instance of the class ``name`` needs that ``obj`` lacks: the
        fields of a dataclass (a field with a default has it as a class attribute) and the
        names :attr:`needs` lists for the class."""
        wanted = set(self.needs.get(self.current(name), ()))
        if dataclasses.is_dataclass(obj):
            wanted.update(f.name for f in dataclasses.fields(obj))
        return sorted(a for a in wanted if not hasattr(obj, a))

    def holds(self, cls: type) -> bool:
        try:
            return self.resolve(class_name(cls)) is cls
        except (KeyError, ImportError, AttributeError):
            return False


def object_state(obj: Any) -> dict:
    """What an instance stores: ``__getstate__()`` or its ``__dict__``."""
    getstate = getattr(obj, "__getstate__", None)
    state = getstate() if getstate is not None else vars(obj)
    if state is None:
        return {}
    if not isinstance(state, dict):
        raise TypeError(f"{type(obj).__name__} has a non-dict state")
    return dict(state)


class TreeEncoder:
    """Python values -> a JSON tree plus arrays (members and per-dtype pools).

    ``what`` names the file in messages ("a model file"); ``refused_fix`` is the fix of a
    value of a class the table does not hold; ``rebuilt``: class -> {attribute: rebuilder}
    for state that is not stored but rebuilt on load; arrays of at most ``small_bytes`` share
    one pool member per dtype."""

    def __init__(
        self,
        classes: ClassTable,
        *,
        what: str,
        allowed_name: str,
        refused_fix: str | None = None,
        rebuilt: Mapping[str, Mapping[str, str]] | None = None,
        small_bytes: int = SMALL_BYTES,
    ) -> None:
        self.classes = classes
        self.small_bytes = small_bytes
        self.what = what
        self.allowed_name = allowed_name
        self.refused_fix = refused_fix
        self.rebuilt = rebuilt or {}
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
            raise DataError(f"{path}: a reference cycle cannot be stored in {self.what}")
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
        name = class_name(t)
        if not self.classes.holds(t):
            raise DataError(
                f"{path}: a {name.replace(':', '.')} cannot be stored in {self.what} (only "
                f"the classes of {self.allowed_name})",
                fix=self.refused_fix,
            )
        state = object_state(x)
        for attr, kind in self.rebuilt.get(name, {}).items():
            if state.get(attr) is not None:
                state[attr] = Rebuild(kind)
        out = {}
        for k, v in state.items():
            if type(k) is not str or k.startswith("$"):
                raise DataError(f"{path}: {name} has an attribute name {k!r} that cannot be stored")
            out[k] = {"$rebuild": v.kind} if isinstance(v, Rebuild) else enc(v, f"{path}.{k}")
        return {"$object": name, "$state": out}

    def array(self, a: np.ndarray, path: str) -> Any:
        ref = self.seen.get(id(a))
        if ref is not None:
            return ref
        if a.dtype.kind not in DTYPE_KINDS or a.dtype.fields is not None:
            raise DataError(
                f"{path}: an array of dtype {a.dtype} cannot be stored in {self.what} "
                "(numbers, booleans and strings only)"
            )
        if a.nbytes <= self.small_bytes and a.flags.c_contiguous and a.dtype.kind in "biuf":
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


def encode_tree(encoder: TreeEncoder, obj: Any, root: str) -> tuple[bytes, dict, dict]:
    """``(tree JSON bytes, arrays, pool table)`` of ``obj``."""
    tree = encoder.encode(obj, root)
    arrays, pools = encoder.finish()
    return json.dumps(tree, ensure_ascii=True, separators=(",", ":")).encode(), arrays, pools


class TreeDecoder:
    """A JSON tree (``object_hook``) -> Python values, with only the table's classes (the pool
    table, dtype -> member, is checked against the arrays: ``ValueError``); ``rebuilders``:
    name -> ``f(obj, cache)`` for ``$rebuild`` state of class ``rebuilt``."""

    def __init__(
        self,
        arrays: Mapping[str, np.ndarray],
        pools: Any,  # the header's pool table, as read: checked here
        classes: ClassTable,
        *,
        cache: Any = None,
        rebuilt: Mapping[str, Mapping[str, str]] | None = None,
        rebuilders: Mapping[str, Callable[[Any, Any], Any]] | None = None,
    ) -> None:
        if not isinstance(pools, Mapping) or not all(
            isinstance(v, str) and v in arrays and arrays[v].ndim == 1 and arrays[v].dtype.str == k
            for k, v in pools.items()
        ):
            raise ValueError("bad pool table in the header")
        self.arrays = arrays
        self.pools = {k: arrays[v] for k, v in pools.items()}
        self.classes = classes
        self.cache = cache
        self.rebuilt = rebuilt or {}
        self.rebuilders = rebuilders or {}
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
            if value not in self.rebuilders:
                raise ValueError(f"unknown rebuilt state {value!r}")
            self.pending += 1
            return Rebuild(value)
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
            cls = self.classes.resolve(_str(name, "$object"))
        except KeyError:
            raise UnknownClassError(name) from None
        if not isinstance(state, dict):
            raise ValueError(f"the state of {name} is not a table")
        rebuild = {k: v for k, v in state.items() if isinstance(v, Rebuild)}
        for k, v in rebuild.items():
            if self.rebuilt.get(self.classes.current(name), {}).get(k) != v.kind:
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
            obj.__dict__[k] = self.rebuilders[v.kind](obj, self.cache)
        lacking = self.classes.missing(name, obj)
        if lacking:
            raise ValueError(f"the state of {name} lacks {', '.join(lacking)}")
        return obj

    def decode(self, tree: bytes) -> Any:
        """The object of a tree's JSON bytes."""
        return json.loads(tree.decode("utf-8"), object_hook=self.hook)


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


# ---------------------------------------------------------------------- archives
def write_archive(
    tmp: str | Path,
    members: Mapping[str, bytes],
    arrays: Mapping[str, np.ndarray],
    *,
    compress: int = 0,
) -> None:
    """A zip that ``np.load(allow_pickle=False)`` opens: the byte ``members`` first (in their
    order), then each array as ``<name>.npy``; ``compress`` 1-9 deflates."""
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    level = int(compress) if compress else None
    with zipfile.ZipFile(tmp, "w", compression=method, compresslevel=level, allowZip64=True) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        for name, a in arrays.items():
            with zf.open(name + ".npy", "w", force_zip64=True) as f:
                np.lib.format.write_array(f, np.asanyarray(a), allow_pickle=False)


class ArchiveTooLarge(ValueError):
    """A member of an archive inflates past the reader's limits (a zip bomb); ``total`` is
    the byte count all members inflate to, when that is what is over the limit."""

    def __init__(self, message: str, total: int | None = None):
        super().__init__(message)
        self.total = total


def check_member_sizes(
    zf: zipfile.ZipFile, *, max_total: int, max_ratio: float, min_ratio_bytes: int = 1 << 20
) -> None:
    """Refuse, before anything is inflated, an archive whose members would inflate to more
    than ``max_total`` bytes together, or a member larger than ``min_ratio_bytes`` that
    inflates more than ``max_ratio`` times its stored size (what no array of measured values
    does, and every zip bomb does). The zip module stops a member at its declared size."""
    infos = zf.infolist()
    total = sum(info.file_size for info in infos)
    if total > max_total:
        raise ArchiveTooLarge(
            f"its members inflate to {total:,} bytes, over the limit of {max_total:,}", total
        )
    for info in infos:
        stored = max(info.compress_size, 1)
        if info.file_size > min_ratio_bytes and info.file_size > max_ratio * stored:
            raise ArchiveTooLarge(
                f"member {info.filename} inflates {info.file_size / stored:,.0f} times "
                f"({info.compress_size:,} -> {info.file_size:,} bytes; at most {max_ratio:g} "
                "times is read)"
            )


def read_array_member(zf: zipfile.ZipFile, name: str) -> np.ndarray:
    """The ``.npy`` member ``name`` (no pickles); its header's shape and dtype are checked
    against the member's declared size before the array is allocated. A stored member is
    read straight from the archive's file (no copy through the zip reader)."""
    info = zf.getinfo(name)
    if info.compress_type == zipfile.ZIP_STORED and zf.fp is not None:
        fp = zf.fp
        fp.seek(info.header_offset)
        local = fp.read(30)
        if len(local) != 30 or local[:4] != b"PK\x03\x04":
            raise ValueError(f"member {name}: bad local header")
        start = info.header_offset + 30 + int.from_bytes(local[26:28], "little")
        start += int.from_bytes(local[28:30], "little")
        fp.seek(start)
        return _read_npy(fp, name, info.file_size, direct=True)
    with zf.open(info) as f:
        return _read_npy(f, name, info.file_size, direct=False)


def _read_npy(f: Any, name: str, size: int, *, direct: bool) -> np.ndarray:
    fmt = np.lib.format
    start = f.tell() if direct else 0
    version = fmt.read_magic(f)
    if version == (1, 0):
        shape, fortran, dtype = fmt.read_array_header_1_0(f)
    elif version in ((2, 0), (3, 0)):
        shape, fortran, dtype = fmt.read_array_header_2_0(f)
    else:
        raise ValueError(f"member {name}: unknown .npy version {version}")
    if dtype.hasobject or dtype.kind not in DTYPE_KINDS or dtype.fields is not None:
        raise ValueError(f"member {name} is not an array of numbers or strings")
    count = int(np.prod(shape, dtype=object))
    nbytes = count * dtype.itemsize
    header = (f.tell() - start) if direct else 0
    if nbytes > size - header:
        raise ValueError(f"member {name} declares {nbytes:,} bytes of array in {size:,} bytes")
    if direct:
        a = np.fromfile(f, dtype=dtype, count=count)
        if a.size != count:
            raise ValueError(f"member {name} is cut short")
    else:
        data = f.read(nbytes)
        if len(data) != nbytes:
            raise ValueError(f"member {name} is cut short")
        a = np.frombuffer(data, dtype=dtype).copy() if count else np.empty(0, dtype)
    return a.reshape(shape[::-1]).T if fortran else a.reshape(shape)
