"""URLs and e-mail addresses in running text, found for the tokenizer (no DyNet).

A treebank has few URLs and e-mail addresses (EWT train: 245 URLs, 99 addresses in
the raw text), and a tokenizer learns their boundaries badly from so few: what tells
an address's dots and slashes from the end of a sentence or a word is the shape of
the whole string, which a window of characters sees piece by piece.  The tokenizer
reads, for every character, whether a pattern over the whole paragraph puts it in a
URL, an address or neither (:func:`mark_spans`), as an embedding of its own created
after its other parameters, so that with one seed the rest of a model starts as it
did without it.  (The same idea for the tagger, a word's shape as an input, was
measured on EWT dev and not kept: docs/experiments/not-kept.md.)
"""

from __future__ import annotations

import re

import numpy as np

_TRAILING = r"(?=[.,;:!?)\]'\"]*(?:\s|$))"  # a pattern's final punctuation is the sentence's, not the address's
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
URL = re.compile(
    r"(?:https?://|ftp://|www\.)\S+?"
    + _TRAILING
    + r"|\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|edu|gov|info|biz|co\.uk|html?)\b(?:/\S*?"
    + _TRAILING
    + ")?",
    re.IGNORECASE,
)
SPANS = ("none", "url", "email")  # what mark_spans gives each character, by index


def mark_spans(text: str) -> np.ndarray:
    """Each character's span in ``text``, an index into :data:`SPANS`: in an e-mail address, in a URL, or none
    (addresses first: an address's domain would match the URL pattern too)."""
    spans = np.zeros(len(text), dtype=np.int64)
    for span, pattern in ((SPANS.index("email"), EMAIL), (SPANS.index("url"), URL)):
        for match in pattern.finditer(text):
            if not spans[match.start() : match.end()].any():
                spans[match.start() : match.end()] = span
    return spans
