"""URLs and e-mail addresses marked in running text."""

from __future__ import annotations

import numpy as np

from lstmparse.tokenizer.shapes import SPANS, mark_spans


def marked(text: str) -> dict[str, list[str]]:
    """The strings marked as each kind of span."""
    marks = mark_spans(text)
    spans: dict[str, list[str]] = {}
    for index, name in enumerate(SPANS[1:], start=1):
        inside = np.flatnonzero(marks == index)
        for run in np.split(inside, np.flatnonzero(np.diff(inside) > 1) + 1) if len(inside) else []:
            spans.setdefault(name, []).append(text[run[0] : run[-1] + 1])
    return spans


def test_urls_and_addresses_are_marked_without_the_sentence_s_punctuation():
    text = "Mail john.smith@gmail.com. See http://www.couchsurfing.org/ (or dresscod.com), then stop."
    assert marked(text) == {"email": ["john.smith@gmail.com"], "url": ["http://www.couchsurfing.org/", "dresscod.com"]}


def test_sentence_ends_abbreviations_and_numbers_are_not_addresses():
    assert marked("The end. Then the U.S. and e.g. 3.5 kg at 10 a.m. on 1.2.2004...") == {}
