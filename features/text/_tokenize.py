"""Step 1 of caption preprocessing (Section 4.1.1): tokenisation, lower-casing, punctuation.

Two tokenisers: ``"treebank"`` (NLTK's Penn-Treebank-style word tokeniser, which needs no
data package; the paper used the OpenNLP tokeniser) and ``"whitespace"`` (split on spaces:
the released Flickr 8K files are already tokenised, and the paper-vocabulary preset reads the
lemma file this way). Both keep intra-word hyphens ("t-shirt" is one token), as the kernel
pipeline wants; ``split_hyphens=True`` breaks them up, as the BLEU/ROUGE pipeline does (Sec. 4.2.2).
A token is kept only if it holds at least one letter or digit.
"""

from __future__ import annotations

import re

from kcca.errors import SettingError

TOKENIZERS = ("treebank", "whitespace")

_ALNUM = re.compile(r"[^\W_]")  # a letter or a digit (any script)
_HYPHENS = re.compile(r"-+")


def has_alnum(token: str) -> bool:
    """True if ``token`` holds a letter or a digit (tokens without one are punctuation)."""
    return _ALNUM.search(token) is not None


def break_hyphens(tokens: list[str]) -> list[str]:
    """Break hyphenated tokens into their parts: ``["t-shirt"] -> ["t", "shirt"]``."""
    out: list[str] = []
    for tok in tokens:
        if "-" in tok and has_alnum(tok):
            out.extend(p for p in _HYPHENS.split(tok) if p)
        else:
            out.append(tok)
    return out


_treebank = None


def _treebank_tokenize(text: str) -> list[str]:
    global _treebank
    if _treebank is None:
        from nltk.tokenize.destructive import NLTKWordTokenizer

        _treebank = NLTKWordTokenizer()
    return _treebank.tokenize(text)


def tokenize(
    text: str,
    *,
    method: str = "treebank",
    lowercase: bool = True,
    drop_punctuation: bool = True,
    split_hyphens: bool = False,
) -> list[str]:
    """Tokenise one caption.

    Args:
        text: the caption.
        method: ``"treebank"`` or ``"whitespace"``.
        lowercase: lower-case every token.
        drop_punctuation: drop tokens without a letter or digit.
        split_hyphens: break intra-word hyphens (BLEU/ROUGE pipeline, Section 4.2.2).
    """
    if not isinstance(text, str):
        raise TypeError(f"expected a caption string, got {type(text).__name__}: {text!r}")
    if method == "treebank":
        tokens = _treebank_tokenize(text)
    elif method == "whitespace":
        tokens = text.split()
    else:
        raise SettingError(f"unknown tokenizer {method!r}: use one of {TOKENIZERS}")
    if lowercase:
        tokens = [t.lower() for t in tokens]
    if split_hyphens:
        tokens = break_hyphens(tokens)
    if drop_punctuation:
        tokens = [t for t in tokens if has_alnum(t)]
    return tokens
