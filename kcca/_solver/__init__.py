"""Kernel CCA on precomputed kernels (Section 3.2.1, eq. 3), solved through low-rank factors.

Objective (eq. 3), with both training kernels centred on the training set::

    max  a' Kx Ky b / sqrt((a' Kx^2 a + kappa a' Kx a) (b' Ky^2 b + kappa b' Ky b))

Derivation of the symmetric form used here. Let the centred kernel be ``Kx = Ux diag(sx) Ux'``
(``sx > 0``; for a dense kernel from one ``eigh`` of the centred matrix, truncated by
``precision`` — the ``"eigen"`` factorisation, the best approximation of each rank; for
kernels given as columns on demand from the centred incomplete-Cholesky factor ``Gx``,
``Ux = Gx Wx sx^-1/2`` where ``Gx' Gx = Wx diag(sx) Wx'``). Writing
``a = Ux diag(1/sqrt(sx (sx + kappa))) p`` turns the denominator into ``|p|`` and the numerator
into ``p' M q`` with::

    M = diag(sqrt(sx/(sx+kappa))) Ux' Uy diag(sqrt(sy/(sy+kappa)))

so the canonical correlations (lambda of Section 3.2.1, not lambda^2) are the singular values of
``M``, the same as those of ``Ux Dx Ux' Uy Dy Uy'`` (the test suite checks both against dense
solutions). ``M`` is at most ``r x r``; one factorisation per kernel serves every kappa, and the
directions for ``n`` components are the first ``n`` of one solve, so the paper's whole grid is one
call (:class:`KCCAGrid`). The unstable non-symmetric eigenproblem of Section 3.2.1 is never formed.

The text kernel's diagonal factor ``d`` (Section 4.1.3) turns ``Ky`` into ``Ky + delta I`` with
``delta = (d - 1) * Ky[i, i]`` (constant diagonal): that matrix is full rank, but its centred
form is ``Uy diag(sy + delta) Uy' + delta (H - Uy Uy')``, so the complement of ``Uy`` is handled
in closed form instead of factorising ``n`` columns. When the diagonal is not constant the
scaled kernel is factorised directly (exact, but of higher rank).

Scaling (Hardoon et al.'s implementation, which the paper used): each canonical direction is
scaled so that the training projection ``Kx a`` has unit norm; directions are not weighted by
their correlation. New-by-train blocks are centred with the training statistics; because every
direction is orthogonal to the constant vector this amounts to subtracting the training mean
of the projection.

Both estimators follow scikit-learn's conventions: parameters are set by ``__init__`` only
(``get_params`` / ``set_params`` / ``clone``), fitted attributes end in ``_``, a method that
needs a fit raises :class:`sklearn.exceptions.NotFittedError` before one, and a fitted
estimator pickles (``pickle`` / ``joblib.dump``) with its arrays as host NumPy arrays and its
array backend by name; loading moves them back to that backend, or keeps NumPy where the
backend is missing (a model fitted on the GPU loads on a machine without cupy).
"""

from kcca._solver.estimators import KCCA, PAPER_KAPPAS, KCCAGrid, paper_n_grid
from kcca._solver.factors import FACTORISATIONS, FactorCache

__all__ = ["FACTORISATIONS", "KCCA", "PAPER_KAPPAS", "FactorCache", "KCCAGrid", "paper_n_grid"]
