"""Grouping sentences: what every family's reading, decoding and training rely on."""

from __future__ import annotations

import pytest

from lstmparse.core.batching import batches, length_batches, windows
from lstmparse.errors import InputError


def test_a_window_before_a_malformed_sentence_still_comes_out():
    def sentences():
        yield from ["a", "b", "c"]
        raise InputError("in.conllu", 9, "bad line")

    produced = windows(sentences(), 2)
    assert next(produced) == ["a", "b"]
    assert next(produced) == ["c"]  # parsed and written before the error is reported
    with pytest.raises(InputError, match="in.conllu:9"):
        next(produced)


@pytest.mark.parametrize("strict", [False, True])
def test_batches_keep_order_and_bound_their_words(strict):
    lengths = [3, 4, 9, 1, 1, 12, 2]
    made = list(batches(lengths, size=3, max_words=8, words_of=lambda n: n, strict=strict))
    assert [n for batch in made for n in batch] == lengths
    assert all(len(batch) <= 3 for batch in made)
    if strict:  # never over the bound, unless one item alone is
        assert all(sum(batch) <= 8 or len(batch) == 1 for batch in made)
    else:  # over it by less than the last item
        assert all(sum(batch[:-1]) < 8 for batch in made)


def test_length_batches_hold_one_length_each_in_input_order():
    words = ["aa", "b", "cc", "d", "ee", "ff"]
    made = length_batches(words, len, 2)
    assert made == [["aa", "cc"], ["ee", "ff"], ["b", "d"]]
