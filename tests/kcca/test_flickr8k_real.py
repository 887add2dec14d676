"""Flickr 8K loading against the real files (skipped when KCCA_DATA_DIR is absent)."""

import numpy as np
import pytest

from kcca.data._flickr8k import ODD_ID

pytestmark = pytest.mark.real_data


def test_caption_and_split_counts(flickr8k):
    assert sum(len(c) for c in flickr8k.captions.values()) == 40460
    assert len(flickr8k.captions) == 8092
    assert {k: len(v) for k, v in flickr8k.splits.items()} == {
        "train": 6000, "dev": 1000, "test": 1000}
    assert all(len(flickr8k.captions[i]) == 5 for i in flickr8k.split("train"))


def test_pools_hold_caption_2(flickr8k):
    for split in ("dev", "test"):
        pool = flickr8k.pool(split)
        assert len(pool) == 1000
        assert all(cid.endswith("#2") for _, cid, _ in pool)
        assert pool[0][2] == flickr8k.captions[pool[0][0]][2]
    lemma_pool = flickr8k.pool("test", lemmatised=True)
    assert lemma_pool[0][2] == flickr8k.lemmas[lemma_pool[0][0]][2]


def test_judgment_counts_and_keys(flickr8k):
    assert len(flickr8k.expert) == 5822
    assert len(flickr8k.crowd) == 47830
    test_ids = set(flickr8k.split("test"))
    assert {k[0] for k in flickr8k.expert} == test_ids  # all 1,000 test images are queries
    assert all(k[1].endswith("#2") for k in flickr8k.crowd)
    j = flickr8k.expert[("1056338697_4f7d7ce270.jpg", "2718495608_d8533e3ac5.jpg#2")]
    assert j.scores == (1, 1, 2) and j.mean == pytest.approx(4 / 3)
    c = flickr8k.crowd[("1056338697_4f7d7ce270.jpg", "1056338697_4f7d7ce270.jpg#2")]
    assert (c.yes, c.no, c.relevant()) == (3, 0, True)
    # Section 4.3.2 (docs/paper-notes.md#crowd-relevance): with fraction >= 0.5, 2,031
    # non-original pairs are relevant.
    added = sum(1 for (img, cid), v in flickr8k.crowd.items()
                if v.relevant(0.5) and not cid.startswith(img + "#"))
    assert added == 2031


def test_odd_id_kept_but_unsplit(flickr8k):
    assert ODD_ID in flickr8k.captions and len(flickr8k.captions[ODD_ID]) == 5
    assert ODD_ID in flickr8k.unsplit_image_ids
    assert not any(ODD_ID in ids for ids in flickr8k.splits.values())
    assert any(ODD_ID in note for note in flickr8k.notes)


def test_lemmas_align_with_captions(flickr8k):
    assert set(flickr8k.lemmas) == set(flickr8k.captions)
    assert flickr8k.lemmas[ODD_ID][2] == "Three person be wait on a train platform ."


def test_every_image_file_is_mapped(flickr8k):
    assert len(flickr8k.image_paths) == 8091  # 8,000 split images + 91 unsplit ones
    assert ODD_ID not in flickr8k.image_paths  # the odd id has no file
    unsplit = [i for i in flickr8k.unsplit_image_ids if i != ODD_ID]
    assert flickr8k.load_image(unsplit[0]).shape == (224, 224, 3)


def test_reads_real_images(flickr8k):
    image = flickr8k.load_image(flickr8k.split("test")[0])
    assert image.dtype == np.uint8 and image.shape == (224, 224, 3)
