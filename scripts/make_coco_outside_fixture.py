"""Build the outside caption fixture: real references and published model captions, raw text.

    python scripts/make_coco_outside_fixture.py [--mirror-root DIR] [--out PATH] [--seed N]

The captions come from public repositories that commit them; each is read from a bare git
mirror (``<mirror-root>/<owner>+<name>/repo``) at a pinned commit with ``git show
COMMIT:PATH``, so the fixture can be rebuilt byte for byte from the same commits:

* ``yxuansu/MAGIC`` (commit ``acefac61``), ``image_captioning/inference_result/``: the
  inference results of the MAGIC paper (Su et al., 2022) on the Karpathy test splits of MS
  COCO (5,000 val2014 images; 4,982 in some files) and Flickr30k (1,000 images). Each file is
  ``[{"split", "image_name", "captions": [5 or 6 raw references], "prediction"}]``; the
  predictions are MAGIC, contrastive search, top-k and nucleus sampling, CLIP retrieval and
  ZeroCap, in-domain and cross-domain. No licence is stated in the repository; the
  references are the MS COCO / Flickr30k annotations as in Karpathy's ``dataset_*.json``
  (``raw`` field, surrounding spaces already stripped).
* ``salaniz/pycocoevalcap`` (commit ``ad63453c``),
  ``example/captions_val2014_fakecap_results.json``: 1,000 model captions of val2014 images
  (the pycocoevalcap example; BSD-style licence in ``license.txt``); the 129 of them whose
  image is in the Karpathy test split are scored against that image's references from
  MAGIC's files.
* ``Yinan-Zhao/vizwiz-caption`` (commit ``b0fb22bb``), ``results/fake_caption_val.json``:
  7,750 human VizWiz-Captions texts, one per val image (the example result file of the
  VizWiz caption API; CC BY 4.0 per ``license.txt``). The file has one caption per image,
  so its items group captions of *different* images (a candidate and five references, in a
  seeded order): they test tokenisation and scoring of real noisy text, not caption
  quality. The few captions holding ``\\r`` or ``\\n`` form a source of their own.

Sources written (``items``: ``{"id", "references", "candidate"}``, raw text only, no scores;
the parity test computes pycocoevalcap's scores live):

``coco_karpathy_test_models``   every COCO test image; the candidate is the prediction of one
                                result file drawn per image (``candidate_paths`` index in
                                ``"model"``).
``coco_karpathy_test_human``    1,000 drawn COCO test images; the candidate is one drawn
                                reference, the others are the references.
``coco_val2014_fakecap``        the pycocoevalcap example captions of Karpathy test images.
``flickr30k_test_models``       every Flickr30k test image, a drawn model's prediction.
``vizwiz_val_captions``         VizWiz texts without line breaks, six per item.
``vizwiz_val_line_breaks``      items whose candidate holds ``\\r`` or ``\\n``.

Written as gzip JSON (default ``tests/kcca/captions/data/coco_outside_captions.json.gz``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "tests" / "kcca" / "captions" / "data" / "coco_outside_captions.json.gz"
DEFAULT_MIRRORS = Path("/work/.mirror")

MAGIC = ("yxuansu/MAGIC", "acefac619035b41aaab34d02d1dc34e0a904fd93")
MAGIC_DIR = "image_captioning/inference_result/"
MAGIC_LICENCE = ("none stated in the repository (references: MS COCO annotations, CC BY 4.0; "
                 "Flickr30k captions, Flickr30k terms of use)")
COCO_RESULTS = [
    "mscoco/magic_result.json",
    "mscoco/baselines/contrastive_result.json",
    "mscoco/baselines/mscoco_in_domain_clipretrieval.json",
    "mscoco/baselines/nucleus_result_run_1.json",
    "mscoco/baselines/top_k_result_run_1.json",
    "mscoco/baselines/zerocap_result.json",
    "flickr30k_model_to_mscoco/magic_result.json",
    "flickr30k_model_to_mscoco/source_flickr30k_target_mscoco_clip_retrieval.json",
]
FLICKR_RESULTS = [
    "flickr30k/magic_result.json",
    "flickr30k/baselines/contrastive_result.json",
    "flickr30k/baselines/flickr30k_in_domain_clipretrieval.json",
    "flickr30k/baselines/nucleus_result_run_1.json",
    "flickr30k/baselines/top_k_result_run_1.json",
    "flickr30k/baselines/zerocap_result.json",
    "mscoco_model_to_flickr30k/magic_result.json",
    "mscoco_model_to_flickr30k/source_mscoco_target_flickr30k_clip_retrieval.json",
]
FAKECAP = ("salaniz/pycocoevalcap", "ad63453cfab57a81a02b2949b17a91fab1c3df77",
           "example/captions_val2014_fakecap_results.json",
           "BSD-style (license.txt: Copyright (c) 2015, Xinlei Chen, Hao Fang, Tsung-Yi Lin, "
           "and Ramakrishna Vedantam)")
VIZWIZ = ("Yinan-Zhao/vizwiz-caption", "b0fb22bb9618b0c742e9c6cc6b610e2bfc36ab61",
          "results/fake_caption_val.json",
          "CC BY 4.0 (license.txt; VizWiz-Captions annotations)")
N_HUMAN = 1000
GROUP = 6  # VizWiz captions per item: one candidate, five references


def git_json(mirrors: Path, repo: str, commit: str, path: str):
    gitdir = mirrors / repo.replace("/", "+") / "repo"
    if (gitdir / ".git").is_dir():
        gitdir = gitdir / ".git"
    out = subprocess.run(["git", "-C", str(gitdir), "show", f"{commit}:{path}"],
                         capture_output=True, check=True).stdout
    return json.loads(out.decode("utf-8"))


def _image_id(name: str) -> int | str:
    stem = name.rsplit(".", 1)[0]
    return int(stem.rsplit("_", 1)[-1]) if stem.startswith("COCO_") else stem


def read_results(mirrors: Path, files: list[str]):
    """image id -> references (checked equal across files) and -> {file index: prediction}."""
    refs: dict = {}
    preds: dict = {}
    for k, rel in enumerate(files):
        for row in git_json(mirrors, MAGIC[0], MAGIC[1], MAGIC_DIR + rel):
            iid = _image_id(row["image_name"])
            if refs.setdefault(iid, row["captions"]) != row["captions"]:
                raise ValueError(f"{rel}: references of {iid} differ between files")
            preds.setdefault(iid, {})[k] = row["prediction"]
    return refs, preds


def model_source(name, mirrors, files, rng):
    refs, preds = read_results(mirrors, files)
    items = []
    for iid in sorted(refs, key=str):
        k = rng.choice(sorted(preds[iid]))
        items.append({"id": iid, "references": refs[iid], "candidate": preds[iid][k],
                      "model": k})
    return {"name": name, "repository": MAGIC[0], "commit": MAGIC[1],
            "path": MAGIC_DIR + files[0], "candidate_paths": [MAGIC_DIR + f for f in files],
            "licence": MAGIC_LICENCE, "items": items}, refs


def human_source(coco_refs, rng):
    items = []
    for iid in sorted(rng.sample(sorted(coco_refs), N_HUMAN)):
        rs = list(coco_refs[iid])
        cand = rs.pop(rng.randrange(len(rs)))
        items.append({"id": iid, "references": rs, "candidate": cand})
    return {"name": "coco_karpathy_test_human", "repository": MAGIC[0], "commit": MAGIC[1],
            "path": MAGIC_DIR + COCO_RESULTS[0], "licence": MAGIC_LICENCE, "items": items}


def fakecap_source(mirrors, coco_refs):
    repo, commit, path, licence = FAKECAP
    items = [{"id": row["image_id"], "references": coco_refs[row["image_id"]],
              "candidate": row["caption"]}
             for row in git_json(mirrors, repo, commit, path) if row["image_id"] in coco_refs]
    return {"name": "coco_val2014_fakecap", "repository": repo, "commit": commit,
            "path": path, "references_from": f"{MAGIC[0]}@{MAGIC[1]}:{MAGIC_DIR}{COCO_RESULTS[0]}",
            "licence": licence, "items": items}


def vizwiz_sources(mirrors, rng):
    repo, commit, path, licence = VIZWIZ
    rows = git_json(mirrors, repo, commit, path)
    broken = [r for r in rows if "\r" in r["caption"] or "\n" in r["caption"]]
    plain = [r for r in rows if r not in broken]
    rng.shuffle(plain)
    items = []
    for start in range(0, len(plain) - GROUP + 1, GROUP):
        group = plain[start:start + GROUP]
        items.append({"id": group[0]["image_id"], "candidate": group[0]["caption"],
                      "references": [r["caption"] for r in group[1:]]})
    pool = [r["caption"] for r in plain]
    lb_items = [{"id": r["image_id"], "candidate": r["caption"],
                 "references": rng.sample(pool, GROUP - 1)} for r in broken]
    meta = {"repository": repo, "commit": commit, "path": path, "licence": licence}
    return ({"name": "vizwiz_val_captions", **meta, "items": items},
            {"name": "vizwiz_val_line_breaks", **meta, "items": lb_items})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror-root", type=Path, default=DEFAULT_MIRRORS,
                    help="folder of the bare mirrors <owner>+<name>/repo (default %(default)s)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--seed", type=int, default=20240601)
    args = ap.parse_args(argv)

    rng = random.Random(args.seed)
    coco, coco_refs = model_source("coco_karpathy_test_models", args.mirror_root,
                                   COCO_RESULTS, rng)
    human = human_source(coco_refs, rng)
    fakecap = fakecap_source(args.mirror_root, coco_refs)
    flickr, _ = model_source("flickr30k_test_models", args.mirror_root, FLICKR_RESULTS, rng)
    vizwiz, vizwiz_lb = vizwiz_sources(args.mirror_root, rng)
    fixture = {"description": "Raw captions from public repositories for the pycocoevalcap "
                              "parity test; built by scripts/make_coco_outside_fixture.py",
               "seed": args.seed,
               "sources": [coco, human, fakecap, flickr, vizwiz, vizwiz_lb]}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(fixture, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    with open(args.out, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0) as gz:
        gz.write(data)
    for s in fixture["sources"]:
        print(f"{s['name']}: {len(s['items'])} items")
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
