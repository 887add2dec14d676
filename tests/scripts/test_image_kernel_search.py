"""scripts/image_kernel_search.py: every variant is a valid image kernel; the chosen one is the
experiment files' kernel."""

from __future__ import annotations

import pytest

from kcca.systems import KernelSpec, load_specs
from kcca.systems.registry import is_image_kernel
from tests.scripts.load import ROOT, load_script


@pytest.fixture(scope="module")
def script():
    return load_script("image_kernel_search")


def test_every_variant_builds_as_an_image_kernel(script):
    for name, (kernel, params, power) in script.variants().items():
        built = KernelSpec(kernel, params).build()
        assert is_image_kernel(kernel), name
        assert power in (1.0, 2.0)
        if kernel == "mix":
            assert len(built.part_kernels()) == len(params["parts"])


@pytest.mark.parametrize("variant, systems", [
    ("py+fv-scales4,6,8,10", ("TRI5SEM+FV", "BoW5+FV")),
    ("py+fv+colorfv", ("TRI5SEM+FV+CFV", "BoW5+FV+CFV")),
])
def test_the_chosen_variants_are_the_experiment_files_image_kernels(script, variant, systems):
    kernel, params, _ = script.variants()[variant]
    beyond = {s.short_name: s for s in load_specs(ROOT / "experiments" / "beyond")}
    for name in systems:
        s = beyond[name]
        assert s.image_kernel.name == kernel
        assert s.image_kernel == KernelSpec(kernel, params)   # same spelling: same cache key


def test_unknown_variant_is_refused(script):
    with pytest.raises(SystemExit):
        script.main(["--variants", "no-such-kernel"])
