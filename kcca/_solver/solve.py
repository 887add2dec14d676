"""The per-kappa solve of kernel CCA on two factored kernels (Section 3.2.1, eq. 3).

:func:`build_core` forms ``Ux' Uy`` once per kernel pair; :func:`solve_kappa` turns it, for one
kappa, into the canonical correlations and directions (the singular values and vectors of
``M``, :mod:`kcca._solver`'s derivation), the first ``n`` of which serve every ``n`` of the grid.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from kcca._backend import get_xp, resolve_backend, to_numpy
from kcca._lowrank import (
    as_column_source,
)

from kcca._solver.factors import FactorCache, KernelSide, prepare_side


@dataclass
class SolverCore:
    """Both sides; ``p`` (primary) has no closed-form diagonal term, ``q`` may have one."""

    p: KernelSide
    q: KernelSide
    A: Any  # Up' Uq  (kp x kq)
    swapped: bool  # True when p is the y view
    n: int
    xp: Any = field(repr=False)  # the array namespace (None in a pickled copy)
    backend: str = "numpy"  # its name (resolved: "numpy", "cupy" or "array_api_strict")

    def side(self, name: str) -> KernelSide:
        return self.p if self.p.name == name else self.q

    def role(self, view: str) -> str:
        """``"p"`` or ``"q"``: the role of view ``"x"`` / ``"y"``."""
        return "p" if (view == "x") != self.swapped else "q"

    def mean_row(self, side: str, v: str) -> Any:
        """Training column means of ``K_side`` on the basis ``U_v`` (centring of new blocks)."""
        cache = self.__dict__.setdefault("_mean_rows", {})
        if (side, v) not in cache:
            xp = self.xp
            cache[(side, v)] = xp.linalg.matmul(self.side(side).col_mean[None, :], self.side(v).U)
        return cache[(side, v)]

    def basis(self, K_new: Any, v: str) -> Any:
        """``K_new U_v``: a new-by-train block on the eigenbasis of view ``v``."""
        return self.xp.linalg.matmul(K_new, self.side(v).U)

    @property
    def n_directions(self) -> int:
        """Number of canonical directions (nonzero-dimension subspace of the primary view)."""
        if self.q.delta > 0:
            return self.p.dim
        return min(self.p.dim, self.q.dim)


def build_core(
    Kx: Any,
    Ky: Any,
    *,
    power_x: float,
    power_y: float,
    diag_x: float,
    diag_y: float,
    precision: float,
    rank: int | None,
    backend: str,
    progress: bool,
    cache: FactorCache | None = None,
    factorisation: str = "auto",
    indefinite: str = "raise",
) -> SolverCore:
    name = resolve_backend(backend)
    xp = get_xp(name)
    sx = as_column_source(Kx, "Kx")
    sy = as_column_source(Ky, "Ky")
    if int(sx.n) != int(sy.n):
        raise ValueError(
            f"Kx and Ky must describe the same training items: Kx has n={sx.n}, Ky has n={sy.n}"
        )
    # cache keys use the objects given (Kx, Ky), not the validating wrappers made here
    common = dict(
        precision=precision,
        rank=rank,
        xp=xp,
        backend=backend,
        progress=progress,
        cache=cache,
        factorisation=factorisation,
        indefinite=indefinite,
    )
    x, kx = prepare_side(sx, "Kx", power_x, diag_x, owner=Kx, **common)
    y, ky = prepare_side(sy, "Ky", power_y, diag_y, owner=Ky, **common)
    if x.delta > 0 and y.delta > 0:
        raise ValueError(
            f"diag_x={diag_x!r} and diag_y={diag_y!r}: only one view's diagonal can be scaled "
            "(the paper scales the text kernel only)"
        )
    swap = x.delta > 0 or (y.delta == 0 and x.dim > y.dim)
    p, q = (y, x) if swap else (x, y)

    def product() -> Any:
        return xp.linalg.matmul(xp.matrix_transpose(p.U), q.U)

    A = product() if cache is None else cache.pair((kx, ky, swap), product)
    return SolverCore(p=p, q=q, A=A, swapped=swap, n=int(sx.n), xp=xp, backend=name)


# --------------------------------------------------------------------------- per-kappa solve

#: columns of ``A' z`` formed at a time in :func:`solve_kappa` (bounds its temporary memory)
_CHUNK = 512


@dataclass
class KappaSolution:
    """Directions for one kappa, stored once as the eigenvectors ``P`` of the primary view.

    With ``z = Dp P`` (the primary view's training projections on ``Up``), the dual weights are
    (module docstring): primary ``a = Up diag(a_rows) P diag(scale_p)``; secondary
    ``b = [Uq diag(g) A' diag(Dp) + Up diag(bp_rows)] P diag(scale_q)`` (``bp_rows`` only
    with a closed-form diagonal term). Every projection is therefore
    ``left @ P * scale - offset`` with a ``left`` built from ``K_new U``: no ``n x k`` weight
    matrix is stored, so memory is one ``kp x k`` matrix per kappa.
    """

    correlations: np.ndarray
    P: Any
    Dp: Any
    a_rows: Any
    scale_p: Any
    g: Any
    bp_rows: Any | None
    scale_q: Any
    p_offset: Any
    q_offset: Any

    def cut(self, k: int) -> "KappaSolution":
        """The first ``k`` directions (the model with ``k`` components)."""
        return replace(
            self,
            correlations=self.correlations[:k],
            P=self.P[:, :k],
            scale_p=self.scale_p[:k],
            scale_q=self.scale_q[:k],
            p_offset=self.p_offset[:k],
            q_offset=self.q_offset[:k],
        )

    def left(self, core: SolverCore, role: str, KG: dict[str, Any]) -> Any:
        """The matrix multiplying ``P`` for view ``role`` given ``KG[v] = K_new U_v``."""
        xp = core.xp
        if role == "p":
            return KG[core.p.name] * self.a_rows
        out = xp.linalg.matmul(KG[core.q.name] * self.g, xp.matrix_transpose(core.A)) * self.Dp
        if self.bp_rows is not None:
            out = out + KG[core.p.name] * self.bp_rows
        return out

    def project(self, core: SolverCore, role: str, KG: dict[str, Any]) -> Any:
        """``K_new`` times the directions of view ``role`` (before centring)."""
        scale = self.scale_p if role == "p" else self.scale_q
        return core.xp.linalg.matmul(self.left(core, role, KG), self.P) * scale


def bases_needed(core: SolverCore, role: str) -> tuple[str, ...]:
    """Bases ``U_v`` a projection of view ``role`` uses."""
    if role == "p":
        return (core.p.name,)
    return (core.q.name, core.p.name) if core.q.delta > 0 else (core.q.name,)


def solve_kappa(core: SolverCore, kappa_x: float, kappa_y: float, k: int) -> KappaSolution:
    """Top ``k`` canonical directions of eq. 3 for one kappa (see the module docstring)."""
    xp, p, q = core.xp, core.p, core.q
    kp, kq = (kappa_y, kappa_x) if core.swapped else (kappa_x, kappa_y)
    Dp = xp.sqrt(p.s / (p.s + kp))
    t = q.s + q.delta
    Dq2 = t / (t + kq)
    c2 = q.delta / (q.delta + kq)
    inner = xp.linalg.matmul(core.A * (Dq2 - c2), xp.matrix_transpose(core.A))
    if c2 > 0:
        inner = inner + c2 * xp.eye(p.dim, dtype=xp.float64)
    S = Dp[:, None] * inner * Dp[None, :]
    del inner
    S = (S + xp.matrix_transpose(S)) / 2
    ev, P = xp.linalg.eigh(S)
    del S
    order = xp.asarray(np.arange(p.dim - 1, p.dim - 1 - k, -1))
    ev = xp.take(ev, order, axis=0)
    P = xp.take(P, order, axis=1)
    corr = np.sqrt(np.clip(to_numpy(ev), 0.0, 1.0))
    # deterministic sign: largest-magnitude entry of each p positive
    P_host = to_numpy(P)
    signs = np.sign(P_host[np.argmax(np.abs(P_host), axis=0), np.arange(k)])
    signs[signs == 0] = 1.0
    P = P * xp.asarray(signs)

    tiny = float(np.finfo(float).tiny ** 0.5)
    # primary view: a = Up diag(1/sqrt(s(s+kappa))) P, unit training projection |Dp P| = 1
    z_norm = xp.linalg.vector_norm(Dp[:, None] * P, axis=0)
    scale_p = 1.0 / xp.maximum(z_norm, tiny)
    a_rows = 1.0 / xp.sqrt(p.s * (p.s + kp))
    # secondary view: b = Uq diag(1/(t+k) - 1/(delta+k)) A'z + Up z/(delta+k), z = Dp P;
    # its training projection norm from A'z, formed a block of columns at a time
    proj2, comp = [], []
    for lo in range(0, k, _CHUNK):
        z = Dp[:, None] * P[:, lo : min(lo + _CHUNK, k)]
        Az = xp.linalg.matmul(xp.matrix_transpose(core.A), z)  # (kq, chunk)
        proj2.append(xp.sum((Dq2[:, None] * Az) ** 2, axis=0))
        if q.delta > 0:
            comp.append(xp.sum(z * z, axis=0) - xp.sum(Az * Az, axis=0))
    proj2 = xp.concat(proj2)
    if q.delta > 0:
        g = 1.0 / (t + kq) - 1.0 / (q.delta + kq)
        bp_rows = Dp / (q.delta + kq)
        proj2 = proj2 + c2**2 * xp.maximum(xp.concat(comp), 0.0)
    else:
        g, bp_rows = 1.0 / (t + kq), None
    norm = xp.sqrt(proj2)
    ok = norm > tiny
    scale_q = xp.where(ok, 1.0 / xp.where(ok, norm, 1.0), 0.0)  # zero-correlation: zero direction

    sol = KappaSolution(corr, P, Dp, a_rows, scale_p, g, bp_rows, scale_q, None, None)
    # offsets: training means of K_side @ weights (subtracted from new blocks)
    sol.p_offset = sol.project(core, "p", {p.name: core.mean_row(p.name, p.name)})[0, :]
    sol.q_offset = sol.project(
        core, "q", {v: core.mean_row(q.name, v) for v in bases_needed(core, "q")}
    )[0, :]
    return sol


def effective_kappas(core: SolverCore, kappa: float, rescale: str | None) -> tuple[float, float]:
    """Eq. 3's kappa per view. Opt-in rescaling K -> K / c is eq. 3 with kappa * c."""
    if rescale is None:
        return kappa, kappa
    x, y = (core.q, core.p) if core.swapped else (core.p, core.q)
    if rescale == "trace":
        return kappa * x.trace, kappa * y.trace
    return kappa * float(to_numpy(x.s)[0] + x.delta), kappa * float(to_numpy(y.s)[0] + y.delta)
