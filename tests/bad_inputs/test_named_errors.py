"""Named errors instead of crashes: ``kcca demo`` options out of range, an unknown
``score-captions --metrics`` name, scalar and empty KCCA grids, and kernels that eq. 3
(Section 3.2.1) cannot use (not positive semi-definite, NaN / inf).

Each CLI case goes through ``kcca._cli.main`` and expects exit status 2 with one ``error:``
line naming the option and its value and one ``fix:`` line naming the option.
"""

from __future__ import annotations

import argparse
import re

import numpy as np
import pytest

from kcca._cli import describe_error, main
from kcca.errors import DataError
from kcca._solver import KCCA, KCCAGrid
from tests.support.named_errors import one_error


# ----------------------------------------------------------------------- kcca demo options

#: (extra arguments, option, value as printed, text the fix must contain)
DEMO_CASES = [
    (["--n-count", "0"], "--n-count", "0", "1 or more"),
    (["--n-count", "-3"], "--n-count", "-3", "1 or more"),
    (["--n-train", "0"], "--n-train", "0", "6 or more"),
    (["--n-train", "5"], "--n-train", "5", "6 or more"),
    (["--n-dev", "0"], "--n-dev", "0", "1 or more"),
    (["--n-test", "0"], "--n-test", "0", "1 or more"),
    (["--image-size", "31"], "--image-size", "31", "32 or more"),
    (["--p", "2", "0"], "--p", "0", "> 0"),
    (["--d", "0.5"], "--d", "0.5", ">= 1"),
    (["--kappas", "0.1", "0"], "--kappas", "0", "> 0"),
    (["--kappas", "nan"], "--kappas", "nan", "> 0"),
    (["--sheet", "0"], "--sheet", "0", "1 or more"),
    (["--seed", "-1"], "--seed", "-1", "0 or a larger"),
    (["--jobs", "0"], "--jobs", "0", "-1 for all cores"),
]


def demo_argv(tmp_path, extra: list[str]) -> list[str]:
    """A small, uncached demo run (seconds, should a bad value get through) plus ``extra``."""
    return ["demo", "--out", str(tmp_path / "out"), "--n-train", "10", "--n-dev", "5",
            "--n-test", "5", "--image-size", "32", "--sheet", "1", "--p", "2", "--d", "1",
            "--kappas", "0.5", "--n-count", "3", "--no-cache", "--quiet", *extra]


@pytest.mark.parametrize("extra, option, value, fix_text", DEMO_CASES,
                         ids=[" ".join(c[0]) for c in DEMO_CASES])
def test_demo_option_out_of_range_is_a_named_error(tmp_path, capsys, extra, option, value,
                                                   fix_text):
    code = main(demo_argv(tmp_path, extra))
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert option in error and re.search(rf"got {re.escape(value)}\b", error), error
    assert option in fix and fix_text in fix, fix
    assert not (tmp_path / "out").exists()  # refused before any work


def test_demo_out_naming_an_existing_file_is_a_named_error(tmp_path, capsys):
    afile = tmp_path / "results.txt"
    afile.write_text("keep me")
    code = main(demo_argv(tmp_path, ["--out", str(afile)]))
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert "--out" in error and str(afile) in error and "file" in error, error
    assert "--out" in fix, fix
    assert afile.read_text() == "keep me"


def test_demo_out_under_an_existing_file_is_a_named_error(tmp_path, capsys):
    afile = tmp_path / "results.txt"
    afile.write_text("keep me")
    code = main(demo_argv(tmp_path, ["--out", str(afile / "demo")]))
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert "--out" in error and str(afile) in error, error
    assert "--out" in fix, fix


#: (command and its own arguments, grid flag, value as printed, text the fix must contain)
GRID_FLAG_CASES = [
    (["reproduce", "--systems", "BoW5", "--tables", "3"], ["--p", "inf"], "--p", "inf", "> 0"),
    (["reproduce", "--systems", "BoW5", "--tables", "3"], ["--d", "0.5"], "--d", "0.5", ">= 1"),
    (["fit-model", "--demo"], ["--p", "2", "nan"], "--p", "nan", "> 0"),
    (["fit-model", "--demo"], ["--d", "inf"], "--d", "inf", ">= 1"),
]


@pytest.mark.parametrize("command, extra, option, value, fix_text", GRID_FLAG_CASES,
                         ids=[" ".join(c[0][:1] + c[1]) for c in GRID_FLAG_CASES])
def test_a_grid_flag_out_of_range_is_named_before_any_work(tmp_path, capsys, monkeypatch,
                                                          command, extra, option, value,
                                                          fix_text):
    """``--p`` / ``--d`` of kcca reproduce and kcca fit-model are checked as kcca demo's are
    (argparse reads ``inf`` and ``nan`` as floats), before the data is read."""
    from tests.support.fake_flickr8k import write_fake_flickr8k

    write_fake_flickr8k(tmp_path / "data", images=False)
    monkeypatch.setenv("KCCA_DATA_DIR", str(tmp_path / "data"))
    code = main([*command, *extra, "--out", str(tmp_path / "out"), "--cache-dir",
                 str(tmp_path / "cache"), "--quiet"])
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert option in error and re.search(rf"got {re.escape(value)}\b", error), error
    assert option in fix and fix_text in fix, fix
    assert not (tmp_path / "out").exists() and not (tmp_path / "cache").exists()


@pytest.mark.parametrize("extra, named", [
    (["--p", "3"], "--p"),
    (["--d", "2", "--precision", "1e-3"], "--d, --precision"),
    (["--image-config", "{}"], "--image-config"),
    (["--search-rank", "500"], "--search-rank"),
    (["--scheduler", "tcp://127.0.0.1:8786"], "--scheduler"),
    (["--backend", "numpy"], "--backend"),
])
def test_tables_only_refuses_a_flag_that_changes_only_a_run(tmp_path, capsys, monkeypatch,
                                                            extra, named):
    """``kcca reproduce --tables-only`` runs no system; a run-only flag is named, not dropped.
    (Without the data and with one table, a flag let through costs seconds.)"""
    from pathlib import Path

    monkeypatch.delenv("KCCA_DATA_DIR", raising=False)
    rankings = Path(__file__).resolve().parents[2] / "results" / "hodosh2013" / "rankings"
    code = main(["reproduce", "--tables-only", "--rankings-dir", str(rankings), "--out",
                 str(tmp_path / "out"), "--tables", "1", "--samples", "10", "--no-plots",
                 "--quiet", *extra])
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error == f"--tables-only runs no system, so {named} would change nothing", error
    assert fix.startswith(f"drop {named}"), fix
    assert not (tmp_path / "out").exists()


#: (arguments, text of the error line, text of the fix line): counts checked before any data
COUNT_CASES = [
    (["similar-words", "rider", "-k", "0"], "-k must be 1 or more, got 0", "-k 5"),
    (["similar-words", "rider", "--values", "similarity", "--similarity", "dist-avg"],
     "dist-avg has none of its own", "--values kernel"),
    (["caption-analysis", "keywords", "--neighbours", "0"], "--neighbours must be 1 or more",
     "--neighbours 5"),
    (["features", "--chunk-size", "0"], "--chunk-size must be 1 or more", "--chunk-size 16"),
]


@pytest.mark.parametrize("argv, error_text, fix_text", COUNT_CASES,
                         ids=[" ".join(c[0]) for c in COUNT_CASES])
def test_a_count_out_of_range_is_named_before_the_data_is_read(tmp_path, capsys, monkeypatch,
                                                              argv, error_text, fix_text):
    """Each was a plain exit message (status 1), or was changed silently (a chunk size of 0
    became 1)."""
    monkeypatch.setenv("KCCA_DATA_DIR", str(tmp_path / "no-data"))  # never a long run
    code = main([*argv, "--no-cache", "--quiet"])
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error_text in error, error
    assert fix_text in fix, fix


# ----------------------------------------------------------------------- score-captions
def test_score_captions_unknown_metric_lists_the_known_ones(tmp_path, capsys):
    from kcca._cli.score_captions_cmd import METRIC_CHOICES

    code = main(["score-captions", "--metrics", "bleu,foo", "--references",
                 str(tmp_path / "refs.json"), "--candidates", str(tmp_path / "cands.json")])
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert "'foo'" in error and "--metrics" in error, error
    assert "--metrics" in fix and all(m in fix for m in METRIC_CHOICES), fix


# ----------------------------------------------------------------------- KCCAGrid arguments
def kernels(n: int = 60, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(n, 2))
    X = np.c_[L, rng.normal(size=(n, 4))]
    Y = np.c_[L + 0.3 * rng.normal(size=(n, 2)), rng.normal(size=(n, 3))]
    return X @ X.T, Y @ Y.T


def test_grid_scalar_kappa_and_n_are_one_value_grids():
    Kx, Ky = kernels()
    scalar = KCCAGrid(kappas=0.1, n_components=3).fit(Kx, Ky)
    listed = KCCAGrid(kappas=[0.1], n_components=[3]).fit(Kx, Ky)
    assert scalar.kappas_ == (0.1,) and scalar.n_components_.tolist() == [3]
    assert scalar.models_ == [(0.1, 3)]
    np.testing.assert_array_equal(scalar.correlations_, listed.correlations_)
    np.testing.assert_array_equal(scalar.transform_x(Kx[:5])[0], listed.transform_x(Kx[:5])[0])
    numpy_scalars = KCCAGrid(kappas=np.float64(0.1), n_components=np.int64(3)).fit(Kx, Ky)
    np.testing.assert_array_equal(numpy_scalars.correlations_, listed.correlations_)


@pytest.mark.parametrize("kwargs, argument", [
    (dict(n_components=[]), "n_components"),
    (dict(n_components=np.array([], dtype=int)), "n_components"),
    (dict(kappas=[]), "kappas"),
    (dict(kappas="0.1"), "kappas"),
])
def test_grid_empty_or_string_argument_is_named(kwargs, argument):
    Kx, Ky = kernels()
    with pytest.raises(ValueError, match=rf"^{argument} must ") as err:
        KCCAGrid(**kwargs).fit(Kx, Ky)
    assert "zero-size" not in str(err.value)


# ----------------------------------------------------------------------- kernels eq. 3 can't use
def is_kernel_error(exc: BaseException) -> bool:
    return type(exc).__name__ == "KernelError" and isinstance(exc, DataError)


@pytest.mark.parametrize("estimator", [
    lambda: KCCA(kappa=0.1, n_components=2),
    lambda: KCCAGrid(kappas=[0.1, 1.0], n_components=[1, 2]),
], ids=["KCCA", "KCCAGrid"])
def test_negated_kernel_is_refused_naming_the_view_and_eigenvalue_ratio(estimator):
    Kx, Ky = kernels()
    with pytest.raises(DataError) as err:
        estimator().fit(-Kx, Ky)
    message = str(err.value)
    assert is_kernel_error(err.value)
    assert message.startswith("Kx is not positive semi-definite")
    m = re.search(r"eigenvalue of its centred form is (\S+) = (\S+) x trace", message)
    assert m, message
    # the ratio printed is the most negative centred eigenvalue over sum |K[i, i]|
    Kc = -(Kx - Kx.mean(0) - Kx.mean(1, keepdims=True) + Kx.mean())
    expected = np.linalg.eigvalsh(Kc)[0] / np.abs(np.diagonal(Kx)).sum()
    assert float(m.group(2)) == pytest.approx(expected, rel=0.06)
    assert expected < -0.01
    assert "tolerance 1e-08 x trace" in message
    with pytest.raises(DataError, match="^Ky is not positive semi-definite"):
        estimator().fit(Kx, -Ky)


def test_indefinite_kernel_refused_by_the_cholesky_factorisation():
    """A positive diagonal but a negative eigenvalue: seen as a negative residual diagonal."""
    Kx, Ky = kernels()
    rng = np.random.default_rng(3)
    Q, _ = np.linalg.qr(rng.normal(size=(60, 60)))
    bad = Kx + Q[:, :2] @ np.diag([-0.5, -0.2]) @ Q[:, :2].T * np.trace(Kx) / 10
    assert np.diagonal(bad).min() > 0 and np.linalg.eigvalsh(bad)[0] < 0
    for factorisation in ("cholesky", "eigen"):
        with pytest.raises(DataError, match="^Kx is not positive semi-definite") as err:
            KCCA(n_components=2, factorisation=factorisation).fit(bad, Ky)
        assert is_kernel_error(err.value)
    with pytest.raises(DataError, match=r"Kx is not positive semi-definite: diagonal entry"):
        KCCA(n_components=2, factorisation="cholesky").fit(-Kx, Ky)


def test_not_psd_kernel_is_a_named_cli_error_with_an_actionable_fix():
    Kx, Ky = kernels()
    with pytest.raises(DataError) as err:
        KCCA(n_components=2).fit(-Kx, Ky)
    message, fix, status = describe_error(err.value, argparse.Namespace(command="reproduce"))
    assert status == 2 and message.startswith("Kx is not positive semi-definite")
    assert "positive semi-definite" in fix and "identity" in fix and "gram()" in fix


@pytest.mark.parametrize("view", ["Kx", "Ky"])
@pytest.mark.parametrize("bad_value", [np.nan, np.inf])
def test_non_finite_kernel_is_refused_naming_the_view(view, bad_value):
    Kx, Ky = kernels()
    K = (Kx if view == "Kx" else Ky).copy()
    K[3, 7] = K[7, 3] = bad_value
    args = (K, Ky) if view == "Kx" else (Kx, K)
    with pytest.raises(DataError, match=rf"^{view} has a non-finite entry") as err:
        KCCA(n_components=2).fit(*args)
    assert is_kernel_error(err.value)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_power_overflowing_to_inf_is_refused_naming_the_view():
    Kx, Ky = kernels()
    for factorisation in ("eigen", "cholesky"):
        with pytest.raises(DataError, match=r"Kx( \*\* 3)? has a non-finite entry inf"):
            KCCA(n_components=2, power_x=3, factorisation=factorisation).fit(Kx * 1e120, Ky)


def test_valid_kernel_with_round_off_negative_eigenvalues_is_accepted_unchanged():
    """A rank-deficient Gram of random features raised to p = 3: its centred form has
    negative eigenvalues at rounding level, below the tolerance; the numbers are eq. 3's."""
    rng = np.random.default_rng(11)
    n = 200
    X = rng.random((n, 3))
    Y = np.c_[X[:, :2] + 0.2 * rng.normal(size=(n, 2)), rng.random((n, 2))]
    Kx, Ky = X @ X.T, Y @ Y.T
    Kx3 = Kx ** 3  # rank <= 10 (cubic monomials of 3 features)
    Kc = Kx3 - Kx3.mean(0) - Kx3.mean(1, keepdims=True) + Kx3.mean()
    w = np.linalg.eigvalsh(Kc)
    assert w[0] < 0 and w[0] > -1e-12 * np.trace(Kx3)  # round-off negatives
    before = (Kx.copy(), Ky.copy())
    for factorisation in ("eigen", "cholesky"):
        m = KCCA(kappa=0.5, n_components=3, power_x=3, precision=0,
                 factorisation=factorisation).fit(Kx, Ky)
        np.testing.assert_array_equal(Kx, before[0])
        np.testing.assert_array_equal(Ky, before[1])
        # eq. 3 on the centred kernels, dense (Section 3.2.1)
        out = []
        for K in (Kx3, Ky):
            Kcc = K - K.mean(0) - K.mean(1, keepdims=True) + K.mean()
            s, U = np.linalg.eigh(Kcc)
            keep = s > 1e-12 * s.max()
            out.append((s[keep], U[:, keep]))
        (sx, Ux), (sy, Uy) = out
        M = (np.sqrt(sx / (sx + 0.5))[:, None] * (Ux.T @ Uy)) * np.sqrt(sy / (sy + 0.5))[None]
        np.testing.assert_allclose(m.correlations_, np.linalg.svd(M, compute_uv=False)[:3],
                                   atol=1e-9)
        assert m.rank_x_ == 10
