"""Which logarithm did the paper's IDF use? It matters for the sqrt-IDF trigram kernels only.

    python scripts/idf_log_base.py --data-dir D [--system TRI5^sqrtidf] [--bases e 10 2]

The paper defines ``lambda_w = log(|D_train| / (|D_train(w)| + 1))`` (Section 3.1) without a base;
we read the natural logarithm (docs/paper-notes.md#idf-weights). For BoW and the NN systems the base
cannot matter (a common factor cancels in a cosine or an F1). For the trigram kernel with sqrt-IDF
(eq. 16 / 21) it does: a length-l sequence is weighted by the product of l IDFs, so base b
multiplies its contribution by ``(1 / ln b)^l``, which is exactly the kernel with the match weight
``lambda_m / sqrt(ln b)`` instead of ``lambda_m`` (eq. 15: ``lambda_m^(2l)``). This script builds
the system's text kernel with that match weight for each base (cached like any text kernel), fits
its KCCA grid at p = 2, d = 1 (full precision, the paper's kappas and n) on the system's image
kernel and prints the dev criterion of ``kcca._systems.grid`` (dev R@1+R@5+R@10 of the 15-model
Borda, both tasks). Dev only: the test split is never read.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

from kcca._systems.dev_check import (OpenSystem, add_system_arguments, describe, dev_check,
                                    open_system_from)

BASES = {"e": math.e, "10": 10.0, "2": 2.0}


def match_weight(lambda_m: float, base: float) -> float:
    """The match weight that gives IDFs in ``base`` with natural-log IDFs (module docstring)."""
    if not base > 1:
        raise ValueError(f"a logarithm base must exceed 1, got {base}")
    return lambda_m / math.sqrt(math.log(base))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bases", nargs="+", choices=sorted(BASES), default=["e", "10", "2"])
    add_system_arguments(parser)
    parser.set_defaults(system="TRI5^sqrtidf")
    args = parser.parse_args(argv)

    from kcca._systems import KernelSpec

    system = open_system_from(args)
    spec = system.spec
    params = dict(spec.text_kernel.params)
    if spec.text_kernel.name != "trigram" or params.get("weighting") != "sqrt-idf":
        parser.error(f"{spec.name} has no sqrt-IDF trigram kernel: the log base cannot matter")
    image = system.ws.image_blocks(spec.image_kernel)
    lambda_m = float(params.get("lambda_m", 0.5))
    for name in args.bases:
        t = time.perf_counter()
        weight = match_weight(lambda_m, BASES[name])
        kernel = KernelSpec(spec.text_kernel.name,
                            params if name == "e" else {**params, "lambda_m": round(weight, 6)})
        text = system.ws.text_blocks(kernel, spec.preprocessing, spec.word_kernel)
        outcome = dev_check(OpenSystem(system.ws, spec, text), image.train, image.dev, p=2, d=1)
        system.ws.factor_cache.clear_view("Ky")
        print(f"{spec.name}, IDF log base {name} (lambda_m {weight:.4f}): {describe(outcome)} "
              f"({time.perf_counter() - t:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
