"""The system runner: experiment files -> kernels -> KCCA / NN -> Borda -> test metrics.

* :mod:`~kcca._systems.spec`: :class:`SystemSpec`, a declarative system of the paper's Table 11
  (kernel pair, preprocessing, word kernel, model, p / d / kappa / n grid), read from TOML/JSON;
* :mod:`~kcca._systems.registry`: the names an experiment file may use;
* :mod:`~kcca._systems.config`: :class:`RunConfig`, a run's settings (what changes the numbers)
  and execution (how it runs), the one carrier of both;
* :mod:`~kcca._systems.blocks`: :class:`Workspace`, the cached kernel blocks of a corpus;
* :mod:`~kcca._systems.grid`: the KCCA grid on dev, the p/d choice, Borda rankings;
* :mod:`~kcca._systems.runner`: :func:`run_system` and :class:`SystemResult`;
* :mod:`~kcca._systems.fitted`: :class:`Projections`, the chosen models' directions a run keeps
  (``keep_models=True``) and a saved model ranks with;
* :mod:`~kcca._systems.run`: :func:`run_systems`, several systems on one of three executors.

The tables beside the paper's numbers are :mod:`kcca._paper`.
"""

from kcca._systems.blocks import Blocks, Workspace
from kcca._systems.config import Execution, RunConfig, RunSettings
from kcca._systems.fitted import Projections
from kcca._systems.registry import check_names, make_any_kernel
from kcca._systems.runner import SystemResult, run_system
from kcca._systems.spec import GridSpec, KernelSpec, SystemSpec, load_spec, load_specs, select_specs

__all__ = [
    "Blocks",
    "Execution",
    "GridSpec",
    "KernelSpec",
    "Projections",
    "RunConfig",
    "RunSettings",
    "SystemResult",
    "SystemSpec",
    "Workspace",
    "check_names",
    "load_spec",
    "load_specs",
    "make_any_kernel",
    "run_system",
    "select_specs",
]
