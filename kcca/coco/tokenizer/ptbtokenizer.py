"""pycocoevalcap's ``PTBTokenizer`` (Stanford CoreNLP 3.4.1's PTB tokeniser, as the COCO
evaluation runs it, Chen et al. 2015, Section 3.1), without Java."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

from kcca.captions import _tokenizer as _tokenizer
from kcca.coco._compat import CocoAttributeError, CocoKeyError, CocoTypeError

#: the tokens removed after tokenisation (a list, as pycocoevalcap's)
PUNCTUATIONS = sorted(_tokenizer.PUNCTUATIONS)

#: pycocoevalcap's name of the CoreNLP jar it runs (not used here: no Java)
STANFORD_CORENLP_3_4_1_JAR = "stanford-corenlp-3.4.1.jar"

__all__ = ["PTBTokenizer", "PUNCTUATIONS", "STANFORD_CORENLP_3_4_1_JAR", "check_captions"]


def check_captions(captions_for_image: Mapping[Hashable, Sequence]) -> None:
    """Refuse, naming the image id, what pycocoevalcap's tokenizer fails on, with an error of
    the same family: not a dict (``AttributeError``), captions that are not a list or an
    entry that is neither a dict nor a string (``TypeError``), a dict without ``'caption'``
    (``KeyError``), a caption that is not a string (``AttributeError``). Plain strings as
    entries are allowed (pycocoevalcap wants ``{"caption": str}``)."""
    if not isinstance(captions_for_image, Mapping):
        raise CocoAttributeError(
            "the tokenizer's input must be a dict image id -> list of {'caption': str}, not "
            f"{type(captions_for_image).__name__}"
        )
    for key, caps in captions_for_image.items():
        if not isinstance(caps, (list, tuple)):
            raise CocoTypeError(
                f"image id {key!r}: its captions must be a list of {{'caption': str}}, not "
                f"{type(caps).__name__} {caps!r:.60}"
            )
        for j, entry in enumerate(caps):
            if isinstance(entry, str):
                continue
            if not isinstance(entry, Mapping):
                raise CocoTypeError(
                    f"caption {j} of image id {key!r} must be a {{'caption': str}} dict, not "
                    f"{type(entry).__name__} {entry!r:.60}"
                )
            if "caption" not in entry:
                raise CocoKeyError(
                    f"caption {j} of image id {key!r} has no 'caption' key "
                    f"(its keys: {sorted(map(str, entry))[:5]})"
                )
            if not isinstance(entry["caption"], str):
                raise CocoAttributeError(
                    f"caption {j} of image id {key!r} is a {type(entry['caption']).__name__}, "
                    f"not a string: {entry['caption']!r:.60}"
                )


class PTBTokenizer(_tokenizer.PTBTokenizer):
    """pycocoevalcap's ``PTBTokenizer``: :class:`kcca.captions.PTBTokenizer` whose malformed
    input is refused by :func:`check_captions`, naming the image id, with an error of the
    family pycocoevalcap's fails with (:class:`~kcca.coco.CocoInputError` subclasses).

    Examples
    --------
    >>> from kcca.coco.tokenizer.ptbtokenizer import PTBTokenizer
    >>> PTBTokenizer().tokenize({7: [{"caption": "A Dog."}]})
    {7: ['a dog']}
    >>> PTBTokenizer().tokenize({7: [{"text": "A Dog."}]})
    Traceback (most recent call last):
    ...
    kcca.coco._compat.CocoKeyError: caption 0 of image id 7 has no 'caption' key ...
    """

    def tokenize(self, captions_for_image: Mapping[Hashable, Sequence]) -> dict:
        check_captions(captions_for_image)
        return super().tokenize(captions_for_image)
