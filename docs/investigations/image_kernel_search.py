"""Which image kernel for TRI5SEM+FV? The dev comparison of experiments/beyond/README.md.

    python scripts/image_kernel_search.py --data-dir D [--variants pyramid py+fv ...] [--cache-dir C]

For each variant (an image :class:`~kcca._systems.spec.KernelSpec`: the paper's pyramid kernel,
the ``fisher`` kernel, or a ``mix`` of them) this fits TRI5SEM's KCCA grid at p = 2, d = 1 (full
precision, the paper's kappas and n) and prints the dev criterion of ``kcca._systems.grid``
(dev R@1+R@5+R@10 of the 15-model Borda, both tasks summed), beside the dev recalls. Dev only:
the test split is never read. Blocks are cached like a system's (``kcca reproduce`` reuses them).
About 4 min per variant on 2 cores once its blocks exist; Fisher vectors of the 8,000 images take
2-5 min per setting.
"""

from __future__ import annotations

import argparse
import sys
import time

from kcca._systems.dev_check import (add_system_arguments, describe, dev_check,
                                    open_system_from)

FV = {"n_gaussians": 64, "pca_dim": 64, "strips": 3}
FV4 = {**FV, "bin_sizes": [4, 6, 8, 10]}
CFV4 = {**FV4, "descriptor": "color"}
LABFV4 = {**FV4, "descriptor": "color-lab"}


def _mix(*parts: tuple[str, dict, float]) -> dict:
    """``mix`` params, spelled as the experiment files spell them (no ``params`` when empty),
    so a variant and a system with the same kernel share cached blocks and factors."""
    return {"parts": [{"name": n, **({"params": p} if p else {}), "weight": w}
                      for n, p, w in parts]}


def variants() -> dict[str, tuple[str, dict, float]]:
    """name -> (kernel name, params, p) of every row of the README's table."""
    return {
        "pyramid": ("pyramid", {}, 2.0),
        "fv-p1": ("fisher", FV, 1.0),
        "fv-p2": ("fisher", FV, 2.0),
        "color+texture+fv": ("mix", _mix(("pyramid", {"feature_types": ["color"]}, 1),
                                         ("pyramid", {"feature_types": ["texture"]}, 1),
                                         ("fisher", FV, 1)), 2.0),
        "py+2fv": ("mix", _mix(("pyramid", {}, 1), ("fisher", FV, 2)), 2.0),
        "py+fv": ("mix", _mix(("pyramid", {}, 1), ("fisher", FV, 1)), 2.0),
        "py+fv-k128": ("mix", _mix(("pyramid", {}, 1), ("fisher", {**FV, "n_gaussians": 128}, 1)),
                       2.0),
        "py+fv-scales4,8": ("mix", _mix(("pyramid", {}, 1),
                                        ("fisher", {**FV, "bin_sizes": [4, 8]}, 1)), 2.0),
        "py+fv-scales4,6,8,10": ("mix", _mix(("pyramid", {}, 1), ("fisher", FV4, 1)), 2.0),
        "2py+fv-scales4,6,8,10": ("mix", _mix(("pyramid", {}, 2), ("fisher", FV4, 1)), 2.0),
        "py+fv+colorfv": ("mix", _mix(("pyramid", {}, 1), ("fisher", FV4, 1),
                                      ("fisher", CFV4, 1)), 2.0),
        "2py+2fv+colorfv": ("mix", _mix(("pyramid", {}, 2), ("fisher", FV4, 2),
                                        ("fisher", CFV4, 1)), 2.0),
        "py+fv+2colorfv": ("mix", _mix(("pyramid", {}, 1), ("fisher", FV4, 1),
                                       ("fisher", CFV4, 2)), 2.0),
        "fv+colorfv": ("mix", _mix(("fisher", FV4, 1), ("fisher", CFV4, 1)), 2.0),
        "2py+fv+colorfv": ("mix", _mix(("pyramid", {}, 2), ("fisher", FV4, 1),
                                       ("fisher", CFV4, 1)), 2.0),
        "py+2fv+colorfv": ("mix", _mix(("pyramid", {}, 1), ("fisher", FV4, 2),
                                       ("fisher", CFV4, 1)), 2.0),
        "py+fv+labfv": ("mix", _mix(("pyramid", {}, 1), ("fisher", FV4, 1),
                                    ("fisher", LABFV4, 1)), 2.0),
        "py+fv+colorfv+labfv": ("mix", _mix(("pyramid", {}, 1), ("fisher", FV4, 1),
                                            ("fisher", CFV4, 1), ("fisher", LABFV4, 1)), 2.0),
        "py+fv+colorfv-p1": ("mix", _mix(("pyramid", {}, 1), ("fisher", FV4, 1),
                                         ("fisher", CFV4, 1)), 1.0),
        "py+fv+colorfv-k128": ("mix", _mix(("pyramid", {}, 1), ("fisher", FV4, 1),
                                           ("fisher", {**CFV4, "n_gaussians": 128}, 1)), 2.0),
    }


def main(argv: list[str] | None = None) -> int:
    table = variants()
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variants", nargs="+", choices=sorted(table), default=list(table))
    p.add_argument("--kappas", type=float, nargs="+", default=None,
                   help="regularisation values of the grid (default the experiment file's, "
                        "the paper's 0.1 0.5 1 5)")
    add_system_arguments(p)
    args = p.parse_args(argv)

    from kcca._systems import KernelSpec

    system = open_system_from(args)
    for name in args.variants:
        kernel, params, power = table[name]
        t = time.perf_counter()
        image = system.ws.image_blocks(KernelSpec(kernel, params))
        outcome = dev_check(system, image.train, image.dev, p=power, d=1, kappas=args.kappas)
        kappas = "" if args.kappas is None else f", kappas {args.kappas}"
        print(f"{system.spec.name} image kernel {name} (p = {power:g}{kappas}): {describe(outcome)} "
              f"({time.perf_counter() - t:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
