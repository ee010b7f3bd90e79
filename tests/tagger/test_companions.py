"""A tagger keeps a UPOS it is given, and its XPOS and FEATS go with the UPOS it outputs.

The tags of an untrained tagger (random weights) disagree with each other often, so
they show both what the mending changes and that a tag it need not change stays.
"""

from __future__ import annotations

import numpy as np
import pytest

from lstmparse.core.vocab import Vocabulary
from lstmparse.io.formats import read_treebank
from lstmparse.tagger.companions import UposCompanions
from lstmparse.tagger.grouping import tag_all
from lstmparse.tagger.model import Tagger
from lstmparse.tagger.options import TaggerDimensions


@pytest.fixture(scope="module")
def treebank(small_treebank) -> dict[str, list]:
    return {name: read_treebank(str(path)) for name, path in small_treebank.items()}


@pytest.fixture(scope="module")
def tagger(treebank) -> Tagger:
    """Untrained, the whole FEATS string as one output (as the default English tagger has it), with lemmas."""
    return Tagger.from_sentences(treebank["train"], TaggerDimensions(hidden=16, lemmas=True, factored_feats=False))


def seen_pairs(sentences, column: str) -> set[tuple[str, str]]:
    return {(t.upos, getattr(t, column)) for s in sentences for t in s.tokens}


def test_given_upos_is_kept_and_xpos_and_feats_go_with_it(tagger: Tagger, treebank) -> None:
    dev = treebank["dev"]
    forms, gold_upos = [s.forms for s in dev], [[t.upos for t in s.tokens] for s in dev]
    given, own = tag_all(tagger, forms, gold_upos), tag_all(tagger, forms)
    assert [tags["upos"] for tags in given] == gold_upos
    assert sum(a["upos"] != b["upos"] for a, b in zip(own, given, strict=True)) > len(dev) // 2, "too easy a test"
    trained_upos = {t.upos for s in treebank["train"] for t in s.tokens}
    for column in ("xpos", "feats"):
        pairs = seen_pairs(treebank["train"], column)
        predicted = [(u, v) for tags in given for u, v in zip(tags["upos"], tags[column], strict=True)]
        assert all(pair in pairs for pair in predicted if pair[0] in trained_upos), column
    assert [tags["lemma"] for tags in given] == [tags["lemma"] for tags in own], "lemmas read the tagger's own UPOS"


def test_a_blank_given_upos_leaves_the_word_to_the_tagger(tagger: Tagger, treebank) -> None:
    forms = [s.forms for s in treebank["dev"]]
    own = tag_all(tagger, forms)
    half = [[u if j % 2 else "_" for j, u in enumerate(tags["upos"])] for tags in own]
    assert tag_all(tagger, forms, half) == own
    assert tag_all(tagger, forms, [["_"] * len(f) for f in forms]) == own


def test_the_tagger_alone_outputs_only_pairs_seen_in_training(tagger: Tagger, treebank) -> None:
    forms = [s.forms for s in treebank["dev"]]
    own = tag_all(tagger, forms)
    for column in ("xpos", "feats"):
        pairs = seen_pairs(treebank["train"], column)
        assert all((u, v) in pairs for tags in own for u, v in zip(tags["upos"], tags[column], strict=True)), column
    tagger.companions, kept = None, tagger.companions
    try:
        without_table = tag_all(tagger, forms)
    finally:
        tagger.companions = kept
    assert without_table != own, "the untrained tagger's tags never needed mending: the test shows nothing"
    assert [tags["upos"] for tags in without_table] == [tags["upos"] for tags in own]


def test_the_table_is_saved_with_the_tagger(tagger: Tagger, treebank, tmp_path) -> None:
    tagger.save(str(tmp_path / "m"))
    loaded = Tagger.load(str(tmp_path / "m"))
    assert loaded.companions is not None and loaded.companions.table == tagger.companions.table
    forms = [s.forms for s in treebank["dev"]]
    assert tag_all(loaded, forms) == tag_all(tagger, forms)


def test_the_best_value_seen_with_a_upos() -> None:
    companions = UposCompanions.learn([("NOUN", "NN", "_"), ("NOUN", "NNS", "Number=Plur"), ("VERB", "VB", "_")])
    strings = Vocabulary.from_counts({"NN": 1, "NNS": 1, "VB": 1}).strings
    scores = np.zeros(len(strings))
    scores[strings.index("VB")], scores[strings.index("NNS")] = 5.0, 1.0
    assert companions.best("xpos", "NOUN", scores, strings) == "NNS"
    assert companions.best("xpos", "ADJ", scores, strings) is None  # a UPOS training never saw: no constraint
    assert companions.allows("xpos", "ADJ", "VB") and not companions.allows("xpos", "NOUN", "VB")


def test_input_upos_stays_and_the_other_columns_follow_it(small_tagger, treebank) -> None:
    """A user's UPOS column (the others blank) is kept; with --retag the tagger's own UPOS replaces it."""
    pos_tagger, _ = small_tagger
    dev = treebank["dev"][:20]
    blanked = [s.with_columns({c: ["_"] * len(s) for c in ("xpos", "feats", "lemma")}) for s in dev]
    tagged = list(pos_tagger.tag(blanked))
    assert [[t.upos for t in s.tokens] for s in tagged] == [[t.upos for t in s.tokens] for s in dev]
    pairs = seen_pairs(read_treebank(pos_tagger.model.training_record["train"]), "xpos")
    trained_upos = {upos for upos, _ in pairs}
    assert all((t.upos, t.xpos) in pairs for s in tagged for t in s.tokens if t.upos in trained_upos)
    retagged = list(pos_tagger.tag(blanked, retag=True))
    assert [[t.upos for t in s.tokens] for s in retagged] == [
        [t.upos for t in s.tokens] for s in pos_tagger.tag(dev, retag=True)
    ]


def test_another_models_distribution_over_the_taggers_tags() -> None:
    """Tags the other model lacks get no probability from it; tags the tagger lacks are left out."""
    from lstmparse.core.ensembles import TagDistribution

    other = TagDistribution(["<unk>", "NOUN", "INTJ"], np.log(np.array([[1e-9, 0.75, 0.25], [1e-9, 0.5, 0.5]])))
    values = other.over(["<unk>", "VERB", "NOUN"])
    assert values.shape == (3, 2)
    assert np.isneginf(values[1]).all() and np.allclose(np.exp(values[2]), [0.75, 0.5])
