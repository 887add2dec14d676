"""The compiled parsers of Meteor's paraphrase table (:func:`.paraphrase.build_index`): the
word counter that sizes the arrays, and the one-pass parser of the three-line entries.

numba, compiled on first use and cached beside this module's bytecode (as :mod:`.kernel`);
imported only when an index is built, so that reading a cached index imports no numba.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types
from numba.typed import Dict


@numba.njit(nogil=True, cache=True)
def count_tokens(buf):  # pragma: no cover - compiled
    """Words on phrase lines and on paraphrase lines (to size the arrays)."""
    counts = np.zeros(3, np.int64)
    line = 0
    inside = False
    for k in range(buf.shape[0]):
        c = buf[k]
        if c == 10:
            line += 1
            inside = False
        elif c == 32 or c == 9 or c == 13 or c == 12:
            inside = False
        elif not inside:
            inside = True
            counts[line % 3] += 1
    return counts[1], counts[2]


@numba.njit(nogil=True, cache=True)
def parse(buf, n_entries_hint, n_ref_tokens, n_para_tokens):  # pragma: no cover
    """One pass over the table's bytes: phrase and paraphrase word ids, lengths and the
    vocabulary (a status code on the first fault, :data:`.paraphrase._PARSE_ERRORS`).

    Long by design: a numba loop whose byte cursor, vocabulary hash table and status
    are shared by its line, number and word scanners; split, each would hand them back
    on every byte of a 5-million-entry file.
    """
    n = buf.shape[0]
    ref_len = np.zeros(n_entries_hint, np.uint8)
    para_len = np.zeros(n_entries_hint, np.uint8)
    ref_tok = np.empty(n_ref_tokens, np.int32)
    para_tok = np.empty(n_para_tokens, np.int32)
    vocab = Dict.empty(key_type=types.uint64, value_type=types.int64)
    first_start = np.empty(1 << 17, np.int64)
    first_len = np.empty(1 << 17, np.int64)
    n_vocab = 0
    n_ref = 0
    n_para = 0
    line = 0
    entry = 0
    i = 0
    # 0 ok, 1 hash collision, 2 too many words in a line, 3 too many entries, 4 vocabulary,
    # 5 a probability line that is not a number, 6 the file ends inside an entry
    status = 0
    while i < n:
        j = i
        while j < n and buf[j] != 10:
            j += 1
        kind = line % 3  # 0: probability (unused by the jar), 1: phrase, 2: paraphrase
        if kind == 0:
            if j == i:
                status = 5
            for k in range(i, j):
                c = buf[k]  # digits . e E + - (a decimal or scientific number)
                if not (48 <= c <= 57 or c == 46 or c == 101 or c == 69 or c == 43 or c == 45):
                    status = 5
                    break
            if status != 0:
                break
        else:
            if entry >= n_entries_hint:
                status = 3
                break
            count = 0
            k = i
            while k < j:
                c = buf[k]
                # java.util.StringTokenizer's delimiters: space, tab, CR, FF (LF ends lines)
                if c == 32 or c == 9 or c == 13 or c == 12:
                    k += 1
                    continue
                s = k
                h = np.uint64(14695981039346656037)  # FNV-1a
                while k < j:
                    c = buf[k]
                    if c == 32 or c == 9 or c == 13 or c == 12:
                        break
                    h = (h ^ np.uint64(c)) * np.uint64(1099511628211)
                    k += 1
                length = k - s
                wid = -1
                if h in vocab:
                    wid = vocab[h]
                if wid < 0:
                    if n_vocab >= first_start.shape[0]:
                        status = 4
                        break
                    wid = n_vocab
                    vocab[h] = wid
                    first_start[wid] = s
                    first_len[wid] = length
                    n_vocab += 1
                elif first_len[wid] != length:  # same hash, other word: refuse
                    status = 1
                else:
                    fs = first_start[wid]
                    for q in range(length):
                        if buf[fs + q] != buf[s + q]:
                            status = 1
                            break
                if kind == 1:
                    ref_tok[n_ref] = wid
                    n_ref += 1
                else:
                    para_tok[n_para] = wid
                    n_para += 1
                count += 1
            if count > 255:
                status = 2
            if status != 0:
                break
            if kind == 1:
                ref_len[entry] = count
            else:
                para_len[entry] = count
                entry += 1
        line += 1
        i = j + 1
    if status == 0 and line % 3 != 0:
        status = 6
    return (
        status,
        entry,
        line,
        ref_len,
        para_len,
        ref_tok[:n_ref],
        para_tok[:n_para],
        first_start[:n_vocab].copy(),
        first_len[:n_vocab].copy(),
    )
