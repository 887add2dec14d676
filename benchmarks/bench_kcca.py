"""Benchmark: this KCCA solver vs a dense SciPy solve of eq. 3, cca-zoo and pyrcca.

All methods run on the same precomputed kernels, each case in a fresh subprocess so that its
peak memory (``ru_maxrss``, which includes the two loaded n x n kernels) is its own:

* kernels: realistic synthetic ones (the real Flickr 8K kernels are not ready yet):
  an image-like kernel, histogram intersection of 128-bin histograms drawn from latent
  "scene" topics, raised to p = 2 (unit diagonal); a text-like kernel, cosine of bags of
  words of five merged captions over a Zipfian 3,000-word vocabulary from the same topics
  (unit diagonal). Both are PSD.
* ``ours``: :class:`kcca._solver.KCCAGrid`, the paper's whole grid (4 kappa x 46 n, capped at
  the rank) in one fit, plus projections of a 1,000-item dev block for all models; dense
  kernels take the ``"eigen"`` factorisation (``--cholesky`` adds ``ours_cholesky``, the
  pivoted incomplete Cholesky route of kernels given as columns on demand).
* ``dense``: eq. 3 solved exactly with SciPy in the reduced symmetric form that ``ours`` also
  uses: ``eigh`` of both centred kernels (once), then for each kappa the singular values of
  ``Dx Ux' Uy Dy`` (all 4 kappas; no directions, no projections). On full-rank kernels this is
  ``ours`` without truncation, so it bounds what any exact solver can gain.
* ``dense_eq3``: eq. 3 as the paper writes it, the 2n x 2n generalised symmetric-definite
  eigenproblem, one ``scipy.linalg.eigh(A, B)`` per kappa, every eigenpair, plus the dev
  projections (n <= ``--eq3-max-n``): the textbook dense solve.
* ``ccazoo``: cca-zoo's ``KCCA(kernel="precomputed")``, one kappa. cca-zoo's within-view
  block is ``(1 - c) K^2 / (n - 1) + c K``, proportional to eq. 3's ``K^2 + kappa K`` with
  ``kappa = c (n - 1) / (1 - c)``, so we pass ``c = kappa / (kappa + n - 1)``.
* ``pyrcca``: pyrcca's ``kcca`` on the centred kernels (its ``_make_kernel`` patched to pass
  them through unnormalised, its ``eigh(eigvals=...)`` mapped to SciPy's ``subset_by_index``).
  Its regulariser is ``reg * I`` (``K^2 + reg I``), not eq. 3's ``kappa K``: there is no exact
  mapping, we pass ``reg = kappa`` and report how close its directions get to eq. 3's optimum.

Agreement: for every method, the eq. 3 objective (with the paper's kappa) of its top-10
direction pairs, evaluated on the dense centred kernels, is compared with the dense optimum
(max absolute difference). Peers run with ``--peer-python`` (a separate venv; cca-zoo needs
NumPy >= 2 and scikit-learn >= 1.8), never as project dependencies.

Run: ``python benchmarks/bench_kcca.py`` (add ``--quick`` for n = 1,000 only). Prints a table
and writes ``benchmarks/results/kcca.json``. ``--real`` uses the cached real Flickr 8K blocks
(``~/.cache/kcca``, written by :mod:`kcca._systems.runner`; default pyramid image kernel and the
BoW5 ``bow`` text kernel, first n training items, the 1,000 dev images/captions) instead of
the synthetic kernels; ``ours`` also reports its factorisation / per-kappa solve / projection
seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from _results import write_result

import numpy as np

HERE = Path(__file__).resolve().parent
KAPPA = 0.5       # the kappa at which correlations are compared
TOP = 10          # number of top correlations compared
N_DEV = 1000


# ------------------------------------------------------------------ synthetic kernels


def _latent(n: int, seed: int) -> tuple[np.ndarray, np.random.Generator]:
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.full(20, 0.15), size=n), rng  # topic mixture per image


def image_features(theta: np.ndarray, rng: np.random.Generator, bins: int = 128) -> np.ndarray:
    topics = np.random.default_rng(1000).dirichlet(np.full(bins, 0.1), size=20)
    hist = theta @ topics + rng.dirichlet(np.full(bins, 0.5), size=theta.shape[0]) * 0.3
    return (hist / hist.sum(1, keepdims=True)).astype(np.float64)


def text_features(theta: np.ndarray, rng: np.random.Generator, vocab: int = 3000):
    import scipy.sparse as sp

    zipf = 1.0 / np.arange(1, vocab + 1) ** 1.1
    trng = np.random.default_rng(2000)
    topics = np.array([zipf[trng.permutation(vocab)] for _ in range(20)])
    topics /= topics.sum(1, keepdims=True)
    rows, cols = [], []
    for i, t in enumerate(theta):
        words = rng.choice(vocab, size=5 * 6, p=(t @ topics))  # 5 captions x ~6 content words
        rows.extend([i] * len(words))
        cols.extend(words.tolist())
    X = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(theta.shape[0], vocab))
    norms = np.sqrt(np.asarray(X.multiply(X).sum(1)).ravel())
    return sp.diags(1.0 / norms) @ X


_RUN = None


def intersection(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``K[i, j] = sum_k min(A[i, k], B[j, k])`` (numba, parallel over rows of A)."""
    global _RUN
    if _RUN is None:
        import numba

        @numba.njit(parallel=True)
        def run(a, b, out):
            for i in numba.prange(a.shape[0]):
                for j in range(b.shape[0]):
                    s = 0.0
                    for k in range(a.shape[1]):
                        s += min(a[i, k], b[j, k])
                    out[i, j] = s

        _RUN = run
    out = np.empty((A.shape[0], B.shape[0]))
    _RUN(np.ascontiguousarray(A), np.ascontiguousarray(B), out)
    return out


def make_kernels(n: int, folder: Path) -> dict[str, Path]:
    """Train x train and dev x train kernels for image (p = 2 applied by the solver) and text."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {k: folder / f"{k}_{n}.npy" for k in ("kx", "ky", "kx_dev", "ky_dev")}
    if all(p.exists() for p in paths.values()):
        return paths
    theta, rng = _latent(n + N_DEV, seed=n)
    img = image_features(theta, rng)
    txt = text_features(theta, rng)
    np.save(paths["kx"], intersection(img[:n], img[:n]))
    np.save(paths["kx_dev"], intersection(img[n:], img[:n]))
    np.save(paths["ky"], (txt[:n] @ txt[:n].T).toarray())
    np.save(paths["ky_dev"], (txt[n:] @ txt[:n].T).toarray())
    return paths


# ------------------------------------------------------------------ real kernels (--real)


def _cached_blocks(cache_dir: Path, stage: str, kernel: str) -> dict[str, Path]:
    """Joblib files of the kcca cache (``kcca._systems.blocks``) for ``kernel``, by block.

    Image stages hold one dict ``{train, dev, test}`` per file (block ``"all"``); text stages
    one file per block. With several candidates the newest file wins.
    """
    out: dict[str, tuple[float, Path]] = {}
    for meta in (cache_dir / stage).glob("*.json"):
        info = json.loads(meta.read_text())
        info = info.get("config", info) if "stage" in info else info  # sidecar: config + inputs
        if info.get("kernel") != kernel:
            continue
        data = meta.with_suffix(".joblib")
        if not data.exists():
            continue
        block = info.get("block", "all")
        if block not in out or data.stat().st_mtime > out[block][0]:
            out[block] = (data.stat().st_mtime, data)
    return {b: p for b, (_, p) in out.items()}


def make_real_kernels(n: int, folder: Path, cache_dir: Path, image_kernel: str,
                      text_kernel: str) -> dict[str, Path]:
    """The first ``n`` training items of the cached real Flickr 8K blocks (image kernel with
    p = 1, the solver applies p; text kernel as cached) and the 1,000 dev items against them."""
    import joblib

    folder.mkdir(parents=True, exist_ok=True)
    tag = f"real_{image_kernel}_{text_kernel}_{n}"
    paths = {k: folder / f"{k}_{tag}.npy" for k in ("kx", "ky", "kx_dev", "ky_dev")}
    if all(p.exists() for p in paths.values()):
        return paths
    img = _cached_blocks(cache_dir, "system-image-gram", image_kernel)
    txt = _cached_blocks(cache_dir, "system-text-gram", text_kernel)
    if "all" not in img or not {"train", "dev"} <= set(txt):
        raise SystemExit(f"no cached real blocks for {image_kernel}/{text_kernel} "
                         f"under {cache_dir}: "
                         "run a system first (kcca._systems.runner)")
    blocks = joblib.load(img["all"])
    np.save(paths["kx"], np.ascontiguousarray(blocks["train"][:n, :n]))
    np.save(paths["kx_dev"], np.ascontiguousarray(blocks["dev"][:, :n]))
    del blocks
    ky, ky_dev = joblib.load(txt["train"]), joblib.load(txt["dev"])
    np.save(paths["ky"], np.ascontiguousarray(ky[:n, :n]))
    np.save(paths["ky_dev"], np.ascontiguousarray(ky_dev[:, :n]))
    return paths


# ------------------------------------------------------------------ eq. 3 objective


def centred(K: np.ndarray) -> np.ndarray:
    return K - K.mean(0) - K.mean(1, keepdims=True) + K.mean()


def eq3_objective(Kxc: np.ndarray, Kyc: np.ndarray, A: np.ndarray, B: np.ndarray,
                  kappa: float) -> np.ndarray:
    """Eq. 3's value for each direction pair (columns of A, B) on centred kernels."""
    KA, KB = Kxc @ A, Kyc @ B
    num = np.einsum("ik,ik->k", KA, KB)
    den = np.sqrt((np.einsum("ik,ik->k", KA, KA) + kappa * np.einsum("ik,ik->k", A, KA))
                  * (np.einsum("ik,ik->k", KB, KB) + kappa * np.einsum("ik,ik->k", B, KB)))
    return np.sort(np.abs(num / den))[::-1]


# ------------------------------------------------------------------ cases (one per process)


def _gpu_peak_tracker(backend: str):
    """For ``backend="cupy"``: route cupy's allocations through its pool, recording the peak of
    the pool's used bytes, and warm the GPU up (:func:`_warm_up_gpu`, before any timing);
    returns a function that synchronises and gives that peak in MB. Else None."""
    if backend != "cupy":
        return None
    import cupy

    pool, peak = cupy.get_default_memory_pool(), [0]

    def malloc(size: int):
        mem = pool.malloc(size)
        peak[0] = max(peak[0], pool.used_bytes())
        return mem

    cupy.cuda.set_allocator(malloc)
    _warm_up_gpu()

    def read() -> float:
        cupy.cuda.Device().synchronize()
        return peak[0] / 2**20

    return read


def _warm_up_gpu() -> None:
    """One small grid fit on the GPU before the timed one: the CUDA context, the cuBLAS and
    cuSOLVER handles and cupy's compiled kernels are made once per process, not per fit."""
    from kcca._solver import KCCAGrid

    rng = np.random.default_rng(0)
    A, B = rng.random((60, 5)), rng.random((60, 5))
    KCCAGrid(kappas=(0.5,), n_components=[5], backend="cupy").fit(A @ A.T + np.eye(60),
                                                                   B @ B.T + np.eye(60))
    _sync("cupy")


def _sync(backend: str) -> None:
    if backend == "cupy":
        import cupy

        cupy.cuda.Device().synchronize()


def case_ours(paths: dict[str, str], n: int, power: int, rank: int = 0,
              factorisation: str = "auto", backend: str = "numpy") -> dict:
    sys.path.insert(0, str(HERE.parent))
    from kcca._solver import KCCAGrid

    gpu_peak = _gpu_peak_tracker(backend)

    Kx, Ky = np.load(paths["kx"]), np.load(paths["ky"])
    Kxd, Kyd = np.load(paths["kx_dev"]), np.load(paths["ky_dev"])
    import kcca._solver.estimators as estimators
    import kcca._solver.solve as solve_module

    stages = {"factor_seconds": 0.0, "solve_seconds": 0.0}

    def timed(fn, key):
        def wrapped(*a, **k):
            t = time.perf_counter()
            try:
                out = fn(*a, **k)
                _sync(backend)
                return out
            finally:
                stages[key] += time.perf_counter() - t
        return wrapped

    solve_module.prepare_side = timed(solve_module.prepare_side, "factor_seconds")
    estimators.solve_kappa = timed(estimators.solve_kappa, "solve_seconds")
    t0 = time.perf_counter()
    grid = KCCAGrid(power_x=power, rank=rank or None, factorisation=factorisation,
                    backend=backend).fit(Kx, Ky)
    _sync(backend)
    t_fit = time.perf_counter() - t0
    t1 = time.perf_counter()
    grid.transform_x(Kxd), grid.transform_y(Kyd)  # timed: the projections of dev items
    _sync(backend)
    t_all = time.perf_counter() - t0
    corr = grid.correlations_[grid.kappas_.index(KAPPA), :TOP]
    gpu = {"backend": backend, **({"gpu_peak_mb": gpu_peak()} if gpu_peak else {})}
    return {"seconds": t_all, "fit_seconds": t_fit, **stages, **gpu,
            "project_seconds": time.perf_counter() - t1, "models": len(grid.models_),
            "rank_x": grid.core_.p.rank if not grid.core_.swapped else grid.core_.q.rank,
            "rank_y": grid.core_.q.rank if not grid.core_.swapped else grid.core_.p.rank,
            "factorisation": grid.core_.p.method, "correlations": corr.tolist()}


def case_ours_cholesky(paths: dict[str, str], n: int, power: int, rank: int = 0,
                       backend: str = "numpy") -> dict:
    """Ours with the pivoted incomplete Cholesky factorisation (the route for kernels given as
    columns on demand) on the same dense kernels."""
    return case_ours(paths, n, power, rank, factorisation="cholesky", backend=backend)


def case_dense(paths: dict[str, str], n: int, power: int) -> dict:
    import scipy.linalg as sl

    Kx, Ky = np.load(paths["kx"]) ** power, np.load(paths["ky"])
    t0 = time.perf_counter()
    eig = []
    for K in (Kx, Ky):
        s, U = sl.eigh(centred(K), driver="evd", overwrite_a=True)
        keep = s > 1e-12 * s.max()
        eig.append((s[keep], U[:, keep]))
    (sx, Ux), (sy, Uy) = eig
    C = Ux.T @ Uy
    out = {}
    for kappa in (0.1, 0.5, 1.0, 5.0):
        M = np.sqrt(sx / (sx + kappa))[:, None] * C * np.sqrt(sy / (sy + kappa))[None, :]
        out[kappa] = sl.svd(M, compute_uv=False, lapack_driver="gesdd")[:TOP]
    return {"seconds": time.perf_counter() - t0, "correlations": out[KAPPA].tolist()}


def case_dense_eq3(paths: dict[str, str], n: int, power: int) -> dict:
    """Eq. 3 as the paper states it: the 2n x 2n symmetric-definite generalised eigenproblem
    ``[0, Kx Ky; Ky Kx, 0] w = rho [Kx^2 + kappa Kx, 0; 0, Ky^2 + kappa Ky] w`` on the centred
    kernels, one ``scipy.linalg.eigh(A, B)`` per kappa (every eigenpair: the grid needs up to n
    directions), then the dev block projected on the directions, as ``ours`` does.

    The right-hand side is singular along the null space of the centred kernels (the constant
    vector at least); ``eps I`` with eps = 1e-12 * mean(diag(B)) makes it definite. Those
    directions have zero correlation, so the top correlations are unaffected (the agreement
    column measures it)."""
    import scipy.linalg as sl

    Kx, Ky = np.load(paths["kx"]) ** power, np.load(paths["ky"])
    Kxd, Kyd = np.load(paths["kx_dev"]) ** power, np.load(paths["ky_dev"])
    t0 = time.perf_counter()
    Kxc, Kyc = centred(Kx), centred(Ky)
    del Kx, Ky
    A = np.zeros((2 * n, 2 * n))
    A[:n, n:] = Kxc @ Kyc
    A[n:, :n] = A[:n, n:].T
    sq = (Kxc @ Kxc, Kyc @ Kyc)
    out = {}
    for kappa in (0.1, 0.5, 1.0, 5.0):
        B = np.zeros((2 * n, 2 * n))
        B[:n, :n] = sq[0] + kappa * Kxc
        B[n:, n:] = sq[1] + kappa * Kyc
        B[np.diag_indices(2 * n)] += 1e-12 * np.trace(B) / (2 * n)
        rho, W = sl.eigh(A, B, driver="gvd", overwrite_b=True, check_finite=False)
        keep = W[:, ::-1][:, :n]                      # directions by decreasing correlation
        # dev projections of every model: the first n' columns serve every n' <= n
        zx = (Kxd - Kxd.mean(1, keepdims=True)) @ keep[:n]
        zy = (Kyd - Kyd.mean(1, keepdims=True)) @ keep[n:]
        out[kappa] = rho[::-1][:TOP]
        del B, W, keep, zx, zy
    return {"seconds": time.perf_counter() - t0, "correlations": out[KAPPA].tolist()}


def case_ccazoo(paths: dict[str, str], n: int, power: int) -> dict:
    from cca_zoo.nonparametric import KCCA as ZooKCCA

    Kx, Ky = np.load(paths["kx"]) ** power, np.load(paths["ky"])
    c = KAPPA / (KAPPA + n - 1)
    t0 = time.perf_counter()
    model = ZooKCCA(n_components=TOP, kernel="precomputed", shrinkage=[c, c]).fit([Kx, Ky])
    secs = time.perf_counter() - t0
    A, B = model.weights_
    return {"seconds": secs, "shrinkage": c,
            "correlations": eq3_objective(centred(Kx), centred(Ky), A, B, KAPPA).tolist()}


def case_pyrcca(paths: dict[str, str], n: int, power: int) -> dict:
    import scipy.linalg as sl
    from rcca import rcca

    def eigh(a, b=None, eigvals=None, **kw):
        return sl.eigh(a, b, subset_by_index=None if eigvals is None else list(eigvals), **kw)

    rcca.eigh = eigh
    rcca._make_kernel = lambda d, **kw: d
    Kxc, Kyc = centred(np.load(paths["kx"]) ** power), centred(np.load(paths["ky"]))
    t0 = time.perf_counter()
    comps = rcca.kcca([Kxc, Kyc], reg=KAPPA, numCC=TOP, kernelcca=True)
    secs = time.perf_counter() - t0
    return {"seconds": secs, "reg": KAPPA,
            "correlations": eq3_objective(Kxc, Kyc, comps[0], comps[1], KAPPA).tolist()}


def case_ours_ondemand(n: int, power: int, rank: int, backend: str = "numpy") -> dict:
    """n = 30,000: kernel columns computed on demand, never an n x n matrix."""
    sys.path.insert(0, str(HERE.parent))
    from kcca._lowrank import CallableColumns
    from kcca._solver import KCCAGrid

    gpu_peak = _gpu_peak_tracker(backend)
    theta, rng = _latent(n + N_DEV, seed=n)
    img, txt = image_features(theta, rng), text_features(theta, rng)
    tr_img, tr_txt = np.ascontiguousarray(img[:n]), txt[:n].tocsr()
    sx = CallableColumns(lambda idx: intersection(tr_img, tr_img[idx]), np.ones(n), "Kx")
    sy = CallableColumns(lambda idx: (tr_txt @ tr_txt[idx].T).toarray(), np.ones(n), "Ky")
    t0 = time.perf_counter()
    grid = KCCAGrid(power_x=power, rank=rank or None, progress=False, backend=backend).fit(sx, sy)
    _sync(backend)
    t_fit = time.perf_counter() - t0
    grid.transform_x(intersection(img[n:], tr_img))
    grid.transform_y((txt[n:] @ tr_txt.T).toarray())
    _sync(backend)
    gpu = {"backend": backend, **({"gpu_peak_mb": gpu_peak()} if gpu_peak else {})}
    return {"seconds": time.perf_counter() - t0, "fit_seconds": t_fit, **gpu,
            "models": len(grid.models_),
            "rank_x": grid.core_.p.rank if not grid.core_.swapped else grid.core_.q.rank,
            "rank_y": grid.core_.q.rank if not grid.core_.swapped else grid.core_.p.rank,
            "correlations": grid.correlations_[grid.kappas_.index(KAPPA), :TOP].tolist()}


CASES = {"ours": case_ours, "ours_cholesky": case_ours_cholesky, "dense": case_dense,
         "dense_eq3": case_dense_eq3, "ccazoo": case_ccazoo, "pyrcca": case_pyrcca}


def child(args: argparse.Namespace) -> None:
    if args.case == "ours_ondemand":
        out = case_ours_ondemand(args.n, args.power, args.rank, args.backend)
    else:
        extra = {"rank": args.rank} if args.case == "ours" and args.rank else {}
        if args.case.startswith("ours"):
            extra["backend"] = args.backend
        if args.threads:
            from threadpoolctl import threadpool_limits

            threadpool_limits(limits=args.threads)
        out = CASES[args.case](json.loads(args.paths), args.n, args.power, **extra)
        if args.threads:
            out["blas_threads"] = args.threads
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("RESULT " + json.dumps(out), flush=True)


def run_case(python: str, case: str, n: int, paths: dict, power: int, timeout: int,
             rank: int = 0, backend: str = "numpy", threads: int = 0) -> dict:
    cmd = [python, __file__, "--child", case, "--n", str(n), "--power", str(power),
           "--rank", str(rank),
           "--backend", backend, "--threads", str(threads),
           "--paths", json.dumps({k: str(v) for k, v in paths.items()})]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
    return {"error": tail[0][:300]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--paths", help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--rank", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--backend", default="numpy", choices=("numpy", "cupy"),
                    help="array backend of ours (cupy: on the GPU; the peers stay on the CPU)")
    ap.add_argument("--threads", type=int, default=0,
                    help="BLAS threads of the CPU baselines dense/dense_eq3 (0: all cores; 2 "
                         "compares a GPU run with the 2-core machines the targets name)")
    ap.add_argument("--ondemand-rank", type=int, default=1500,
                    help="rank cap of the on-demand run (0: precision only)")
    ap.add_argument("--power", type=int, default=2, help="image kernel power p (default 2)")
    ap.add_argument("--sizes", default="1000,2000,3000,6000")
    ap.add_argument("--quick", action="store_true", help="n = 1,000 only, no n = 30,000")
    ap.add_argument("--ondemand-n", type=int, default=30000, help="0 skips the on-demand run")
    ap.add_argument("--peer-python", default="/tmp/peers/bin/python",
                    help="python of a venv with cca-zoo and pyrcca (skipped if missing)")
    ap.add_argument("--peer-max-n", type=int, default=1000, help="largest n for cca-zoo/pyrcca")
    ap.add_argument("--pyrcca-max-n", type=int, default=1000)
    ap.add_argument("--timeout", type=int, default=900, help="seconds per case")
    ap.add_argument("--kernel-dir", default="/tmp/kcca-bench-kernels")
    ap.add_argument("--out", default=str(HERE / "results" / "kcca.json"))
    ap.add_argument("--real", action="store_true",
                    help="real Flickr 8K kernels from the kcca cache instead of synthetic ones")
    ap.add_argument("--cache-dir", default=str(Path.home() / ".cache" / "kcca"))
    ap.add_argument("--image-kernel", default="pyramid")
    ap.add_argument("--text-kernel", default="bow", help="BoW5 is the cached 'bow' text kernel")
    ap.add_argument("--rank-caps", default="",
                    help="also run ours with these factor-rank caps (comma-separated; not the "
                         "exact solution: reported for their agreement with dense)")
    ap.add_argument("--cholesky", action="store_true",
                    help="also run ours with factorisation='cholesky' (the on-demand route)")
    ap.add_argument("--eq3-max-n", type=int, default=3000,
                    help="largest n for dense_eq3, the literal 2n x 2n generalised eigenproblem "
                         "(memory ~ 6 x (2n)^2 doubles)")
    ap.add_argument("--skip-dense-above", type=int, default=0,
                    help="skip the dense reference for n above this (0: never skip)")
    args = ap.parse_args()
    if args.child:
        args.case = args.child
        return child(args)

    sizes = [1000] if args.quick else [int(s) for s in args.sizes.split(",")]
    peers = os.path.exists(args.peer_python)
    rows, results = [], []
    env = {"cores": os.cpu_count(), "load_avg_start": os.getloadavg(), "kappa_compared": KAPPA,
           "backend": args.backend, "dense_blas_threads": args.threads or "all",
           "power_x": args.power,
           "kernels": (f"real Flickr 8K ({args.image_kernel} image, {args.text_kernel} text, "
                       "first n training items)") if args.real
           else "synthetic (intersection^p image, BoW cosine text)"}
    for n in sizes:
        paths = (make_real_kernels(n, Path(args.kernel_dir), Path(args.cache_dir),
                                   args.image_kernel, args.text_kernel) if args.real
                 else make_kernels(n, Path(args.kernel_dir)))
        res = {"n": n, "ours": run_case(sys.executable, "ours", n, paths, args.power, args.timeout,
                                        backend=args.backend)}
        if args.cholesky:
            res["ours_cholesky"] = run_case(sys.executable, "ours_cholesky", n, paths, args.power,
                                            args.timeout, backend=args.backend)
        if not args.skip_dense_above or n <= args.skip_dense_above:
            res["dense"] = run_case(sys.executable, "dense", n, paths, args.power, args.timeout,
                                    threads=args.threads)
            if "seconds" in res["dense"] and "seconds" in res["ours"]:
                res["speedup_vs_dense"] = res["dense"]["seconds"] / res["ours"]["seconds"]
        if n <= args.eq3_max_n:
            res["dense_eq3"] = run_case(sys.executable, "dense_eq3", n, paths, args.power,
                                        args.timeout, threads=args.threads)
            if "seconds" in res["dense_eq3"] and "seconds" in res["ours"]:
                res["speedup_vs_dense_eq3"] = res["dense_eq3"]["seconds"] / res["ours"]["seconds"]
        for cap in [int(c) for c in args.rank_caps.split(",") if c.strip()]:
            if cap < n:
                res[f"ours_rank{cap}"] = run_case(sys.executable, "ours", n, paths, args.power,
                                                  args.timeout, rank=cap, backend=args.backend)
        if peers and n <= args.peer_max_n:
            res["ccazoo"] = run_case(args.peer_python, "ccazoo", n, paths, args.power, args.timeout)
        if peers and n <= args.pyrcca_max_n:
            res["pyrcca"] = run_case(args.peer_python, "pyrcca", n, paths, args.power, args.timeout)
        ref = np.asarray(res.get("dense", {}).get("correlations", [np.nan] * TOP))
        for name, r in res.items():
            if not isinstance(r, dict):
                continue
            if "correlations" in r:
                diff = np.abs(np.asarray(r["correlations"]) - ref)
                r["max_abs_diff_vs_dense"] = float(diff.max())
            rows.append((n, name, r))
            shown = {k: v for k, v in r.items() if k != "correlations"}
            print(f"n={n} {name}: " + json.dumps(shown), flush=True)
        results.append(res)
        out_partial = Path(args.out).with_suffix(".partial.json")
        out_partial.parent.mkdir(parents=True, exist_ok=True)
        out_partial.write_text(json.dumps({"environment": env, "results": results}, indent=1))
    ondemand = None
    if args.ondemand_n and not args.quick and not args.real:
        ondemand = run_case(sys.executable, "ours_ondemand", args.ondemand_n, {}, args.power,
                            max(args.timeout, 1200), rank=args.ondemand_rank,
                            backend=args.backend)
        ondemand["rank_cap"] = args.ondemand_rank
        rows.append((args.ondemand_n, "ours (columns on demand)", ondemand))
    env["load_avg_end"] = os.getloadavg()

    if args.backend == "cupy":
        from kcca._backend import describe_backend

        env["device"] = describe_backend("cupy")
    print(f"\n{'n':>6}  {'method':<26} {'seconds':>9} {'peak MB':>9} {'GPU MB':>8} {'ranks':>11} "
          f"{'top-10 diff':>12}")
    for n, name, r in rows:
        if "error" in r:
            print(f"{n:>6}  {name:<26} {r['error']}")
            continue
        ranks = f"{r['rank_x']}/{r['rank_y']}" if "rank_x" in r else ""
        diff = r.get("max_abs_diff_vs_dense")
        gpu_mb = f"{r['gpu_peak_mb']:.0f}" if "gpu_peak_mb" in r else ""
        print(f"{n:>6}  {name:<26} {r['seconds']:>9.1f} {r['peak_rss_mb']:>9.0f} {gpu_mb:>8} "
              f"{ranks:>11} "
              f"{'' if diff is None or name.startswith('ours (') else f'{diff:.2e}':>12}")
    for res in results:
        ratios = [f"{res[k]:.1f}x faster than {k[len('speedup_vs_'):]}" for k in
                  ("speedup_vs_dense", "speedup_vs_dense_eq3") if k in res]
        if ratios:
            print(f"n={res['n']}: ours is " + ", ".join(ratios))
    print()
    write_result(args.out, {"environment": env, "results": results, "ondemand": ondemand})


if __name__ == "__main__":
    main()
