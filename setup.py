"""Build script. The project's metadata lives in pyproject.toml; this file adds what its static
tables cannot say: the experiment files the commands read by default (``experiments/demo``,
``experiments/hodosh2013``, ``experiments/beyond`` and ``experiments/vectors`` with its
sub-folders) travel inside the package as
``kcca/experiments/<name>``, so ``kcca demo`` and ``kcca reproduce`` run from any install, not
only from a clone (:func:`kcca._systems.spec.default_experiments_dir`)."""

from setuptools import find_packages, setup

#: the folders of experiments/ that go into the package
EXPERIMENTS = ("demo", "hodosh2013", "beyond", "vectors")

setup(
    packages=find_packages(include=["kcca*", "features*"])
    + [f"kcca.experiments.{name}" for name in EXPERIMENTS],
    package_dir={f"kcca.experiments.{name}": f"experiments/{name}" for name in EXPERIMENTS},
    package_data={
        "kcca._report": ["static/*.css", "static/*.js"],
        **{
            f"kcca.experiments.{name}": ["*.toml", "*.md", "*/*.toml", "*/*.md"]
            for name in EXPERIMENTS
        },
    },
)
