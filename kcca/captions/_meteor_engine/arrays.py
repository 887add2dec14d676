"""The segments of one scoring call as flat arrays, for :mod:`.kernel`.

What a segment's matchers need (word hash keys, stem keys, function-word
flags, synsets, paraphrase look-ups) is laid out here for all distinct segments at once:
segment ``s`` owns the word slots ``starts[s]:starts[s] + lengths[s]`` of the per-word
arrays. Word features are computed once per distinct word and remembered by
:class:`WordFeatures` (per process, and in the project cache for later runs); the paraphrase
look-ups are a compiled walk of the trie over all n-grams, in threads over slices of the word
slots (:func:`.kernel.ngram_occurrences`, what ``ngram_nodes`` of the test oracle
``tests/support/meteor_oracle.py`` computes), keeping the table entries whose phrase and
paraphrase both occur in the call.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from kcca.captions._meteor_engine.paraphrase import ParaphraseIndex, concatenated_ranges
from kcca.captions._meteor_engine.resources import MeteorResources
from kcca.captions._meteor_engine.slices import in_threads
from kcca.captions._meteor_engine.stemmer import stem

#: the most words :meth:`WordFeatures.save` stores (a run on random strings would grow the
#: stored list without end)
MAX_STORED_WORDS = 300_000
#: fewest word slots a thread of the paraphrase-trie walk gets
SLOTS_PER_THREAD = 20_000
_JAVA_HASHES: dict[str, int] = {}


def java_hash(word: str) -> int:
    """``String.hashCode()`` of ``word`` (UTF-16 code units, 32-bit signed)."""
    got = _JAVA_HASHES.get(word)
    if got is None:
        h = 0
        if word.isascii():
            for c in word.encode("ascii"):
                h = (31 * h + c) & 0xFFFFFFFF
        else:
            data = word.encode("utf-16-be")
            for k in range(0, len(data), 2):
                h = (31 * h + (data[k] << 8 | data[k + 1])) & 0xFFFFFFFF
        got = h - (1 << 32) if h & 0x80000000 else h
        if len(_JAVA_HASHES) < 1_000_000:
            _JAVA_HASHES[word] = got
    return got


_SHARED: weakref.WeakKeyDictionary[MeteorResources, WordFeatures] = weakref.WeakKeyDictionary()
_SHARED_LOCK = threading.Lock()


class WordFeatures:
    """Per-word matcher features, computed once per word and kept: hash key, stem key,
    function-word flag, paraphrase-table word id, sorted synset ids.

    :meth:`shared` gives one instance per :class:`.resources.MeteorResources`, started from
    the words that earlier runs stored in the project cache
    (:meth:`.resources.MeteorResources.load_word_features`); :meth:`save` stores the words
    added since (computing a word's features costs about as much as scoring an item, and a
    later run on the same references meets the same words).
    """

    def __init__(self, resources: MeteorResources, stored: dict | None = None):
        self.resources = resources
        self.index: dict[str, int] = {}
        self._keys: list[int] = []
        self._stems: list[int] = []
        self._func: list[int] = []
        self._table_ids: list[int] = []
        self._syn_sizes: list[int] = []
        self._syn_ids: list[int] = []
        self._arrays: tuple[np.ndarray, ...] | None = None
        self._unsaved = 0
        self.lock = threading.Lock()
        if stored is not None:
            self._restore(stored)

    @classmethod
    def shared(cls, resources: MeteorResources) -> WordFeatures:
        """The instance of ``resources`` (made on first use, from the cached words)."""
        with _SHARED_LOCK:
            got = _SHARED.get(resources)
            if got is None:
                got = _SHARED[resources] = cls(resources, resources.load_word_features())
            return got

    def _restore(self, stored: dict) -> None:
        words = stored["words"].split("\n") if stored["words"] else []
        syn_off = stored["syn_off"]
        if len(words) != stored["keys"].size or syn_off.size != len(words) + 1:
            return  # not what save() writes: start empty
        self.index = {w: k for k, w in enumerate(words)}
        self._keys = stored["keys"].tolist()
        self._stems = stored["stems"].tolist()
        self._func = stored["func"].tolist()
        self._table_ids = stored["table_ids"].tolist()
        self._syn_sizes = np.diff(syn_off).tolist()
        self._syn_ids = stored["syn_ids"].tolist()

    def add(self, words: Iterable[str]) -> None:
        """Compute the features of the words not seen yet."""
        new = [w for w in dict.fromkeys(words) if w not in self.index]
        if not new:
            return
        res = self.resources
        known = res.vocabulary_stems
        fw = res.function_words
        table_id = res.paraphrases.word_id.get
        for w, syn in zip(new, res.synonyms.all_synsets_many(new)):
            self.index[w] = len(self._keys)
            self._keys.append(java_hash(w))
            self._stems.append(java_hash(known[w] if w in known else stem(w)))
            self._func.append(w.lower() in fw)
            self._table_ids.append(table_id(w, -1))
            self._syn_sizes.append(len(syn))
            self._syn_ids.extend(sorted(syn))
        self._arrays = None
        self._unsaved += len(new)

    def arrays(self) -> tuple[np.ndarray, ...]:
        """``(keys, stem keys, function flags, table ids, synset offsets, synset ids)``,
        indexed by word number, with one more word at the end (number ``len(index)``:
        no key, no synset, not in the table) for the slots between segments."""
        if self._arrays is None:
            syn_off = np.zeros(len(self._syn_sizes) + 2, np.int64)
            np.cumsum(self._syn_sizes, out=syn_off[1:-1])
            syn_off[-1] = syn_off[-2]
            self._arrays = (
                np.array(self._keys + [0], np.int64),
                np.array(self._stems + [0], np.int64),
                np.array(self._func + [False], np.uint8),
                np.array(self._table_ids + [-1], np.int64),
                syn_off,
                np.array(self._syn_ids, np.int64),
            )
        return self._arrays

    def save(self) -> None:
        """Store the words in the project cache when some were added since the last load
        or save (and there are not more than :data:`MAX_STORED_WORDS`)."""
        if not self._unsaved or len(self.index) > MAX_STORED_WORDS:
            return
        if any("\n" in w or "\x00" in w for w in self.index):
            return  # the stored word list is one line per word
        keys, stems, func, table_ids, syn_off, syn_ids = self.arrays()
        self.resources.save_word_features(
            {
                "words": "\n".join(self.index),
                "keys": keys[:-1],
                "stems": stems[:-1],
                "func": func[:-1],
                "table_ids": table_ids[:-1],
                "syn_off": syn_off[:-1],
                "syn_ids": syn_ids,
            }
        )
        self._unsaved = 0


@dataclass
class SegmentArrays:
    """Distinct segments of a call, flat (see the module docstring); the argument order
    of :func:`.kernel.score_items` after the items."""

    starts: np.ndarray  #: first word slot of each segment
    lengths: np.ndarray  #: words of each segment
    keys: np.ndarray  #: per word slot: ``java_hash`` of the word
    stems: np.ndarray  #: ... of its stem
    func: np.ndarray  #: ... function word (uint8)
    vids: np.ndarray  #: ... word number (rows of ``syn_off``)
    syn_off: np.ndarray  #: per word number: range of its synset ids in ``syn_ids``
    syn_ids: np.ndarray
    ph_off: np.ndarray  #: per segment: range of its table phrases (by start, then length)
    ph_start: np.ndarray
    ph_len: np.ndarray
    ph_row: np.ndarray  #: row of ``tab_off``
    tab_off: np.ndarray  #: per row: range of its paraphrases (file order)
    tab_para: np.ndarray  #: paraphrase trie node
    tab_len: np.ndarray  #: its words
    oc_off: np.ndarray  #: per segment: range of its paraphrase occurrences
    oc_node: np.ndarray  #: sorted by node, then position
    oc_pos: np.ndarray

    def kernel_args(self) -> tuple[np.ndarray, ...]:
        return (
            self.starts,
            self.lengths,
            self.keys,
            self.stems,
            self.func,
            self.vids,
            self.syn_off,
            self.syn_ids,
            self.ph_off,
            self.ph_start,
            self.ph_len,
            self.ph_row,
            self.tab_off,
            self.tab_para,
            self.tab_len,
            self.oc_off,
            self.oc_node,
            self.oc_pos,
        )


def _csr_offsets(owner: np.ndarray, n: int) -> np.ndarray:
    """Offsets of the groups ``0..n-1`` of a sorted owner array."""
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(owner, minlength=n), out=offsets[1:])
    return offsets


def segment_arrays(
    words: Sequence[str], lengths: Sequence[int], features: WordFeatures
) -> SegmentArrays:
    """The arrays of the distinct segments whose words, one after the other, are ``words``
    (segment ``k`` has ``lengths[k]`` of them)."""
    vocabulary = dict.fromkeys(words)
    n_segments = len(lengths)
    with features.lock:
        features.add(vocabulary)
        keys, stems, func, table_ids, syn_off, syn_ids = features.arrays()
        index = features.index
        n_words = len(index)
        used = np.fromiter(map(index.__getitem__, vocabulary), np.int64, len(vocabulary))
        flat = np.fromiter(map(index.__getitem__, words), np.int64, len(words))
    length = np.asarray(lengths, np.int64).reshape(n_segments)
    # one empty slot after each segment: no n-gram crosses two segments
    starts = np.zeros(n_segments, np.int64)
    np.cumsum(length[:-1] + 1, out=starts[1:])
    n_slots = int(starts[-1] + length[-1] + 1) if n_segments else 0
    vids = np.full(n_slots, n_words, np.int64)
    seg_of_word = np.repeat(np.arange(n_segments), length)
    vids[np.arange(flat.size) + seg_of_word] = flat  # each earlier segment adds one gap
    seg_of_slot = np.repeat(np.arange(n_segments), length + 1)
    para = _paraphrase_arrays(
        features.resources.paraphrases, table_ids[vids], seg_of_slot, starts, n_segments
    )
    syn_off, syn_ids = _shared_synsets(used, syn_off, syn_ids)
    return SegmentArrays(
        starts, length, keys[vids], stems[vids], func[vids], vids, syn_off, syn_ids, *para
    )


def _shared_synsets(
    used: np.ndarray, syn_off: np.ndarray, syn_ids: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The synsets of the words ``used`` in the call, keeping only those that two of these
    words share (no other synset can give a synonym match between two different words),
    renumbered ``0..k-1``; other words get none. Same offsets layout as ``syn_off``."""
    used = np.sort(used)
    lo, hi = syn_off[used], syn_off[used + 1]
    ids = syn_ids[concatenated_ranges(lo, hi)]
    # synset ids are WordNet offsets (up to eight digits): renumber through a sort
    _, inverse, counts = np.unique(ids, return_inverse=True, return_counts=True)
    shared = counts >= 2
    mapped = np.where(shared, np.cumsum(shared) - 1, -1)[inverse]
    keep = mapped >= 0
    owner = np.repeat(used, hi - lo)[keep]
    counts = np.bincount(owner, minlength=syn_off.size - 1)
    # ids stay sorted within a word (renumbering keeps the order)
    return np.concatenate(([0], np.cumsum(counts))).astype(np.int64), mapped[keep]


def _paraphrase_arrays(
    index: ParaphraseIndex,
    table_ids: np.ndarray,
    seg_of_slot: np.ndarray,
    starts: np.ndarray,
    n_segments: int,
) -> tuple[np.ndarray, ...]:
    """Phrase occurrences (with their filtered table rows), the filtered table, and the
    paraphrase occurrences of every segment (see :class:`SegmentArrays`)."""
    from kcca.captions._meteor_engine.kernel import ngram_occurrences

    empty = np.zeros(0, np.int64)
    zeros = np.zeros(n_segments + 1, np.int64)
    if table_ids.size == 0 or index.phrase_nodes.size == 0:
        return zeros, empty, empty, empty, np.zeros(1, np.int64), empty, empty, zeros, empty, empty
    # every n-gram of the table that occurs: slot, length, trie node, phrase row (or -1)
    trie = (index.level_offsets, index.level_keys, index.n_words, *index.first_levels)

    def run(start: int, stop: int) -> tuple[np.ndarray, ...]:
        return ngram_occurrences(table_ids, start, stop, *trie, index.phrase_row)

    q_idx, q_len, q_node, row = in_threads(run, table_ids.size, SLOTS_PER_THREAD)
    n_nodes = int(index.level_offsets[-1])
    occurs = np.zeros(n_nodes, bool)
    occurs[q_node] = True
    # the phrases of the table among them, and their entries whose paraphrase occurs too
    is_phrase = row >= 0
    phrase_rows = row[is_phrase]
    seen = np.zeros(index.n_phrases, bool)
    seen[phrase_rows] = True
    rows = np.flatnonzero(seen)  # the phrases that occur, ascending
    lo, hi = index.entry_offsets[rows], index.entry_offsets[rows + 1]
    owner = np.repeat(np.arange(rows.size), hi - lo)
    para = index.entry_para[concatenated_ranges(lo, hi)].astype(np.int64)
    keep = occurs[para]
    owner, para = owner[keep], para[keep]
    # the filtered table: rows that kept an entry, renumbered
    tab_start = np.flatnonzero(np.append(True, owner[1:] != owner[:-1])) if owner.size else owner
    kept_rows = owner[tab_start]
    tab_off = np.append(tab_start, owner.size).astype(np.int64)
    tab_len = index.node_depth(para).astype(np.int64)
    new_row = np.full(rows.size, -1, np.int64)
    new_row[kept_rows] = np.arange(kept_rows.size)
    # phrase occurrences (by slot, then length) with a kept entry
    rank = np.empty(index.n_phrases, np.int64)  # read only where written: no fill
    rank[rows] = np.arange(rows.size)
    t_row = new_row[rank[phrase_rows]]
    ok = t_row >= 0
    p_idx, p_len, t_row = q_idx[is_phrase][ok], q_len[is_phrase][ok], t_row[ok]
    ph_seg = seg_of_slot[p_idx]
    ph_off = _csr_offsets(ph_seg, n_segments)
    ph_start = p_idx - starts[ph_seg]
    # occurrences of the paraphrases, by segment, node, position
    is_para = np.zeros(n_nodes, bool)
    is_para[para] = True
    sel = is_para[q_node]
    q_idx, q_node = q_idx[sel], q_node[sel]
    q_seg = seg_of_slot[q_idx]
    order = np.argsort(q_seg * n_nodes + q_node, kind="stable")  # slots ascending within
    q_idx, q_node, q_seg = q_idx[order], q_node[order], q_seg[order]
    return (
        ph_off,
        ph_start,
        p_len,
        t_row,
        tab_off,
        para,
        tab_len,
        _csr_offsets(q_seg, n_segments),
        q_node,
        q_idx - starts[q_seg],
    )
