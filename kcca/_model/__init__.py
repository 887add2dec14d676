"""Saved models: a fitted system that ranks images for any sentence and captions for any image.

* :mod:`~kcca._model.saved`: :class:`FittedSystem` (``rank_images``, ``rank_captions``, pools
  of new images or captions), :func:`save_model` / :func:`load_model`;
* :mod:`~kcca._model.file_format`: the model file, data only (JSON and ``.npy`` arrays in a
  zip, allowed classes only, a content hash): loading one never runs code; another format
  version, an old joblib model or a damaged file is a :class:`ModelFormatError` telling to
  refit;
* :mod:`~kcca._model.build`: :func:`fit_system` from a :class:`~kcca._systems.SystemSpec` and a
  corpus: the directions :func:`~kcca._systems.run_system` ranked with (no second solve) plus
  the kernels' fitted state, :func:`demo_model`;
* :mod:`~kcca._model.encoders`: new images and sentences to kernel rows against the training
  items (saved codebooks, preprocessing, fitted kernels);
* :mod:`~kcca._model.vectors`: new images and captions given as vectors, for a side whose
  kernel is ``vectors`` (linear and cosine folded into the vectors' space, other functions
  with the training vectors);
* :mod:`~kcca._model.html`: a self-contained HTML page of a ranking (``--html``);
* :mod:`~kcca._model.all_captions`: :func:`fitted_system_retrieval`, a fitted system under the
  later literature's all-captions protocol (every caption of each test image in the pool).
"""

from kcca._model.all_captions import fitted_system_retrieval
from kcca._model.build import demo_model, fit_system, resolve_model
from kcca._model.encoders import QueryError
from kcca._model.saved import (
    FORMAT_VERSION,
    CaptionPool,
    FittedSystem,
    ImagePool,
    ModelFormatError,
    Ranking,
    load_model,
    read_header,
    save_model,
)

__all__ = [
    "FORMAT_VERSION",
    "CaptionPool",
    "FittedSystem",
    "ImagePool",
    "ModelFormatError",
    "QueryError",
    "Ranking",
    "demo_model",
    "fit_system",
    "fitted_system_retrieval",
    "load_model",
    "read_header",
    "resolve_model",
    "save_model",
]
