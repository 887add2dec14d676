"""A ``plugins = [...]`` module that registers no kernel is a named ``PluginError``: a module
of Python's standard library is refused before it is imported (``this`` printed the Zen of
Python), any other one after. Before: ``plugins = ["os", "this"]`` was accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from kcca._cli import main
from kcca.errors import PluginError
from kcca._systems import load_spec
from tests.support.named_errors import one_error

KERNELS = '\nname = "X"\n\n[image_kernel]\nname = "pyramid"\n\n[text_kernel]\nname = "bow"\n'
FIX = ("name the module that defines your @register_kernel classes (docs/plugin-kernels.md), "
       "or drop it from plugins = [...]")


def experiment(folder: Path, plugins: str) -> Path:
    path = folder / "01-x.toml"
    path.write_text(f"plugins = {plugins}" + KERNELS)
    return path


@pytest.mark.parametrize("plugins, module", [('["os", "this"]', "os"), ('["this"]', "this"),
                                             ('["json.decoder"]', "json.decoder")])
def test_a_standard_library_module_is_refused_before_it_is_imported(tmp_path, capsys, plugins,
                                                                    module):
    path = experiment(tmp_path, plugins)
    with pytest.raises(PluginError) as err:
        load_spec(path)
    assert str(err.value) == (f"{path}: plugins: {module!r} is a module of Python's standard "
                              "library, not a kernel plug-in")
    assert err.value.fix == FIX
    assert "Beautiful is better than ugly" not in capsys.readouterr().out  # never imported


def test_a_module_that_registers_no_kernel_is_refused(tmp_path):
    (tmp_path / "my_helpers.py").write_text("VALUE = 1\n")
    path = experiment(tmp_path, '["my_helpers"]')
    with pytest.raises(PluginError) as err:
        load_spec(path)
    assert str(err.value) == (f"{path}: plugins: module 'my_helpers' registers no kernel (it "
                              "defines no @register_kernel class, and importing it registered "
                              "none)")


def test_the_cli_names_the_plugin(tmp_path, capsys, monkeypatch):
    from tests.support.fake_flickr8k import write_fake_flickr8k

    write_fake_flickr8k(tmp_path / "data", images=False)
    monkeypatch.setenv("KCCA_DATA_DIR", str(tmp_path / "data"))
    folder = tmp_path / "exp"
    folder.mkdir()
    path = experiment(folder, '["os"]')
    code = main(["reproduce", "--experiments", str(folder), "--systems", "X", "--tables", "3",
                 "--out", str(tmp_path / "out"), "--no-cache", "--quiet"])
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error == (f"{path}: plugins: 'os' is a module of Python's standard library, not a "
                     "kernel plug-in"), error
    assert fix == FIX


def test_a_module_that_registers_a_kernel_is_loaded(tmp_path):
    (tmp_path / "my_kernels_xyz.py").write_text(
        "from features.kernels._base import Kernel, register_kernel\n\n"
        "@register_kernel('my-kernel-xyz')\nclass Mine(Kernel):\n    pass\n")
    load_spec(experiment(tmp_path, '["my_kernels_xyz"]'))
    load_spec(experiment(tmp_path, '["my_kernels_xyz"]'))  # again: already imported
