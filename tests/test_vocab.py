"""Vocabularies read from model files: shared when equal, counts kept as the file holds them until asked for."""

from __future__ import annotations

from collections import Counter

from conftest import ROOT

import lstmparse
from lstmparse.core.vocab import Vocabulary


def test_an_equal_saved_vocabulary_is_read_as_the_same_object_and_a_different_one_is_not():
    saved = Vocabulary.from_counts(Counter("abracadabra")).to_json()
    first = Vocabulary.from_json(saved)
    assert Vocabulary.from_json({"strings": list(saved["strings"]), "counts": list(saved["counts"])}) is first
    other_counts = {"strings": saved["strings"], "counts": [c + 1 for c in saved["counts"]]}
    other_strings = {"strings": [*saved["strings"][:-1], "z"], "counts": saved["counts"]}
    assert Vocabulary.from_json(other_counts) is not first and Vocabulary.from_json(other_strings) is not first


def test_counts_are_those_saved_whether_or_not_they_were_asked_for():
    saved = {"strings": ["the", "cat", "sat"], "counts": [7, 2, 1]}
    vocabulary = Vocabulary.from_json(saved)
    assert vocabulary.to_json() == saved  # before any counts dictionary exists
    assert vocabulary.counts == {"the": 7, "cat": 2, "sat": 1} and vocabulary.get("cat") == 2
    assert vocabulary.to_json() == saved


def test_a_file_with_a_string_twice_is_read_as_before():
    vocabulary = Vocabulary.from_json({"strings": ["a", "b", "a"], "counts": [1, 2, 3]})
    assert vocabulary.strings == ["<unk>", "a", "b"] and vocabulary.counts == {"a": 3, "b": 2}


def test_the_default_pipelines_tagger_and_parser_share_their_word_lists():
    pipeline = lstmparse.load(ROOT / "models" / "en_ewt_pipeline")
    tagger, parser = pipeline.tagger.model.vocabs, pipeline.parser.model.vocabs
    assert tagger["pretrained"] is parser["pretrained"] and tagger["words"] is parser["words"]
    assert len(tagger["pretrained"]) > 50_000
