"""Names an experiment file may use: registered kernels, the NN F1 similarities, word kernels.

Kernels come from the registry of :mod:`features.kernels._base` (``pyramid``, ``histogram``,
``bow``, ``tagrank``, ``trigram`` and plug-ins). The nearest-neighbour text similarities of
Section 3.1 (:class:`features.text.F1Similarity`, NN5_F1 and NN5_F1^idf) follow the same contract;
they are registered as ``nn-f1`` in :mod:`kcca.nn`. Word kernels are the names of
:data:`features.text._word_kernels.WORD_KERNELS` (Section 3.5).
"""

from __future__ import annotations

from typing import Any

from features.kernels._base import available_kernels, kernel_class
from kcca.errors import DataError, KccaUserError

IMAGE_KERNELS = ("pyramid", "histogram")


def word_kernel_names() -> tuple[str, ...]:
    """Every word-kernel name an experiment file may give (``word_kernel = ...``)."""
    from features.text._word_kernels import WORD_KERNELS

    return tuple(WORD_KERNELS)


def make_any_kernel(name: str, **params: Any):
    """A registered kernel (``nn-f1`` included) by name.

    Unknown names raise :class:`kcca.errors.UnknownNameError` (a DataError naming close
    matches); a plug-in that fails to import, :class:`kcca.errors.PluginError`.
    """
    cls = kernel_class(name)
    try:
        return cls(**params)
    except KccaUserError:
        raise
    except TypeError as exc:
        raise DataError(
            f"kernel {name!r} does not take these parameters {params}: {exc}",
            fix=f"give only the parameters of {cls.__module__}.{cls.__qualname__}"
            " (its constructor arguments)",
        ) from None
    except ValueError as exc:  # a parameter out of range, named by the kernel's own check
        raise DataError(
            f"kernel {name!r}: {exc}",
            fix=f"correct the kernel's parameters in the experiment file (the values "
            f"{cls.__module__}.{cls.__qualname__} takes are in its docstring)",
        ) from None


def is_image_kernel(name: str) -> bool:
    """A built-in image kernel, or a registered one declaring an image ``item_type`` (or
    ``"ids"``, which serves either side: the ``vectors`` kernel)."""
    if name in IMAGE_KERNELS:
        return True
    try:
        cls = kernel_class(name)
    except KeyError:
        return False
    item_type = str(getattr(cls, "item_type", None) or "")
    return item_type.startswith("image") or item_type == "ids"


def check_names(spec) -> list[str]:
    """Problems with the names a :class:`~kcca._systems.spec.SystemSpec` uses (empty: fine)."""
    problems = []
    known = set(available_kernels())
    if spec.image_kernel.name not in known or not is_image_kernel(spec.image_kernel.name):
        problems.append(
            f"image kernel {spec.image_kernel.name!r} is not one of {IMAGE_KERNELS}"
            " or a registered kernel with an image item_type"
        )
    for k in spec.candidate_text_kernels:
        params = dict(k.params)
        wk = params.pop("word_kernel", None)  # an NN candidate's own word kernel (by name)
        if wk is not None and wk not in word_kernel_names():
            problems.append(f"word kernel {wk!r} is not one of {word_kernel_names()}")
        if k.name not in known:
            problems.append(f"text kernel {k.name!r} is not registered ({sorted(known)})")
        else:
            try:
                make_any_kernel(k.name, **params)
            except DataError as exc:
                problems.append(str(exc))
    if spec.word_kernel is not None:
        if spec.word_kernel not in word_kernel_names():
            problems.append(f"word kernel {spec.word_kernel!r} is not one of {word_kernel_names()}")
        if spec.text_kernel.name != "trigram":
            problems.append("a word kernel needs the trigram text kernel (eq. 20-21)")
    return problems
