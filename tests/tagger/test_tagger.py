"""The tagger: columns filled or kept as asked, the same tags whatever the batch, saved and loaded alike."""

from __future__ import annotations

import pytest

from lstmparse.io.formats import read_sentences


@pytest.fixture(scope="module")
def dev(small_treebank) -> list:
    return list(read_sentences(str(small_treebank["dev"])))


def test_training_records_dev_accuracy_for_each_column(small_tagger):
    _, record = small_tagger
    last = record["epochs"][-1]
    assert {"dev_upos", "dev_xpos", "dev_feats", "dev_all_tags"} <= set(last)
    assert record["best_dev_upos"] == max(e["dev_upos"] for e in record["epochs"])


def test_columns_the_input_has_are_kept_unless_retagging(small_tagger, dev):
    tagger, _ = small_tagger
    kept = list(tagger.tag(dev))
    assert [s.to_conllu() for s in kept] == [s.to_conllu() for s in dev]
    retagged = list(tagger.tag(dev, retag=True))
    assert [s.forms for s in retagged] == [s.forms for s in dev]
    assert any(
        t.upos != g.upos for s, d in zip(retagged, dev, strict=True) for t, g in zip(s.tokens, d.tokens, strict=True)
    )


def test_blank_columns_are_filled_in_lines_and_tokens(small_tagger, dev):
    tagger, _ = small_tagger
    blank = [s.with_columns({"upos": ["_"] * len(s), "xpos": ["_"] * len(s)}) for s in dev]
    tagged = list(tagger.tag(blank))
    for sentence, original in zip(tagged, dev, strict=True):
        assert all(t.upos not in ("", "_") for t in sentence.tokens)
        assert [t.feats for t in sentence.tokens] == [t.feats for t in original.tokens]  # FEATS was not blank
        for token, index in zip(sentence.tokens, sentence.token_lines, strict=True):
            assert sentence.lines[index].split("\t")[3] == token.upos


def test_tags_do_not_depend_on_the_other_sentences_tagged_with_them(small_tagger, dev):
    tagger, _ = small_tagger
    together = [[t.upos for t in s.tokens] for s in tagger.tag(dev, retag=True)]
    alone = [[t.upos for t in s.tokens] for d in dev for s in tagger.tag([d], retag=True)]
    assert together == alone


def test_length_groups_hold_one_length_and_no_more_words_than_the_budget():
    from lstmparse.tagger.grouping import length_groups

    forms = [["w"] * n for n in (3, 5, 3, 3, 40, 5, 3, 3, 3)]
    groups = length_groups(forms, len, max_items=4, max_words=10)
    assert sorted(i for group in groups for i in group) == list(range(len(forms)))
    assert all(len({len(forms[i]) for i in group}) == 1 for group in groups)
    assert [len(forms[group[0]]) for group in groups] == sorted((len(forms[g[0]]) for g in groups), reverse=True)
    assert all(sum(len(forms[i]) for i in group) <= 10 or len(group) == 1 for group in groups)
    assert [len(group) for group in groups] == [1, 2, 3, 3]  # 40 alone; 5 + 5; six of 3 words, 3 to a group
    assert [len(group) for group in length_groups(forms, len, max_items=4)] == [1, 2, 4, 2]


def test_tags_are_the_same_when_the_word_budget_splits_the_groups(small_tagger, dev, monkeypatch):
    import lstmparse.tagger.grouping as grouping

    tagger, _ = small_tagger
    wide = [[(t.upos, t.xpos, t.feats, t.lemma) for t in s.tokens] for s in tagger.tag(dev, retag=True)]
    monkeypatch.setattr(grouping, "TAGGING_WORDS", 12)
    narrow = [[(t.upos, t.xpos, t.feats, t.lemma) for t in s.tokens] for s in tagger.tag(dev, retag=True)]
    assert wide == narrow


def test_word_lists_are_tagged_and_a_string_is_refused(small_tagger):
    tagger, _ = small_tagger
    (sentence,) = tagger.tag([["The", "dog", "barks", "."]])
    assert len(sentence.tokens) == 4 and all(t.upos != "_" for t in sentence.tokens)
    with pytest.raises(TypeError):
        list(tagger.tag("The dog barks ."))


def test_a_saved_tagger_loads_with_the_same_tags(small_tagger, dev, tmp_path):
    from lstmparse.tagger.api import POSTagger

    tagger, _ = small_tagger
    tagger.model.save(str(tmp_path / "copy"))
    copy = POSTagger.load(tmp_path / "copy")
    assert [s.to_conllu() for s in copy.tag(dev, retag=True)] == [s.to_conllu() for s in tagger.tag(dev, retag=True)]


@pytest.mark.parametrize(
    ("form", "expected"),
    [("😍", True), ("👍🏽", True), ("❤️", True), ("🇫🇷", True), ("👨\u200d👩\u200d👧", True), ("©", True)]
    + [("$", False), ("+", False), (":)", False), ("a😍", False), ("", False), ("\u200d", False)],
)
def test_pictographs_are_other_symbols_with_their_modifiers_and_joiners(form, expected):
    from lstmparse.tagger.symbols import pictographic

    assert pictographic(form) is expected


def test_an_emoji_training_never_saw_is_a_symbol_without_features():
    """EWT's training data has no emoji; its tagger's network calls them nouns with Number=Sing."""
    import lstmparse

    tagger = lstmparse.load("en_ewt_pipeline").tagger
    (tagged,) = tagger.tag([["Loved", "the", "pasta", "😍", "and", "the", "staff", "👍🏽", "!"]])
    by_form = {token.form: token for token in tagged.tokens}
    assert [(by_form[e].upos, by_form[e].feats) for e in ("😍", "👍🏽")] == [("SYM", "_"), ("SYM", "_")]
    assert (by_form["pasta"].upos, by_form["pasta"].feats) == ("NOUN", "Number=Sing")


def test_a_tagger_whose_training_had_no_symbols_keeps_its_own_tags(small_tagger):
    tagger, _ = small_tagger
    assert "SYM" not in tagger.model.vocabs["upos"]
    (tagged,) = tagger.tag([["I", "love", "it", "😍"]])
    assert tagged.tokens[3].upos != "SYM"
