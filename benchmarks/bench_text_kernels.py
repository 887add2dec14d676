"""Benchmark the text kernels on the real Flickr 8K captions (1,928-word preset).

For each kernel: fit + the train x train Gram (6,000 items of five captions) and the
test-pool x train block (1,000 captions #2), wall time and the process's peak memory so far.
TRI5SEM (eq. 21, sqrt-idf, word kernel max(A, avg(D_ic, D_BNC)), eq. 26-27) uses a stand-in
word kernel unless the real similarities are given: the real D_ic (PPMI cosine over the 1,928
caption words, eq. 24, thresholded at 0.01) combined with itself through eq. 26 and eq. 27
(the engine's cost does not depend on the values, only on the vocabulary).

Peers in the same run: the straightforward pairwise computations on a small subset of
training items, extrapolated to all n(n+1)/2 item pairs: a literal per-caption-pair sum
over sequence pairs (pure Python, the equations as written) and, for TRI5SEM, a per-
caption-pair NumPy version (gathers of the word kernel per length, one caption pair at a
time). Ratios = peer extrapolated / measured.

    python benchmarks/bench_text_kernels.py [--n-train 6000] [--peer-items 16]

writes ``benchmarks/results/text_kernels.json`` and prints a table.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import resource
import sys
import time
from pathlib import Path

from _results import write_result

import numpy as np

from features.text._bow_kernel import BowKernel
from features.text._sequences import item_spans
from features.text._tagrank_kernel import TagRankKernel
from features.text._trigram_kernel import TrigramKernel
from features.text._word_kernel import WordKernel, average, maximum
from kcca.data._flickr8k import load_flickr8k


def peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux


def preprocess(corpus):
    """The 1,928-word preset: the features.text preprocessor if present, else inline."""
    train_ids = corpus.split("train")
    train_texts = [t for i in train_ids for t in corpus.lemmas[i]]
    try:
        from features.text._pipeline import CaptionPreprocessor

        pre = CaptionPreprocessor.paper_flickr8k().fit(train_texts)
        proc = pre.transform
        how = "CaptionPreprocessor.paper_flickr8k()"
    except Exception as exc:  # pragma: no cover - fallback while the preprocessor is absent
        from nltk.corpus import stopwords

        stop = set(stopwords.words("english"))

        def proc(texts):
            out = []
            for text in texts:
                toks = [t.lower() for t in text.split()]
                out.append([t for t in toks if any(c.isalnum() for c in t) and t not in stop])
            return out

        how = f"inline lemma preset ({exc.__class__.__name__})"
    train = [proc(list(corpus.lemmas[i])) for i in train_ids]
    test = [proc([corpus.lemmas[i][corpus.pool_caption_index]])[0] for i in corpus.split("test")]
    return train, test, how


def stand_in_word_kernel(train):
    """Real D_ic (eq. 24 PPMI cosine over the >= 5-count caption words) + eq. 26/27 stand-in."""
    sentences = [c for it in train for c in it]
    try:
        from features.text._similarity_distributional import DistributionalSimilarity

        dic = DistributionalSimilarity(min_count=5, name="D_ic").fit(sentences).word_kernel()
        how = "DistributionalSimilarity (features.text)"
    except Exception as exc:  # pragma: no cover
        import scipy.sparse as sp
        from collections import Counter

        counts = Counter(w for s in sentences for w in s)
        vocab = sorted(w for w, c in counts.items() if c >= 5)
        idx = {w: i for i, w in enumerate(vocab)}
        rows, cols = [], []
        for r, s in enumerate(sentences):
            for w in set(s):
                if w in idx:
                    rows.append(r)
                    cols.append(idx[w])
        x = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(sentences), len(vocab)))
        co = (x.T @ x).toarray()
        df = np.diag(co).copy()
        with np.errstate(divide="ignore"):
            pmi = np.log2(co * len(sentences) / np.outer(df, df))
        dic = WordKernel.from_vectors("D_ic", vocab, np.maximum(pmi, 0))
        how = f"inline PPMI ({exc.__class__.__name__})"
    off = dic.matrix[~np.eye(len(dic.vocabulary), dtype=bool)]
    dens = {">=0.01": float((off >= 0.01).mean()), ">=0.05": float((off >= 0.05).mean())}
    d = dic.thresholded(0.01)
    kappa = maximum([dic.thresholded(0.05), average([d, d])], name="stand-in A+D")
    return kappa, how, len(dic.vocabulary), dens


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


# ------------------------------------------------------------------ peers (literal)
def pairwise_gram(feats, terms) -> np.ndarray:
    """The symmetric item x item matrix of the peers: entry (i, j) adds up, in order, every
    term ``terms(fa, fb)`` yields for each caption ``fa`` of item i and ``fb`` of item j."""
    n = len(feats)
    k = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            s = 0.0
            for fa in feats[i]:
                for fb in feats[j]:
                    for term in terms(fa, fb):
                        s += term
            k[i, j] = k[j, i] = s
    return k


def peer_exact_tri(items, weight=None):
    """Literal eq. 15 per caption pair: dict intersection, summed over the cross product."""

    def terms(fa, fb):
        for w, m in fa.items():
            mb = fb.get(w)
            if mb:
                yield m * mb * 0.25 ** len(w) * (1.0 if weight is None else weight(w))

    return pairwise_gram([[item_spans([c]) for c in it] for it in items], terms)


def peer_soft_python(items, kappa: WordKernel, idf):
    """Literal eq. 21 per caption pair: every pair of equal-length sequences, pure Python."""
    sim = kappa.similarity

    def terms(fa, fb):
        for w, m in fa.items():
            lw = math.sqrt(math.prod(idf(x) for x in w))
            for v, mb in fb.items():
                if len(v) == len(w):
                    sig = 1.0
                    for x, y in zip(w, v):
                        sig *= sim(x, y)
                    if sig:
                        yield (lw * math.sqrt(math.prod(idf(x) for x in v)) * m * mb
                               * 0.25 ** len(w) * sig)

    return pairwise_gram([[item_spans([c]) for c in it] for it in items], terms)


def peer_soft_numpy(items, kappa: WordKernel, idf):
    """Eq. 21 per caption pair with NumPy: per length, gather kappa blocks and contract."""
    widx = dict(kappa.index)
    ext = {}

    def gid(w):
        g = widx.get(w)
        if g is None:
            g = ext.setdefault(w, len(kappa.vocabulary) + len(ext))
        return g

    def pack(f):
        out = {}
        for l in (1, 2, 3):
            keys = [w for w in f if len(w) == l]
            ids = np.array([[gid(x) for x in w] for w in keys], dtype=np.int64).reshape(-1, l)
            wt = np.array([f[w] * 0.5 ** l * math.sqrt(math.prod(idf(x) for x in w))
                           for w in keys])
            out[l] = (ids, wt)
        return out

    feats = [[pack(item_spans([c])) for c in it] for it in items]
    v = len(kappa.vocabulary)
    big = np.eye(v + 4096)  # identity outside the word kernel's vocabulary
    big[:v, :v] = kappa.matrix

    def terms(fa, fb):
        for l in (1, 2, 3):
            ia, wa = fa[l]
            ib, wb = fb[l]
            if len(wa) and len(wb):
                sig = np.ones((len(wa), len(wb)))
                for p in range(l):
                    sig *= big[np.ix_(ia[:, p], ib[:, p])]
                yield wa @ sig @ wb

    return pairwise_gram(feats, terms)


def normalize(k):
    d = np.sqrt(np.diag(k))
    return k / np.outer(d, d)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=os.environ.get("KCCA_DATA_DIR"),
                    help="folder holding flickr8k/ (default $KCCA_DATA_DIR)")
    ap.add_argument("--n-train", type=int, default=None, help="training items (default all)")
    ap.add_argument("--peer-items", type=int, default=16)
    ap.add_argument("--skip", nargs="*", default=[], help="kernel names to skip")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "text_kernels.json"))
    ap.add_argument("--progress", action="store_true")
    args = ap.parse_args(argv)
    if not args.data_dir:
        ap.error("no data folder: pass --data-dir or set KCCA_DATA_DIR (data/README.md)")

    nltk_dir = Path(args.data_dir) / "nltk_data"
    if "NLTK_DATA" not in os.environ and nltk_dir.is_dir():
        import nltk

        os.environ["NLTK_DATA"] = str(nltk_dir)
        nltk.data.path.insert(0, str(nltk_dir))
    corpus = load_flickr8k(args.data_dir, images=False, judgments=False)
    (train, test, how_pre), t_pre = timed(lambda: preprocess(corpus))
    if args.n_train:
        train = train[: args.n_train]
    vocab5 = sum(1 for w, c in __import__("collections").Counter(
        w for it in train for cap in it for w in cap).items() if c >= 5)
    (kappa, how_wk, n_dic, dens), t_wk = timed(lambda: stand_in_word_kernel(train))
    print(f"preprocessing: {how_pre} ({t_pre:.1f}s), {len(train)} train items, "
          f"{len(test)} test captions, {vocab5} training words seen >= 5 times")
    print(f"word kernel: {how_wk}, {n_dic} words, off-diagonal density {dens} ({t_wk:.1f}s)")

    kernels = {
        "BoW5": lambda: BowKernel(),
        "BoW5^sqrt-idf": lambda: BowKernel(weighting="sqrt-idf"),
        "TagRank": lambda: TagRankKernel(progress=args.progress),
        "TRI5": lambda: TrigramKernel(),
        "TRI5^sqrt-idf": lambda: TrigramKernel(weighting="sqrt-idf"),
        "TRI5SEM": lambda: TrigramKernel(weighting="sqrt-idf", word_kernel=kappa,
                                         progress=args.progress),
    }
    rows = []
    fitted = {}
    for name, make in kernels.items():
        if name in args.skip:
            continue
        k = make()
        c0 = time.process_time()
        _, t_fit = timed(lambda: k.fit(train))
        g, t_train = timed(lambda: k.gram(train))
        cpu_train = time.process_time() - c0
        gt, t_test = timed(lambda: k.gram(test))
        fitted[name] = (k, g[: args.peer_items, : args.peer_items].copy())  # peers need a corner
        row = dict(kernel=name, fit_s=round(t_fit, 2), train_gram_s=round(t_train, 2),
                   train_total_s=round(t_fit + t_train, 2), train_cpu_s=round(cpu_train, 1),
                   test_block_s=round(t_test, 2),
                   shape=list(g.shape), peak_rss_gb_so_far=round(peak_gb(), 2),
                   diag_min=float(np.diag(g).min()), diag_max=float(np.diag(g).max()))
        rows.append(row)
        del g, gt
        print(f"{name:15s} fit {t_fit:7.1f}s  train gram {t_train:7.1f}s  (CPU {cpu_train:7.1f}s)"
              f"  test block {t_test:6.1f}s  peak RSS {row['peak_rss_gb_so_far']:.2f} GB",
              flush=True)

    # ---------------------------------------------------------------- peers
    peers = []
    m = args.peer_items
    n = len(train)
    scale = n * (n + 1) / 2 / (m * (m + 1) / 2)
    sub = train[:m]
    if "TRI5" in fitted:
        k, g = fitted["TRI5"]
        kp, tp = timed(lambda: peer_exact_tri(sub))
        err = float(np.abs(normalize(kp) - g[:m, :m]).max())
        t_ours = rows[[r["kernel"] for r in rows].index("TRI5")]["train_total_s"]
        peers.append(dict(kernel="TRI5", peer="literal per-caption-pair dict sums (Python)",
                          subset_items=m, subset_s=round(tp, 3),
                          extrapolated_s=round(tp * scale, 1), ours_s=t_ours,
                          ratio=round(tp * scale / t_ours, 1), max_abs_diff=err))
    if "TRI5SEM" in fitted:
        k, g = fitted["TRI5SEM"]
        t_ours = rows[[r["kernel"] for r in rows].index("TRI5SEM")]["train_total_s"]
        idf = k.idf_.weight
        for label, fn, mm in (("literal per-caption-pair sequence-pair sums (Python)",
                               peer_soft_python, min(m, 6)),
                              ("per-caption-pair NumPy gathers of kappa", peer_soft_numpy, m)):
            sc = n * (n + 1) / 2 / (mm * (mm + 1) / 2)
            kp, tp = timed(lambda: fn(train[:mm], kappa, idf))
            err = float(np.abs(normalize(kp) - g[:mm, :mm]).max())
            peers.append(dict(kernel="TRI5SEM", peer=label, subset_items=mm,
                              subset_s=round(tp, 3), extrapolated_s=round(tp * sc, 1),
                              ours_s=t_ours, ratio=round(tp * sc / t_ours, 1),
                              max_abs_diff=err))
    for p in peers:
        print(f"peer {p['kernel']:8s} {p['peer']:55s} {p['subset_items']:3d} items "
              f"{p['subset_s']:8.2f}s -> {p['extrapolated_s']:12.0f}s extrapolated; ours "
              f"{p['ours_s']:.1f}s; ratio {p['ratio']:.0f}x; max |diff| {p['max_abs_diff']:.1e}")

    result = dict(
        command=" ".join([Path(sys.argv[0]).name, *(argv or sys.argv[1:])]),
        machine=dict(cpus=os.cpu_count(), python=platform.python_version(),
                     platform=platform.platform()),
        preprocessing=how_pre, n_train=len(train), n_test=len(test),
        words_seen_5_times=vocab5, word_kernel=dict(source=how_wk, words=n_dic,
                                                      density=dens, stand_in=True),
        load_average_at_end=os.getloadavg(),
        kernels=rows, peers=peers, peak_rss_gb=round(peak_gb(), 2),
    )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    print(f"peak RSS {result['peak_rss_gb']:.2f} GB")
    write_result(args.out, result, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
