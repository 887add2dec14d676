"""Regenerate the COCO caption-metric parity fixture with pycocoevalcap 1.2 (needs Java).

    pip install pycocoevalcap==1.2        # the project's optional extra "coco"
    python scripts/make_coco_parity_fixture.py [--data-dir DIR] [--out PATH]

Setting (the caption-metric parity test): Flickr 8K test images (1,000), candidate = caption
#0, references = captions #1-#4. pycocoevalcap's PTBTokenizer (Stanford CoreNLP 3.4.1 via
Java) tokenises references and candidates as ``COCOEvalCap.evaluate`` does (two calls), then
Bleu(4), Rouge, Cider (= CIDEr-D) and, when Java runs it, Meteor score the tokenised text.

Written (gzip JSON, default ``tests/kcca/captions/data/coco_parity_flickr8k_test.json.gz``):
the image ids, the tokenised candidates and references (the shared input of the parity
test), and the corpus and per-item scores. The raw captions are *not* stored; the tokeniser
test reads them from the data folder.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "tests" / "kcca" / "captions" / "data" / "coco_parity_flickr8k_test.json.gz"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=None, help="folder holding flickr8k/ "
                    "(default $KCCA_DATA_DIR)")
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    ap.add_argument("--no-meteor", action="store_true", help="skip METEOR")
    args = ap.parse_args(argv)

    from importlib.metadata import version
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.rouge.rouge import Rouge
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    pv = version("pycocoevalcap")
    if pv != "1.2":
        print(f"warning: pycocoevalcap {pv} installed; the fixture is defined for 1.2",
              file=sys.stderr)

    from kcca.data._flickr8k import load_flickr8k
    from kcca.data._paths import resolve_data_dir

    corpus = load_flickr8k(resolve_data_dir(args.data_dir), images=False, judgments=False,
                           lemmas=False)
    ids = list(corpus.split("test"))
    gts = {i: [{"caption": c} for c in corpus.captions[i][1:5]] for i in ids}
    res = {i: [{"caption": corpus.captions[i][0]}] for i in ids}

    tok = PTBTokenizer()
    t0 = time.perf_counter()
    gts_t = tok.tokenize(gts)
    res_t = tok.tokenize(res)
    print(f"PTBTokenizer: {time.perf_counter() - t0:.2f} s")

    corpus_scores: dict[str, float] = {}
    per_item: dict[str, list[float]] = {}
    s, ss = Bleu(4).compute_score(gts_t, res_t, verbose=0)
    for k in range(4):
        corpus_scores[f"BLEU-{k + 1}"] = float(s[k])
        per_item[f"BLEU-{k + 1}"] = [float(x) for x in ss[k]]
    s, ss = Rouge().compute_score(gts_t, res_t)
    corpus_scores["ROUGE-L"] = float(s)
    per_item["ROUGE-L"] = [float(x) for x in ss]
    s, ss = Cider().compute_score(gts_t, res_t)
    corpus_scores["CIDEr-D"] = float(s)
    per_item["CIDEr-D"] = [float(x) for x in ss]
    if not args.no_meteor:
        from pycocoevalcap.meteor.meteor import Meteor

        m = Meteor()
        s, ss = m.compute_score(gts_t, res_t)
        corpus_scores["METEOR"] = float(s)
        per_item["METEOR"] = [float(x) for x in ss]
        del m

    data = {
        "description": "Flickr 8K test images: candidate = caption #0, references = #1-#4; "
                       "tokenised by pycocoevalcap's PTBTokenizer (Stanford CoreNLP 3.4.1, "
                       "-preserveLines -lowerCase, punctuation list removed); scores by "
                       "pycocoevalcap Bleu(4), Rouge, Cider (CIDEr-D), Meteor. Regenerate with "
                       "scripts/make_coco_parity_fixture.py.",
        "pycocoevalcap_version": pv,
        "candidate_caption_index": 0,
        "reference_caption_indices": [1, 2, 3, 4],
        "image_ids": ids,
        "candidates_tokenized": [res_t[i][0] for i in ids],
        "references_tokenized": [gts_t[i] for i in ids],
        "corpus": corpus_scores,
        "per_item": per_item,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = json.dumps(data, separators=(",", ":")).encode("utf-8")
    with open(out, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9,
                                               mtime=0, filename="") as gz:
        gz.write(payload)  # mtime=0: the same scores give the same bytes
    print(f"wrote {out} ({out.stat().st_size} bytes)")
    for k, v in corpus_scores.items():
        print(f"  {k:8s} {v:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
