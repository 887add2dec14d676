"""Every malformed-input case of the Flickr 8K reader gives an error naming file, line, item."""

import pytest

from kcca.data._errors import DataError
from kcca.data._flickr8k import load_flickr8k
from tests.support.fake_flickr8k import write_fake_flickr8k


@pytest.fixture
def fake(tmp_path):
    return write_fake_flickr8k(tmp_path)


def _edit(path, old, new):
    path.write_text(path.read_text().replace(old, new, 1))


def test_fake_corpus_loads(tmp_path, fake):
    c = load_flickr8k(tmp_path)
    assert c.summary()["captions"] == 20
    assert c.pool("test") == [("d.jpg", "d.jpg#2", "A dog number 2 runs on d.jpg .")]
    assert c.load_image("a.jpg").shape == (20, 30, 3)
    assert len(c.expert) == 2 and len(c.crowd) == 2


@pytest.mark.parametrize("old,new,expected", [
    ("a.jpg#0\t", "a.jpg#0 ", r"Flickr8k\.token\.txt:1: malformed line"),
    ("a.jpg#1\t", "a.jpg#0\t", r"Flickr8k\.token\.txt:2: duplicate caption id 'a\.jpg#0'"),
    ("a.jpg#1\t", "a.jpgX1\t", r"Flickr8k\.token\.txt:2: malformed caption id"),
    ("a.jpg#4\t", "a.jpg#7\t", r"captions of 'a\.jpg' are numbered \[0, 1, 2, 3, 7\]"),
    ("\tA dog number 1 runs on a.jpg .", "\t   ",
     r"Flickr8k\.token\.txt:2: caption 'a\.jpg#1' is empty"),
])
def test_malformed_caption_lines(tmp_path, fake, old, new, expected):
    _edit(fake / "Flickr8k.token.txt", old, new)
    with pytest.raises(DataError, match=expected):
        load_flickr8k(tmp_path)


@pytest.mark.parametrize("split,content,expected", [
    pytest.param("dev", "c.jpg\nzzz.jpg\n", r"devImages\.txt:2: image 'zzz\.jpg' has no captions",
                 id="split_id_without_captions"),
    pytest.param("train", "a.jpg\nb.jpg\na.jpg\n",
                 r"trainImages\.txt:3: duplicate image id 'a\.jpg'", id="duplicate_split_id"),
    pytest.param("dev", "c.jpg\na.jpg\n", r"'a\.jpg' is in both split 'train' and 'dev'",
                 id="overlapping_splits"),
])
def test_malformed_split_files(tmp_path, fake, split, content, expected):
    (fake / f"Flickr_8k.{split}Images.txt").write_text(content)
    with pytest.raises(DataError, match=expected):
        load_flickr8k(tmp_path)


def test_missing_file(tmp_path, fake):
    (fake / "Flickr_8k.testImages.txt").unlink()
    with pytest.raises(DataError, match=r"missing split file: .*testImages\.txt does not exist"):
        load_flickr8k(tmp_path)


def test_missing_image_file(tmp_path, fake):
    (tmp_path / "flickr8k" / "images" / "b.jpg").unlink()
    with pytest.raises(DataError, match=r"1 image file\(s\) of the splits are missing .*b\.jpg"):
        load_flickr8k(tmp_path)
    assert load_flickr8k(tmp_path, images=False).images is None  # text-only use still works


@pytest.mark.parametrize("content,expected", [
    ("d.jpg\td.jpg#2\t4\t4\n", r"ExpertAnnotations\.txt:1: malformed line .* expected 5"),
    ("d.jpg\td.jpg#2\t4\t5\t4\n", r"ExpertAnnotations\.txt:1: expert score 5 is outside 1\.\.4"),
    ("d.jpg\td.jpg#2\t4\tx\t4\n", r"ExpertAnnotations\.txt:1: expert score 'x' is not an integer"),
    ("q.jpg\td.jpg#2\t4\t4\t4\n", r"ExpertAnnotations\.txt:1: unknown image id 'q\.jpg'"),
    ("d.jpg\tq.jpg#2\t4\t4\t4\n", r"ExpertAnnotations\.txt:1: unknown caption id 'q\.jpg#2'"),
    ("d.jpg\td.jpg#2\t4\t4\t4\nd.jpg\td.jpg#2\t1\t1\t1\n",
     r"ExpertAnnotations\.txt:2: duplicate expert pair"),
])
def test_malformed_expert_lines(tmp_path, fake, content, expected):
    (fake / "ExpertAnnotations.txt").write_text(content)
    with pytest.raises(DataError, match=expected):
        load_flickr8k(tmp_path)


@pytest.mark.parametrize("content,expected", [
    ("d.jpg\td.jpg#2\t1\t3\n", r"CrowdFlowerAnnotations\.txt:1: malformed line"),
    ("d.jpg\td.jpg#2\t0.2\t3\t0\n", r"CrowdFlowerAnnotations\.txt:1: fraction 0\.2 disagrees"),
    ("d.jpg\td.jpg#2\t0\t0\t0\n", r"CrowdFlowerAnnotations\.txt:1: pair .* has no votes"),
    ("d.jpg\td.jpg#2\t1\t-3\t0\n", r"CrowdFlowerAnnotations\.txt:1: yes count -3 is outside"),
])
def test_malformed_crowd_lines(tmp_path, fake, content, expected):
    (fake / "CrowdFlowerAnnotations.txt").write_text(content)
    with pytest.raises(DataError, match=expected):
        load_flickr8k(tmp_path)


def test_lemma_file_with_other_ids(tmp_path, fake):
    lemma = fake / "Flickr8k.lemma.token.txt"
    lemma.write_text(lemma.read_text().replace("a.jpg#", "x.jpg#"))
    with pytest.raises(DataError, match=r"lemma\.token\.txt: image ids differ"):
        load_flickr8k(tmp_path)


def test_no_text_folder(tmp_path):
    with pytest.raises(DataError, match="no Flickr 8K text folder"):
        load_flickr8k(tmp_path)
