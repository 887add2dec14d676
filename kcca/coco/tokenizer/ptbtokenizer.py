"""pycocoevalcap's ``PTBTokenizer`` (Stanford CoreNLP 3.4.1's PTB tokeniser, as the COCO
evaluation runs it, Chen et al. 2015, Section 3.1), without Java."""

from kcca.captions import tokenizer as _tokenizer
from kcca.captions.tokenizer import PTBTokenizer

#: the tokens removed after tokenisation (a list, as pycocoevalcap's)
PUNCTUATIONS = sorted(_tokenizer.PUNCTUATIONS)

__all__ = ["PTBTokenizer", "PUNCTUATIONS"]
