"""Real Flickr 8K: the paper's 1,928-word vocabulary, caching, spelling on the lemma file, CLI."""

import pytest

from kcca._cache import Cache
from features.text._corpus_tokens import preprocess_corpus
from features.text._pipeline import CaptionPreprocessor
from features.text._vocabulary import vocabulary

pytestmark = [pytest.mark.real_data, pytest.mark.usefixtures("nltk_data_dir")]


@pytest.fixture(scope="module")
def paper_tokens(flickr8k):
    return preprocess_corpus(flickr8k, CaptionPreprocessor.paper_flickr8k())


def test_paper_vocabulary_is_1928_words(flickr8k, paper_tokens):
    train = paper_tokens.split_tokens(flickr8k, "train")
    assert len(train) == 30000
    vocab = vocabulary(train, min_count=5)
    assert len(vocab) == 1928
    assert {"dog", "man", "t-shirt", "run", "beach"} <= set(vocab)
    assert "the" not in vocab and "." not in vocab
    assert paper_tokens.vocabulary(flickr8k) == vocab


def test_paper_vocabulary_straight_from_the_files(data_dir, nltk_data_dir):
    """The same count read without the corpus loader: lemma file + split file by hand."""
    text = data_dir / "flickr8k" / "text"
    train = set((text / "Flickr_8k.trainImages.txt").read_text().split())
    lines = [ln.split("\t", 1)[1] for ln in
             (text / "Flickr8k.lemma.token.txt").read_text().splitlines()
             if ln.split("#", 1)[0] in train]
    assert len(lines) == 30000
    pre = CaptionPreprocessor.paper_flickr8k()
    assert len(vocabulary(pre.fit_transform(lines), 5)) == 1928


def test_corpus_result_is_cached(flickr8k, tmp_path):
    cache = Cache(tmp_path)
    pre = CaptionPreprocessor.paper_flickr8k()
    first = preprocess_corpus(flickr8k, pre, cache=cache)
    files = list((tmp_path / "text-preprocess").glob("*.entry"))
    assert len(files) == 1
    again = preprocess_corpus(flickr8k, CaptionPreprocessor.paper_flickr8k(), cache=cache)
    assert again.tokens == first.tokens and again.params == first.params
    assert again.caption_tokens(flickr8k.pool("test")[0][1]) == \
        first.tokens[flickr8k.split("test")[0]][2]


def test_lemma_file_misspelling_is_corrected(flickr8k):
    pre = CaptionPreprocessor.from_preset("flickr8k-lemma", spelling=True)
    train = [t for i in flickr8k.split("train") for t in flickr8k.lemmas[i]]
    pre.fit(train)
    (out,) = pre.transform(["Three person rest on a ledge above moutains ."])
    assert out == ["three", "person", "rest", "ledge", "mountain"]
    changed = {tok for tok, _, _ in pre.corrections_}
    assert not changed & {"skier", "frisbee", "dog", "snowboarder", "bmx"}


def test_cli_prints_vocabulary_and_logs(data_dir, tmp_path, capsys):
    from kcca._cli import main

    rc = main(["preprocess", "--corpus", "flickr8k", "--data-dir", str(data_dir), "--show", "3",
               "--quiet",
               "--cache-dir", str(tmp_path), "--spelling"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "vocabulary (seen >= 5 times):" in out
    assert "spelling corrections on the training captions:" in out
    assert "compound merges" in out and "spelling=True" in out
