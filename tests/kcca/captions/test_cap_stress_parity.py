"""Each metric's own reading of tokens, against pycocoevalcap 1.2 on seeded stress strings.

pycocoevalcap's Java tokeniser joins some multi-part tokens with U+00A0 (``2 1/2``, phone
numbers, ``<next line>``), and URLs or e-mail addresses can hold other Unicode white space;
its BLEU and CIDEr then split such a token (``str.split()``), its ROUGE-L does not
(``split(' ')``), and METEOR's jar normalises what it gets. The public caption corpora of
``test_cap_outside_parity.py`` hold few such tokens, so here 12,000 seeded caption-like
strings (:mod:`tests.support.stress`: fractions, phone numbers, tags, URLs, Unicode spaces,
``|||`` ...) make 2,400 items (a candidate and four references each), scored by pycocoevalcap
and by ours, per item, within 1e-12. Needs Java and pycocoevalcap; marked slow.
"""

from __future__ import annotations

import numpy as np
import pytest

from kcca.captions import evaluate_captions
from tests.support.stress import stress_strings
from kcca.captions._tokenizer import OTHER_LINE_BREAKS

pytestmark = pytest.mark.outside_parity

TOL = 1e-12
LABELS = {"BLEU-1": "Bleu_1", "BLEU-2": "Bleu_2", "BLEU-3": "Bleu_3", "BLEU-4": "Bleu_4",
          "METEOR": "METEOR", "ROUGE-L": "ROUGE_L", "CIDEr-D": "CIDEr"}


def _items(with_line_breaks: bool):
    texts = [t for t in stress_strings(12_000, seed=2015)
             if with_line_breaks or not OTHER_LINE_BREAKS.search(t)]
    n = len(texts) // 5
    refs = {k: texts[5 * k + 1: 5 * k + 5] for k in range(n)}
    cands = {k: texts[5 * k] for k in range(n)}
    return refs, cands


def _scores(refs, cands, package, meteor=None):
    """Per-item arrays of ``package`` (``pycocoevalcap`` or ``kcca.coco``) as COCOEvalCap
    runs it; ``meteor``: the package's ``Meteor()`` to use (default: a new one)."""
    import importlib

    tok = importlib.import_module(f"{package}.tokenizer.ptbtokenizer").PTBTokenizer()
    gts = tok.tokenize({k: [{"caption": r} for r in rs] for k, rs in refs.items()})
    res = tok.tokenize({k: [{"caption": cands[k]}] for k in refs})
    out = {}
    _, bleu = importlib.import_module(f"{package}.bleu.bleu").Bleu(4).compute_score(
        gts, res, verbose=0)
    for n in range(4):
        out[f"Bleu_{n + 1}"] = np.asarray(bleu[n], dtype=float)
    if meteor is None:
        meteor = importlib.import_module(f"{package}.meteor.meteor").Meteor()
    out["METEOR"] = np.asarray(meteor.compute_score(gts, res)[1], dtype=float)
    for module, name, label in (("rouge.rouge", "Rouge", "ROUGE_L"),
                                ("cider.cider", "Cider", "CIDEr")):
        scorer = getattr(importlib.import_module(f"{package}.{module}"), name)()
        out[label] = np.asarray(scorer.compute_score(gts, res)[1], dtype=float)
    return out


@pytest.fixture(scope="module")
def theirs(pycocoevalcap_meteor):
    # the worker's one jar process for both sets (see the fixture)
    return {lb: _scores(*_items(lb), "pycocoevalcap", pycocoevalcap_meteor)
            for lb in (False, True)}


def _assert_close(mine, other, what):
    diff = np.abs(mine - other)
    bad = np.flatnonzero(~(diff <= TOL))
    assert not bad.size, f"{what}: {bad.size} items differ (max {diff.max():.3g}), e.g. {bad[:5]}"


@pytest.mark.slow
def test_evaluate_captions_equals_pycocoevalcap_on_stress_items(theirs):
    refs, cands = _items(False)
    ev = evaluate_captions(refs, cands, tuple(["bleu", "rouge_l", "cider_d", "meteor"]),
                           allow_empty=True)
    for label, theirs_label in LABELS.items():
        _assert_close(ev.per_item[label], theirs[False][theirs_label], label)


@pytest.mark.slow
def test_the_drop_in_equals_pycocoevalcap_on_stress_items_with_line_breaks(theirs):
    mine = _scores(*_items(True), "kcca.coco")
    for label in LABELS.values():
        _assert_close(mine[label], theirs[True][label], label)


def test_stress_items_hold_tokens_the_metrics_split_differently():
    """The point of the stress items: tokens with U+00A0 and other Unicode white space."""
    from kcca.captions._tokenizer import tokenize_batch

    refs, cands = _items(False)
    tokens = [t for toks in tokenize_batch(list(cands.values())) for t in toks]
    assert sum("\u00a0" in t for t in tokens) >= 20
    assert sum(len(t.split()) > 1 for t in tokens) >= sum("\u00a0" in t for t in tokens)
