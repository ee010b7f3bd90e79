"""Morphological features predicted one by one (tagger/features.py, the tagger's factored FEATS)."""

from __future__ import annotations

import io
import json
import shutil

import dynet as dy
import numpy as np
from conftest import EWT, HU

from lstmparse.io.formats import read_sentences, sentences_from_text
from lstmparse.tagger.features import (
    ABSENT,
    PREFIX,
    feature_vocabularies,
    features_by_upos,
    joined_features,
    split_features,
)
from lstmparse.tagger.grouping import tag_all
from lstmparse.tagger.model import Tagger
from lstmparse.tagger.options import TaggerDimensions, TaggerOptions
from lstmparse.tagger.training import train_tagger


def test_every_treebank_feats_column_is_rebuilt_from_its_features():
    """Joining splits in UD's order gives back each FEATS string of two treebanks (so a right guess scores)."""
    for path in (EWT / "train.conllu", HU / "train.conllu"):
        for sentence in read_sentences(str(path)):
            for token in sentence.tokens:
                assert joined_features(split_features(token.feats)) == (token.feats or "_"), token.feats


def test_features_and_their_values_per_upos():
    columns = [("NOUN", "Case=Nom|Number=Sing"), ("VERB", "Number=Plur|Person=3"), ("ADP", "_")]
    vocabs = feature_vocabularies(columns)
    assert sorted(vocabs) == [PREFIX + "Case", PREFIX + "Number", PREFIX + "Person"]
    assert set(vocabs[PREFIX + "Number"].strings[1:]) == {"Sing", "Plur", ABSENT}
    assert features_by_upos(columns) == {"NOUN": ["Case", "Number"], "VERB": ["Number", "Person"], "ADP": []}
    assert joined_features({"Number": "Plur", "Case": ABSENT, "abbr": "Yes"}) == "abbr=Yes|Number=Plur"
    assert joined_features({"Case": ABSENT}) == "_"


TRAINING = """1	dogs	dog	NOUN	_	Case=Nom	0	root	_	_

1	cats	cat	NOUN	_	Number=Plur	0	root	_	_

1	run	run	VERB	_	Tense=Pres	0	root	_	_

"""


def favour(tagger: Tagger, feature: str, value: str) -> None:
    """Make a feature's output choose ``value`` for every word (weights 0, a large bias on it)."""
    weights, bias = tagger.outputs[PREFIX + feature]
    weights.set_value(np.zeros(weights.shape(), dtype=np.float32))
    scores = np.zeros(bias.shape(), dtype=np.float32)
    scores[tagger.vocabs[PREFIX + feature].get(value)] = 10.0
    bias.set_value(scores)


def test_a_combination_never_seen_whole_is_predicted_and_each_upos_keeps_its_own_features():
    sentences = sentences_from_text(TRAINING)
    tagger = Tagger.from_sentences(sentences, TaggerDimensions(factored_feats=True, hidden=8, chars=8))
    upos_weights, upos_bias = tagger.outputs["upos"]
    upos_weights.set_value(np.zeros(upos_weights.shape(), dtype=np.float32))
    for upos, feats in (("NOUN", "Case=Nom|Number=Plur"), ("VERB", "Tense=Pres")):
        for feature, value in split_features("Case=_|Number=_|Tense=_").items():  # absent unless in feats
            favour(tagger, feature, split_features(feats).get(feature, value))
        bias = np.zeros(upos_bias.shape(), dtype=np.float32)
        bias[tagger.vocabs["upos"].get(upos)] = 10.0
        upos_bias.set_value(bias)
        for way in ("features", "likelier"):  # the features are sure (p near 1); the string output is untrained
            tagger.feats_from = way
            dy.renew_cg()
            assert tag_all(tagger, [["dogs", "sleep"]])[0]["feats"] == [feats, feats]  # no FEATS string of training
    tagger.feats_from = "string"  # the whole-string output: only strings seen in training
    dy.renew_cg()
    assert set(tag_all(tagger, [["dogs", "sleep"]])[0]["feats"]) <= {"Case=Nom", "Number=Plur", "Tense=Pres", "_"}
    for feature, value in {"Case": "Nom", "Number": "Plur", "Tense": ABSENT}.items():  # as for NOUN above
        favour(tagger, feature, value)
    bias = np.zeros(upos_bias.shape(), dtype=np.float32)
    bias[tagger.vocabs["upos"].get("NOUN")] = 10.0
    upos_bias.set_value(bias)
    weights, bias = tagger.outputs["feats"]  # a string output surer than the features: "likelier" takes it
    weights.set_value(np.zeros(weights.shape(), dtype=np.float32))
    sure = np.zeros(bias.shape(), dtype=np.float32)
    sure[tagger.vocabs["feats"].get("Tense=Pres")] = 50.0
    bias.set_value(sure)
    tagger.feats_from = "likelier"
    dy.renew_cg()
    assert tag_all(tagger, [["dogs", "sleep"]])[0]["feats"] == ["Tense=Pres", "Tense=Pres"]


def test_a_factored_tagger_saves_and_loads_its_features(hungarian, tmp_path):
    options = TaggerOptions(
        train=str(hungarian["train"]),
        dev=str(hungarian["dev"]),
        model_dir=str(tmp_path / "m"),
        epochs=1,
        dims=TaggerDimensions(factored_feats=True, hidden=32, chars=16),
    )
    train_tagger(options, log=io.StringIO())
    loaded = Tagger.load(str(tmp_path / "m"))
    assert loaded.features and loaded.feats_from == "likelier" and loaded.allowed_features["NOUN"] >= {"Case", "Number"}
    forms = [s.forms for s in read_sentences(str(hungarian["dev"]))][:50]
    loaded.feats_from = "features"  # (the string output's FEATS is a training string, of any UPOS)
    for tags in tag_all(loaded, forms):
        for feats, upos in zip(tags["feats"], tags["upos"], strict=True):
            assert set(split_features(feats)) <= loaded.allowed_features.get(upos, set())
            assert joined_features(split_features(feats)) == feats


def test_a_seen_word_takes_the_best_scored_of_the_analyses_it_had_and_an_unseen_one_the_networks():
    from lstmparse.tagger.analyses import SeenAnalyses

    sentences = sentences_from_text(TRAINING)
    tagger = Tagger.from_sentences(sentences, TaggerDimensions(factored_feats=True, hidden=8, chars=8))
    upos_weights, upos_bias = tagger.outputs["upos"]
    upos_weights.set_value(np.zeros(upos_weights.shape(), dtype=np.float32))
    bias = np.zeros(upos_bias.shape(), dtype=np.float32)
    bias[tagger.vocabs["upos"].get("NOUN")] = 10.0
    upos_bias.set_value(bias)
    for feature, value in {"Case": "Nom", "Number": "Plur", "Tense": ABSENT}.items():
        favour(tagger, feature, value)
    tagger.feats_from = "features"
    dy.renew_cg()
    assert tag_all(tagger, [["dogs", "sleep"]])[0]["feats"] == ["Case=Nom|Number=Plur"] * 2
    seen = [("dogs", "NOUN", "Case=Nom"), ("dogs", "NOUN", "Case=Nom"), ("dogs", "NOUN", "Number=Plur")]
    seen += [("cats", "NOUN", "Number=Plur"), ("cats", "NOUN", "Number=Plur"), ("cats", "NOUN", "Case=Nom|Number=Plur")]
    tagger.analyses = SeenAnalyses.learn(seen)
    assert tagger.analyses.candidates("dogs", "NOUN") == ["Case=Nom", "Number=Plur"]  # most frequent first
    assert tagger.analyses.candidates("dogs", "VERB") == [] and tagger.analyses.candidates("rats", "NOUN") == []
    dy.renew_cg()
    # dogs: its two analyses each miss one sure feature (a tie: the more frequent); cats: its rarer analysis is
    # the network's; sleep, unseen: the network's own combination
    expected = ["Case=Nom", "Case=Nom|Number=Plur", "Case=Nom|Number=Plur"]
    assert tag_all(tagger, [["dogs", "cats", "sleep"]])[0]["feats"] == expected
    favour(tagger, "Case", ABSENT)  # now Number=Plur alone is sure
    dy.renew_cg()
    assert tag_all(tagger, [["dogs", "cats", "sleep"]])[0]["feats"] == ["Number=Plur"] * 3
    tagger.analyses = None  # without the dictionary, the network's own everywhere
    favour(tagger, "Case", "Nom")
    dy.renew_cg()
    assert tag_all(tagger, [["dogs", "cats"]])[0]["feats"] == ["Case=Nom|Number=Plur"] * 2
    learned = SeenAnalyses.learn(seen)
    assert SeenAnalyses.from_json(json.loads(json.dumps(learned.to_json()))).table == learned.table


def test_training_keeps_the_seen_analyses_only_where_dev_feats_rise(small_tagger, small_treebank, tmp_path):
    from lstmparse.tagger.model import SEEN_ANALYSES
    from lstmparse.tagger.training import keep_analyses_if_better, read_tagged

    loaded, _ = small_tagger
    train = read_tagged(str(small_treebank["train"]))
    model_dir = tmp_path / "m"
    shutil.copytree(loaded.source, model_dir)
    never = read_tagged(str(small_treebank["dev"]))
    for sentence in never:  # analyses no training word ever had: the dictionary can only lose
        for token in sentence.tokens:
            token.feats = "Foo=Bar"
    figures = keep_analyses_if_better(str(model_dir), train, never, io.StringIO())
    unused = Tagger.load(str(model_dir))  # stored for a pipeline's own choice, not used
    assert not figures["kept"] and unused.analyses is not None and not unused.use_analyses
    figures = keep_analyses_if_better(str(model_dir), train, train[:100], io.StringIO())  # words seen as they were
    assert figures["kept"] and figures["dev_feats_seen_analyses"] >= figures["dev_feats"] + 0.2
    kept = Tagger.load(str(model_dir))
    assert kept.analyses is not None and kept.use_analyses and kept.analyses.candidates("the", "DET")
    vocab_file = next(model_dir.glob("vocab-*.json"))
    assert SEEN_ANALYSES in json.loads(vocab_file.read_text(encoding="utf-8"))
