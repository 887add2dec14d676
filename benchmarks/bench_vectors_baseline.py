"""KCCA on vectors (docs/retrieval-baseline.md) against scikit-learn's CCA and plain cosine.

    python benchmarks/bench_vectors_baseline.py --set synthetic --train 3000
    python benchmarks/bench_vectors_baseline.py --set synthetic --train 29000
    python benchmarks/bench_vectors_baseline.py --set flickr8k \\
        --image-vectors flickr8k-pyramid.npz [--data-dir DIR] [--svd-dim 256]

One set per call, its vectors written under ``--work`` (default ``benchmarks/results/vectors``):

* ``synthetic``: ``scripts/synthetic_karpathy.py --layout flickr30k --train N`` (image
  vectors of 64 dimensions, caption vectors of 48);
* ``flickr8k``: the image vectors ``--image-vectors`` (``kcca features --export``: the
  pyramid histograms) and caption vectors of TF-IDF + TruncatedSVD (scikit-learn, both
  fitted on the training captions' raw text).

Each method runs in a process of its own (time and peak RSS of that process, ``os.wait4``):

* ``kcca``: ``kcca reproduce --protocol all-captions`` of the experiment file of
  docs/retrieval-baseline.md (its TOML block, the paths replaced by the set's files), in a
  fresh cache folder;
* ``cca``: ``sklearn.cross_decomposition.CCA`` fitted on the training images' vectors and the
  mean of each training image's caption vectors (KCCA's text training item), its number of
  components chosen on dev among :data:`COMPONENTS` by the sum over both tasks of R@1 + R@5 +
  R@10 on the paper's dev pool (the p/d criterion of :mod:`kcca._systems.grid`); queries and
  candidates ranked by cosine in the CCA space. Vectors wider than ``--cca-max-dim`` are
  first reduced by PCA fitted on the training rows (scikit-learn's CCA computes a
  pseudo-inverse of the training matrix per component: 13,440 pyramid dimensions would take
  hours);
* ``cosine``: the cosine of the raw image and caption vectors, only when both have the same
  dimension.

Every method is scored under both protocols: the paper's (the pool of caption #2 per test
image; R@1/5/10 and median rank of the original item per task) and the all-captions protocol
(1,000 test images and their first five captions; i2t and t2i R@1/5/10 and rsum), with the
project's evaluation code. Writes ``benchmarks/results/vectors_baseline_SET.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._results import write_result  # noqa: E402

DOC = ROOT / "docs" / "retrieval-baseline.md"
#: CCA components tried on dev (capped at the smaller dimension)
COMPONENTS = (4, 8, 16, 24, 32, 48, 64, 96, 128)
KS = (1, 5, 10)


# --------------------------------------------------------------------------- the sets


def synthetic_set(work: Path, n_train: int) -> tuple[str, Path]:
    """The synthetic Flickr30K-layout corpus: (the corpus argument, the vectors folder)."""
    out = work / f"synthetic-{n_train}"
    if not (out / "dataset_synthetic.json").exists():
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "scripts" / "synthetic_karpathy.py"),
                "--out",
                str(out),
                "--layout",
                "flickr30k",
                "--train",
                str(n_train),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return str(out / "dataset_synthetic.json"), out / "experiments"


def flickr8k_set(
    work: Path, image_vectors: Path, svd_dim: int, data_dir: str | None
) -> tuple[str, Path]:
    """Flickr 8K with the exported image vectors and TF-IDF + TruncatedSVD caption vectors."""
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    from kcca.data import load_corpus
    from kcca.data._corpus import caption_id

    out = work / f"flickr8k-svd{svd_dim}"
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(image_vectors, out / "images.npz")
    corpus = load_corpus("flickr8k", data_dir, images=False)
    ids = [i for s in ("train", "dev", "test") for i in corpus.split(s)]
    cids = [caption_id(i, n) for i in ids for n in range(len(corpus.captions[i]))]
    texts = [c for i in ids for c in corpus.captions[i]]
    train = [c for i in corpus.split("train") for c in corpus.captions[i]]
    tfidf = TfidfVectorizer(sublinear_tf=True).fit(train)
    svd = TruncatedSVD(svd_dim, random_state=0).fit(tfidf.transform(train))
    vectors = svd.transform(tfidf.transform(texts)).astype(np.float32)
    np.savez(out / "captions.npz", ids=np.array(cids), vectors=vectors)
    return "flickr8k", out


def docs_experiment(folder: Path) -> Path:
    """The experiment file of docs/retrieval-baseline.md in ``folder``, reading its files."""
    (toml,) = re.findall(r"```toml\n(.*?)```", DOC.read_text("utf-8"), re.S)
    toml = toml.replace("emb/images.npz", "images.npz").replace("emb/captions.npz", "captions.npz")
    path = folder / "CLIP.toml"
    path.write_text(toml, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- scoring


def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarities of the rows of ``a`` against those of ``b``."""
    a = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
    b = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
    return a @ b.T


def paper_protocol(scores: np.ndarray) -> dict:
    """R@k and median rank of the original item per task, scores of images x pool captions."""
    from kcca._evaluate.original import median_rank, original_ranks_from_scores, recall_at_k

    out = {}
    for task, s in (("annotation", scores), ("search", scores.T)):
        r = original_ranks_from_scores(s)
        out[task] = {
            **{f"R@{k}": round(recall_at_k(r, k).aggregate, 2) for k in KS},
            "median rank": median_rank(r).aggregate,
        }
    return out


def all_captions(scores: np.ndarray) -> dict:
    """The all-captions protocol of images x (five captions per image) scores."""
    from kcca._evaluate.retrieval_protocol import retrieval_protocol

    res = retrieval_protocol(scores, captions_per_image=5)
    row = {}
    for name, m in (("i2t", res.annotation), ("t2i", res.search)):
        row.update(
            {
                f"{name} R@1": m.r1,
                f"{name} R@5": m.r5,
                f"{name} R@10": m.r10,
                f"{name} med r": m.median_rank,
            }
        )
    row["rsum"] = round(res.rsum, 2)
    return {k: round(float(v), 2) for k, v in row.items()}


def dev_criterion(scores: np.ndarray) -> float:
    """Sum over both tasks of R@1 + R@5 + R@10 on the paper's pool."""
    table = paper_protocol(scores)
    return sum(table[t][f"R@{k}"] for t in table for k in KS)


class Vectors:
    """A set's vectors by split: training images and their mean caption vector, the paper's
    pools (caption #2) of dev and test, and the test set's first five captions per image."""

    def __init__(self, corpus_arg: str, folder: Path, data_dir: str | None):
        from kcca.data import load_corpus
        from kcca.data._corpus import caption_id

        kw = {"images": False} if corpus_arg == "flickr8k" else {}
        corpus = load_corpus(corpus_arg, data_dir, **kw)
        images, captions = (np.load(folder / f"{n}.npz") for n in ("images", "captions"))
        irow = {str(i): r for r, i in enumerate(images["ids"])}
        crow = {str(c): r for r, c in enumerate(captions["ids"])}
        X, Y = images["vectors"].astype(np.float64), captions["vectors"].astype(np.float64)

        def img(split):
            return X[[irow[i] for i in corpus.split(split)]]

        def pool(split):
            return Y[[crow[c] for _, c, _ in corpus.pool(split)]]

        train = corpus.split("train")
        self.x_train = img("train")
        self.y_train = np.stack(
            [
                Y[[crow[caption_id(i, n)] for n in range(len(corpus.captions[i]))]].mean(axis=0)
                for i in train
            ]
        )
        self.x_dev, self.y_dev = img("dev"), pool("dev")
        self.x_test, self.y_test = img("test"), pool("test")
        self.y_test_all = Y[
            [crow[caption_id(i, n)] for i in corpus.split("test") for n in range(5)]
        ]


# --------------------------------------------------------------------------- methods


def run_kcca(corpus_arg: str, folder: Path, out: Path, data_dir: str | None) -> dict:
    """``kcca reproduce`` of the documented experiment file, read back from its files."""
    import csv

    from kcca._cli import main

    docs_experiment(folder)
    run = out / "kcca-run"
    shutil.rmtree(out / "kcca-cache", ignore_errors=True)  # timed from nothing
    args = [
        "reproduce",
        "--corpus",
        corpus_arg,
        "--experiments",
        str(folder),
        "--systems",
        "CLIP",
        "--tables",
        "11",
        "--protocol",
        "all-captions",
        "--no-plots",
        "--out",
        str(run),
        "--cache-dir",
        str(out / "kcca-cache"),
        "--force",
        "--quiet",
    ]
    if data_dir:
        args += ["--data-dir", data_dir]
    status = main(args)
    if status:
        raise SystemExit(f"kcca reproduce exited {status}")
    (details,) = json.loads((run / "rankings" / "details.json").read_text())
    with open(run / "all-captions.csv", newline="") as f:
        (row,) = list(csv.DictReader(f))
    keys = [k for k in row if k not in ("system", "protocol", "i2t mean r", "t2i mean r")]
    return {
        "paper": {t: details["metrics"][t] for t in ("annotation", "search")},
        "all-captions": {k: round(float(row[k]), 2) for k in keys},
        "chosen": details["chosen"],
        "stage seconds": details["timings"],
    }


def reduce(v: "Vectors", side: str, max_dim: int) -> dict[str, np.ndarray]:
    """One side's blocks, PCA-reduced to ``max_dim`` (fitted on training rows) when wider."""
    names = (
        ("x_train", "x_dev", "x_test")
        if side == "x"
        else ("y_train", "y_dev", "y_test", "y_test_all")
    )
    blocks = {n: getattr(v, n) for n in names}
    if blocks[names[0]].shape[1] <= max_dim:
        return blocks
    from sklearn.decomposition import PCA

    pca = PCA(max_dim, svd_solver="randomized", random_state=0).fit(blocks[names[0]])
    return {n: pca.transform(b) for n, b in blocks.items()}


def run_cca(v: "Vectors", max_dim: int) -> dict:
    """scikit-learn's CCA, its number of components chosen on dev."""
    from sklearn.cross_decomposition import CCA

    x, y = reduce(v, "x", max_dim), reduce(v, "y", max_dim)
    cap = min(x["x_train"].shape[1], y["y_train"].shape[1])
    sizes = [c for c in COMPONENTS if c <= cap] or [cap]
    # the components are found one after another (deflation), so the first c of one fit
    # with the most components are those of a fit with c
    cca = CCA(n_components=max(sizes), max_iter=1000).fit(x["x_train"], y["y_train"])
    xd, yd = cca.transform(x["x_dev"], y["y_dev"])
    tried = {c: round(dev_criterion(cosine(xd[:, :c], yd[:, :c])), 2) for c in sizes}
    c = max(sizes, key=lambda n: (tried[n], -n))
    xt, yt = cca.transform(x["x_test"], y["y_test"])
    _, yt_all = cca.transform(x["x_test"], y["y_test_all"])
    xt, yt, yt_all = xt[:, :c], yt[:, :c], yt_all[:, :c]
    return {
        "paper": paper_protocol(cosine(xt, yt)),
        "all-captions": all_captions(cosine(xt, yt_all)),
        "chosen": {
            "n_components": c,
            "dev criterion by n_components": tried,
            "pca": {"x": x["x_train"].shape[1], "y": y["y_train"].shape[1]},
        },
    }


def run_cosine(v: "Vectors") -> dict:
    """Cosine of the raw vectors (same dimension on both sides only)."""
    if v.x_test.shape[1] != v.y_test.shape[1]:
        return {
            "skipped": f"image vectors have {v.x_test.shape[1]} dimensions, caption "
            f"vectors {v.y_test.shape[1]}"
        }
    return {
        "paper": paper_protocol(cosine(v.x_test, v.y_test)),
        "all-captions": all_captions(cosine(v.x_test, v.y_test_all)),
    }


def child(args: argparse.Namespace) -> None:
    """One method in this process; prints its result as JSON on the last line."""
    folder, out = Path(args.folder), Path(args.out_dir)
    t = time.perf_counter()
    if args.child == "kcca":
        res = run_kcca(args.corpus_arg, folder, out, args.data_dir)
    else:
        v = Vectors(args.corpus_arg, folder, args.data_dir)
        res = run_cca(v, args.cca_max_dim) if args.child == "cca" else run_cosine(v)
    res["seconds in process"] = round(time.perf_counter() - t, 1)
    print(json.dumps(res))


def in_process_of_its_own(
    method: str, corpus_arg: str, folder: Path, out: Path, args: argparse.Namespace
) -> dict:
    """Run ``method`` in a child process; its result, wall time and peak RSS."""
    cmd = [
        sys.executable,
        __file__,
        "--child",
        method,
        "--corpus-arg",
        corpus_arg,
        "--folder",
        str(folder),
        "--out-dir",
        str(out),
        "--cca-max-dim",
        str(args.cca_max_dim),
    ]
    if args.data_dir:
        cmd += ["--data-dir", args.data_dir]
    t = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}
    )
    stdout = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{method} exited {proc.returncode}")
    res = json.loads(stdout.strip().splitlines()[-1])
    res["wall seconds"] = round(time.perf_counter() - t, 1)
    res["peak RSS GB"] = round(usage.ru_maxrss / 2**20, 2)  # KiB on Linux
    return res


def print_table(name: str, results: dict) -> None:
    print(f"\n{name}")
    print(
        f"{'method':8} {'paper i2t R@1/5/10':22} {'paper t2i R@1/5/10':22} "
        f"{'all-captions i2t':18} {'all-captions t2i':18} {'rsum':>6} {'time':>7} {'RSS':>6}"
    )
    for method, r in results.items():
        if "skipped" in r:
            print(f"{method:8} skipped: {r['skipped']}")
            continue
        p, a = r["paper"], r["all-captions"]
        paper = ["/".join(f"{p[t][f'R@{k}']:.1f}" for k in KS) for t in ("annotation", "search")]
        allc = ["/".join(f"{a[f'{d} R@{k}']:.1f}" for k in KS) for d in ("i2t", "t2i")]
        print(
            f"{method:8} {paper[0]:22} {paper[1]:22} {allc[0]:18} {allc[1]:18} "
            f"{a['rsum']:6.1f} {r['wall seconds']:6.0f}s {r['peak RSS GB']:5.2f}G"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--set", choices=("synthetic", "flickr8k"), default="synthetic")
    ap.add_argument("--train", type=int, default=3000, help="synthetic training images")
    ap.add_argument("--image-vectors", type=Path, help="flickr8k: kcca features --export file")
    ap.add_argument("--svd-dim", type=int, default=256, help="flickr8k: caption dimensions")
    ap.add_argument("--data-dir", default=None, help="flickr8k: the data folder")
    ap.add_argument("--cca-max-dim", type=int, default=512)
    ap.add_argument("--methods", default="kcca,cca,cosine")
    ap.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "results" / "vectors")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--child", choices=("kcca", "cca", "cosine"), help=argparse.SUPPRESS)
    ap.add_argument("--corpus-arg", help=argparse.SUPPRESS)
    ap.add_argument("--folder", help=argparse.SUPPRESS)
    ap.add_argument("--out-dir", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args)
    if args.set == "synthetic":
        corpus_arg, folder = synthetic_set(args.work, args.train)
        name = f"synthetic-{args.train}"
    else:
        if args.image_vectors is None:
            ap.error("--set flickr8k needs --image-vectors (kcca features --export FILE)")
        corpus_arg, folder = flickr8k_set(
            args.work, args.image_vectors, args.svd_dim, args.data_dir
        )
        name = f"flickr8k-svd{args.svd_dim}"
    out = args.work / name / "methods"
    out.mkdir(parents=True, exist_ok=True)
    results = {
        m: in_process_of_its_own(m, corpus_arg, folder, out, args) for m in args.methods.split(",")
    }
    print_table(name, results)
    write_result(
        args.out or ROOT / "benchmarks" / "results" / f"vectors_baseline_{name}.json",
        {"set": name, "load average": os.getloadavg(), "results": results},
    )


if __name__ == "__main__":
    main()
