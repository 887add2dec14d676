"""Step 7: NLTK resources through NLTK_DATA, with a helpful error when absent."""

import os

import nltk
import pytest

from features.text import _resources as resources
from features.text._resources import MissingResourceError


@pytest.fixture
def empty_nltk_path(tmp_path, monkeypatch):
    monkeypatch.setenv("NLTK_DATA", str(tmp_path))
    monkeypatch.delenv("KCCA_DATA_DIR", raising=False)
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    return tmp_path


def test_missing_resource_says_how_to_install(empty_nltk_path):
    with pytest.raises(MissingResourceError) as err:
        resources.stop_words()
    msg = str(err.value)
    assert "stopwords" in msg and "NLTK_DATA" in msg and "data/README.md" in msg
    assert str(empty_nltk_path) in msg and "nltk.downloader" in msg
    with pytest.raises(MissingResourceError, match="apt-get install wordnet-base"):
        resources.wordnet()
    with pytest.raises(MissingResourceError, match="Unix word list"):
        resources.word_list()


def test_missing_resource_is_a_data_error(empty_nltk_path):
    from kcca.data._errors import DataError

    with pytest.raises(DataError):
        resources.require("brown")
    with pytest.raises(KeyError):
        resources.require("no-such-package")


def test_resources_found_through_nltk_data(nltk_data_dir):
    assert len(resources.stop_words()) == 179
    assert "frisbee" in resources.wordnet_lemma_names()
    assert "mountain" in resources.word_list()
    assert resources.wordnet().get_version() == "3.0"


def test_a_resolved_path_used_in_another_process(empty_nltk_path, tmp_path, monkeypatch):
    """What a Dask task carries: the folders in use that exist, the data folder's nltk_data
    last; applying it puts them first on nltk.data.path and $NLTK_DATA and removes nothing."""
    data = tmp_path / "data"
    (data / "nltk_data" / "corpora" / "stopwords").mkdir(parents=True)
    (data / "nltk_data" / "corpora" / "stopwords" / "english").write_text("the\na\n")
    nltk.data.path.append(str(tmp_path / "absent"))
    sent = resources.resolved_search_path(data)
    assert sent == (str(empty_nltk_path), str(data / "nltk_data"))

    monkeypatch.setattr(nltk.data, "path", ["/elsewhere"])
    monkeypatch.setenv("NLTK_DATA", "/elsewhere")
    resources.use_search_path(sent)
    resources.use_search_path(sent)  # idempotent
    assert nltk.data.path == [*sent, "/elsewhere"]
    assert os.environ["NLTK_DATA"].split(os.pathsep) == [*sent, "/elsewhere"]
    assert resources.stop_words() == {"the", "a"}
