"""Meteor's paraphrase table (``data/paraphrase-en.gz``) as a compact, cached phrase trie.

Meteor 1.5's paraphrase stage (Denkowski & Lavie 2014, Section 2; the table was pivoted from
parallel text, Bannard & Callison-Burch 2005) matches a phrase of one segment with a phrase
of the other that the table lists as its paraphrase. The gzip file holds 5.27 million
entries of three lines each: a probability (unused by the jar), a phrase of 1-7 words and
one paraphrase. The jar loads it into a word trie on every start (most of its start-up
time). :func:`build_index` reads it once into numpy arrays that the project cache keeps
under the file's SHA-256 (:mod:`kcca.captions._meteor_engine.resources`):

* ``vocab``: the 43k words of the table (word id = position);
* a trie over every phrase and paraphrase, stored level by level: a node of depth ``d`` is
  ``level_offsets[d] + k`` where ``k`` is the rank of its key ``parent * n_words + word``
  in the sorted ``level_keys[level_offsets[d]:level_offsets[d + 1]]`` (the root is node 0),
  so that a phrase is one node and two phrases are equal exactly when their nodes are;
* ``phrase_nodes`` (sorted): the nodes of the phrases that have paraphrases;
  ``entry_offsets`` their entry ranges; ``entry_para``: the paraphrase node of each entry,
  in the file's order within a phrase (the order in which the jar's trie emits them).

:mod:`.arrays` then looks up every n-gram of the segments of one scoring call at once and
keeps only the entries whose phrase *and* paraphrase both occur in those segments: no other
entry can ever produce a match.
"""

from __future__ import annotations

import gzip
import os
import zlib
from functools import cached_property

import numpy as np

from kcca.errors import DataError

#: bump when the index layout or the parser's checks change (part of the cache key)
INDEX_VERSION = 3
#: deflate expands by at most this factor: a larger size in a gzip trailer is damage
DEFLATE_MAX_RATIO = 1032
#: the longest phrase of the English table (the trie is never deeper)
MAX_PHRASE_WORDS = 7


class ParaphraseTableError(DataError):
    """The paraphrase table cannot be read as Meteor's: not gzip, truncated, or not the
    three-line entries (probability, phrase, paraphrase) of the module docstring."""

    fix = (
        "restore the table that ships with the jar: `pip install --force-reinstall --no-deps "
        "pycocoevalcap==1.2` (meteor-1.5.jar and data/paraphrase-en.gz), or point "
        "$KCCA_METEOR_JAR to a meteor-1.5.jar with an intact data/paraphrase-en.gz beside it"
    )


#: what the parser's status codes mean (``line`` is the 1-based line it stopped at)
_PARSE_ERRORS = {
    1: "two different words share a hash, so the index cannot be built",
    2: "line {line} has more than 255 words",
    3: "more entries than the file has lines for",
    4: "more than 131,072 distinct words",
    5: "line {line} should be a probability (a number) and is not: not a Meteor paraphrase "
    "table, or its lines are shifted",
    6: "the file ends inside an entry ({line} lines, not a multiple of 3): truncated?",
}


def _offsets(lengths: np.ndarray) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)


def concatenated_ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(s, e)`` for each pair (vectorised)."""
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    offs = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    return np.repeat(starts - offs, lengths) + np.arange(total)


#: keys below this many (times the number of keys) are ranked through a dense table
_DENSE_KEYS_PER_KEY = 4


def _unique_inverse(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(key, return_inverse=True)`` of unsigned integer keys, without a comparison
    sort: through a table of every key value when the largest key is small (the one-word
    level: word ids), else by a least-significant-digit radix sort on 16-bit digits (NumPy's
    stable sort of 16-bit integers is a radix sort: each pass is linear). The table build
    sorts about ten million keys per level; this is several times faster than ``np.unique``."""
    if key.size == 0:
        return key.copy(), np.zeros(0, np.int64)
    top = int(key.max())
    if top < _DENSE_KEYS_PER_KEY * key.size:
        present = np.zeros(top + 1, bool)
        present[key] = True
        rank = np.cumsum(present, dtype=np.int64) - 1
        return np.flatnonzero(present).astype(key.dtype), rank[key]
    order = np.argsort((key & np.uint64(0xFFFF)).astype(np.uint16), kind="stable")
    shift = 16
    while top >> shift:
        digit = ((key[order] >> np.uint64(shift)) & np.uint64(0xFFFF)).astype(np.uint16)
        order = order[np.argsort(digit, kind="stable")]
        shift += 16
    ordered = key[order]
    first = np.empty(key.size, bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    inverse = np.empty(key.size, np.int64)
    inverse[order] = np.cumsum(first, dtype=np.int64) - 1
    return ordered[first], inverse


def _build_trie(
    lengths: np.ndarray, offsets: np.ndarray, tokens: np.ndarray, n_words: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Level-wise trie of the phrases ``tokens[offsets[p]:offsets[p] + lengths[p]]``:
    ``(level_offsets, level_keys, node of each phrase)``."""
    node = np.zeros(lengths.size, np.int64)  # the root
    level_offsets = [0, 1]
    keys: list[np.ndarray] = [np.zeros(1, np.uint64)]  # the root's slot (never searched)
    for depth in range(1, int(lengths.max(initial=0)) + 1):
        rows = np.flatnonzero(lengths >= depth)
        key = node[rows].astype(np.uint64)
        key *= np.uint64(n_words)
        key += tokens[offsets[rows] + (depth - 1)].astype(np.uint64)
        uniq, inverse = _unique_inverse(key)
        del key
        node[rows] = inverse + level_offsets[-1]
        del rows, inverse
        keys.append(uniq)
        level_offsets.append(level_offsets[-1] + uniq.size)
    return np.asarray(level_offsets, np.int64), np.concatenate(keys), node


def _read_gzip(path: str | os.PathLike) -> bytes | bytearray:
    """The decompressed file, written into one buffer of the size the gzip trailer gives
    (``gzip.open(...).read()`` would hold it twice while joining its pieces)."""
    with open(path, "rb") as f:
        compressed = os.fstat(f.fileno()).st_size
        f.seek(-4, os.SEEK_END)
        size = int.from_bytes(f.read(4), "little")
        f.seek(0)
        if size > DEFLATE_MAX_RATIO * compressed:  # a damaged trailer: allocate nothing for it
            size = 0
        out = bytearray(size)
        view = memoryview(out)
        pos = 0
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        while True:
            chunk = f.read(1 << 22)
            piece = d.decompress(chunk) if chunk else d.flush()
            if pos + len(piece) > size:
                break  # the trailer's size is modulo 2**32, or several members: fall back
            view[pos : pos + len(piece)] = piece
            pos += len(piece)
            if not chunk:
                if pos == size and d.eof and not d.unused_data:
                    view.release()
                    return out
                break
    view.release()
    del out
    with gzip.open(path, "rb") as f:
        return f.read()


def build_index(path: str | os.PathLike) -> dict:
    """Read ``paraphrase-en.gz`` into the arrays described in the module docstring; a file
    that is not such a table is a :class:`ParaphraseTableError` naming it."""
    try:
        data = _read_gzip(path)
    except (OSError, EOFError, zlib.error) as exc:
        raise ParaphraseTableError(
            f"paraphrase table {path}: not a readable gzip file ({exc})"
        ) from None
    buf = np.frombuffer(data, dtype=np.uint8)
    buf.setflags(write=False)  # read-only whichever buffer: one compiled parser
    hint = (data.count(b"\n") + 1) // 3 + 1
    from kcca.captions._meteor_engine.table_parser import count_tokens, parse  # numba

    n_ref_tokens, n_para_tokens = count_tokens(buf)
    (status, n_entries, n_lines, ref_len, para_len, ref_tok, para_tok, first_start, first_len) = (
        parse(buf, hint, n_ref_tokens, n_para_tokens)
    )
    if status:
        line = n_lines + 1 if status in (2, 5) else n_lines
        raise ParaphraseTableError(
            f"paraphrase table {path}: {_PARSE_ERRORS[status].format(line=line)}"
        )
    try:
        vocab = [
            bytes(data[s : s + n]).decode("utf-8")
            for s, n in zip(first_start.tolist(), first_len.tolist())
        ]
    except UnicodeDecodeError as exc:
        message = f"paraphrase table {path}: a word is not UTF-8 ({exc})"
        raise ParaphraseTableError(message) from None
    del data, buf
    ref_len = ref_len[:n_entries]
    para_len = para_len[:n_entries]
    if max(ref_len.max(initial=0), para_len.max(initial=0)) > MAX_PHRASE_WORDS:
        raise ParaphraseTableError(
            f"paraphrase table {path}: phrases longer than {MAX_PHRASE_WORDS} words"
        )
    if n_entries and para_len.min() == 0:
        # the jar would match an empty paraphrase at every word; the English table has none
        raise ParaphraseTableError(f"paraphrase table {path}: an entry with an empty paraphrase")
    # one trie over phrases and paraphrases (entries 0..E-1 phrases, E..2E-1 paraphrases)
    lengths = np.concatenate((ref_len, para_len))
    offsets = np.concatenate((_offsets(ref_len)[:-1], ref_tok.size + _offsets(para_len)[:-1]))
    tokens = np.concatenate((ref_tok, para_tok))
    del ref_tok, para_tok
    level_offsets, level_keys, node = _build_trie(lengths, offsets, tokens, len(vocab))
    del lengths, offsets, tokens
    ref_node, para_node = node[:n_entries], node[n_entries:]
    # phrases without words never match (the jar's trie emits them at its root): drop them
    keep = np.flatnonzero(ref_len > 0)
    order = keep[np.argsort(ref_node[keep], kind="stable")]  # file order inside a phrase
    grouped = ref_node[order]
    starts = (
        np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
        if order.size
        else np.zeros(0, np.int64)
    )
    return {
        "version": INDEX_VERSION,
        "vocab": "\n".join(vocab),
        "level_offsets": level_offsets,
        "level_keys": level_keys,
        "phrase_nodes": grouped[starts].astype(np.int64),
        "entry_offsets": np.append(starts, order.size).astype(np.int64),
        "entry_para": para_node[order].astype(np.int32),
        "n_entries": int(n_entries),
    }


class ParaphraseIndex:
    """The cached arrays of :func:`build_index` and the look-ups of one scoring call."""

    def __init__(self, arrays: dict):
        if arrays.get("version") != INDEX_VERSION:
            raise ValueError("paraphrase index of another version")
        self._vocab_text: str = arrays["vocab"]
        self.level_offsets = arrays["level_offsets"]
        self.level_keys = arrays["level_keys"]
        self.phrase_nodes = arrays["phrase_nodes"]
        self.entry_offsets = arrays["entry_offsets"]
        self.entry_para = arrays["entry_para"]
        self.n_entries = arrays["n_entries"]

    @cached_property
    def vocab(self) -> list[str]:
        """The table's words (word id = position)."""
        return self._vocab_text.split("\n")

    @cached_property
    def word_id(self) -> dict[str, int]:
        """Word -> word id (built on first use: a run whose words are all known from the
        cache needs neither)."""
        return {w: i for i, w in enumerate(self.vocab)}

    @cached_property
    def n_words(self) -> int:
        """``len(vocab)``, counted without splitting the words."""
        return self._vocab_text.count("\n") + 1

    @cached_property
    def first_levels(self) -> tuple[np.ndarray, np.ndarray]:
        """``(word_nodes, child_off)``: the one-word node of each word id (-1: none), and
        where the children of one-word node ``k + 1`` start among the two-word nodes
        (``child_off[k]:child_off[k + 1]``, relative to ``level_offsets[2]``); look-ups
        of the first two words of an n-gram then need no search of a whole level."""
        word_nodes = np.full(self.n_words, -1, np.int64)
        if self.max_depth < 1:
            return word_nodes, np.zeros(1, np.int64)
        lo, hi = self.level_offsets[1], self.level_offsets[2]
        one_word = self.level_keys[lo:hi].astype(np.int64)  # key = word id (root parent 0)
        word_nodes[one_word] = lo + np.arange(one_word.size)
        two_words = self.level_keys[hi : self.level_offsets[min(3, self.max_depth + 1)]]
        if self.max_depth < 2:
            two_words = two_words[:0]
        parents = np.arange(lo, hi + 1, dtype=np.uint64) * np.uint64(self.n_words)
        return word_nodes, np.searchsorted(two_words, parents).astype(np.int64)

    @cached_property
    def phrase_row(self) -> np.ndarray:
        """Per trie node: its row in ``phrase_nodes`` (-1: not a phrase with entries)."""
        row = np.full(int(self.level_offsets[-1]), -1, np.int32)
        row[self.phrase_nodes] = np.arange(self.phrase_nodes.size, dtype=np.int32)
        return row

    @property
    def n_phrases(self) -> int:
        return self.phrase_nodes.size

    @property
    def max_depth(self) -> int:
        return self.level_offsets.size - 2

    def node_depth(self, nodes: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.level_offsets, nodes, side="right") - 1
