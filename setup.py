"""Build script. The project's metadata lives in pyproject.toml; this file adds what its static
tables cannot say: the demo's experiment files (``experiments/demo``, read by ``kcca demo`` and
the demo model) travel inside the package as ``kcca/experiments/demo``, so the demo runs from
any install, not only from a clone."""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["kcca*", "features*"]) + ["kcca.experiments.demo"],
    package_dir={"kcca.experiments.demo": "experiments/demo"},
    package_data={
        "kcca.report": ["static/*.css", "static/*.js"],
        "kcca.experiments.demo": ["*.toml", "*.md"],
    },
)
