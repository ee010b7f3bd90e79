"""Lemmas as edit scripts: every training lemma reproduced, rules that generalize, lookups, the tagger's column."""

from __future__ import annotations

import io

import numpy as np
import pytest

from lstmparse.io.formats import read_sentences
from lstmparse.tagger.lemmas import (
    LemmaCasings,
    LemmaLookup,
    apply_rule,
    form_shape,
    lemma_casing,
    lemma_rule,
    preferred_lemma,
    training_rules,
)

PAIRS = [
    ("dogs", "dog"),
    ("Dogs", "dog"),
    ("went", "go"),  # nothing shared: the lemma is stored whole
    ("unhappier", "unhappy"),
    ("I", "I"),
    ("NASA", "NASA"),
    ("McDonald's", "McDonald"),
    ("i", "I"),
    ("İstanbul", "İstanbul"),  # lower-casing makes it longer
    ("don't", "do"),
    ("_", "_"),
]


@pytest.mark.parametrize(("form", "lemma"), PAIRS)
def test_a_rule_rewrites_its_form_into_its_lemma(form, lemma):
    assert apply_rule(lemma_rule(form, lemma), form) == lemma


def test_every_lemma_of_the_training_data_is_reproduced(small_treebank):
    words = [(t.form, t.lemma) for s in read_sentences(str(small_treebank["train"])) for t in s.tokens]
    assert all(apply_rule(lemma_rule(form, lemma), form) == lemma for form, lemma in words)
    rules = training_rules(words)
    assert len(rules) < len(set(words)) / 3  # rules are shared: that is what lets them generalize


def test_rules_generalize_to_unseen_forms_with_their_casing():
    assert apply_rule(lemma_rule("walked", "walk"), "Jumped") == "jump"
    assert apply_rule(lemma_rule("Paris", "Paris"), "Budapest") == "Budapest"
    assert apply_rule(lemma_rule("cities", "city"), "Ladies") == "lady"
    assert apply_rule(lemma_rule("went", "go"), "walked") == "go"


def test_a_rule_that_cuts_more_than_the_form_has_is_passed_over():
    cuts_four = lemma_rule("running", "run")
    assert apply_rule(cuts_four, "ran") is None
    ranked = [cuts_four, lemma_rule("cat", "cat")]
    assert preferred_lemma("ran", np.array([0.0, -1.0]), ranked, frozenset(), 0.0) == "ran"
    assert preferred_lemma("ran", np.array([0.0, -np.inf]), ranked, frozenset(), 0.0) == "ran"  # none: the form


RULES = [
    lemma_rule("walked", "walk"),
    lemma_rule("cat", "cat"),
    lemma_rule("studies", "study"),
    lemma_rule("went", "go"),
]


def test_at_weight_zero_the_likeliest_rule_that_applies_decides():
    scores = np.array([-0.5, -2.0, -1.0, -np.inf])
    assert preferred_lemma("kissed", scores, RULES, frozenset({"kissed", "kiss"}), 0.0) == "kiss"
    assert preferred_lemma("Ed", scores, RULES, frozenset(), 0.0) == "ed"  # cutting "ed" from "Ed" cannot apply
    assert preferred_lemma("Ed", np.array([-0.5, -2.0, -1.0, -0.1]), RULES, frozenset(), 0.0) == "go"


def test_a_rule_making_a_training_lemma_wins_where_its_weight_covers_the_gap():
    scores = np.array([-2.0, -0.1, -1.0, -np.inf])  # the network prefers to keep "planned" as it is
    known = frozenset({"plan"})  # seen in training as the lemma of other forms; "planned" never was
    assert preferred_lemma("planned", scores, RULES, known, 0.0) == "planned"
    assert preferred_lemma("planned", scores, RULES, known, 1.5) == "planned"  # "plann": not known
    known = frozenset({"plann"})
    assert preferred_lemma("planned", scores, RULES, known, 1.5) == "planned"  # a gap of 1.9 stays
    assert preferred_lemma("planned", scores, RULES, known, 2.0) == "plann"
    assert preferred_lemma("Planned", scores, RULES, known, 2.0) == "plann"  # known lemmas are lower-cased
    assert preferred_lemma("planned", scores, RULES, frozenset({"planned"}), 5.0) == "planned"  # the best is known


def test_the_known_lemmas_are_the_lookup_s_lower_cased_but_never_a_blank_lemma():
    lookup = LemmaLookup.from_pairs([("Dogs", "NOUN", "Dog"), ("went", "VERB", "go"), ("qarap", "VERB", "_")])
    assert lookup.known_lemmas == frozenset({"dog", "go"})


def test_preferred_lemma_is_the_best_of_every_rule_scored_with_its_bonus():
    rng = np.random.default_rng(0)
    forms = ["walked", "Studies", "cat", "Ed", "ab"]
    rules = [lemma_rule(form, lemma) for form, lemma in PAIRS] + RULES
    known = frozenset({"walk", "study", "go", "ca", "i"})
    for _ in range(300):
        scores = rng.normal(size=len(rules)) * 2
        scores[rng.random(len(rules)) < 0.2] = -np.inf
        weight = float(rng.choice([0.0, 0.5, 1.0, 3.0]))
        penalties = dict(zip(CASING_NAMES, -rng.exponential(size=len(CASING_NAMES)), strict=True))
        for form in forms:
            for casing in (None, penalties):
                candidates = [
                    (score + (weight if lemma.lower() in known else 0.0) + _penalty(casing, form, lemma), -r, lemma)
                    for r, (score, rule) in enumerate(zip(scores, rules, strict=True))
                    if score > -np.inf and (lemma := apply_rule(rule, form))
                ]
                expected = max(candidates)[2] if candidates else form
                assert preferred_lemma(form, scores, rules, known, weight, casing) == expected


CASING_NAMES = ("lower", "form", "title", "upper", "other")


def _penalty(casing: dict | None, form: str, lemma: str) -> float:
    return casing[lemma_casing(form, lemma)] if casing else 0.0


def test_a_lemma_s_casing_is_the_first_that_casts_it_and_a_form_has_one_shape():
    casings = [lemma_casing(form, lemma) for form, lemma in PAIRS[:8]]
    assert casings == ["lower"] * 4 + ["form"] * 3 + ["title"]  # "McDonald's": capitals where the form has them
    assert lemma_casing("firefox", "Firefox") == "title" and lemma_casing("Firefox", "Firefox") == "form"
    assert lemma_casing("MCDONALD", "McDonald") == "other"
    shapes = [form_shape(f) for f in ("dogs", "Dogs", "NASA", "McDonald's", "3,000", "I", "U.S.")]
    assert shapes == ["lower", "title", "upper", "mixed", "lower", "upper", "upper"]


def test_casing_penalties_are_zero_for_the_usual_casing_and_scaled_by_the_weight():
    casings = LemmaCasings.from_words(
        [("Firefox", "PROPN", "Firefox"), ("Paris", "PROPN", "Paris"), ("Cats", "NOUN", "cat"), ("Dogs", "NOUN", "dog")]
        + [("Apple", "PROPN", "apple"), ("Sleep", "VERB", "_")]  # a blank lemma counts for nothing
    )
    assert casings.counts == {"PROPN title": {"form": 2, "lower": 1}, "NOUN title": {"lower": 2}}
    propn = casings.penalties("Budapest", "PROPN", 2.0)
    assert propn["form"] == 0.0 and propn["lower"] == pytest.approx(2.0 * np.log(2 / 3))
    assert propn["upper"] == propn["title"] == propn["other"] == pytest.approx(2.0 * np.log(1 / 3))
    assert casings.penalties("Budapest", "NOUN", 1.0)["form"] == pytest.approx(np.log(1 / 3))
    assert set(casings.penalties("budapest", "PROPN", 1.0).values()) == {0.0}  # no lower-case proper noun counted
    assert set(casings.penalties("Sleep", "VERB", 1.0).values()) == {0.0}


def test_a_lemma_cased_unusually_for_the_upos_loses_where_the_weight_covers_the_gap():
    rules = [lemma_rule("Cat", "cat"), lemma_rule("Paris", "Paris")]  # lower-case it, or keep it as it is
    scores = np.array([-0.2, -0.9])  # the network: "firefox"
    casings = LemmaCasings.from_words([("Paris", "PROPN", "Paris"), ("Cats", "NOUN", "cat")] * 5)
    assert preferred_lemma("Firefox", scores, rules, frozenset(), 0.0) == "firefox"
    assert preferred_lemma("Firefox", scores, rules, frozenset(), 0.0, casings.penalties("Firefox", "PROPN", 0.3)) == (
        "firefox"  # log(6) * 0.3 = 0.54 < 0.7
    )
    assert preferred_lemma("Firefox", scores, rules, frozenset(), 0.0, casings.penalties("Firefox", "PROPN", 0.5)) == (
        "Firefox"
    )
    assert preferred_lemma("Firefox", scores, rules, frozenset(), 0.0, casings.penalties("Firefox", "NOUN", 5.0)) == (
        "firefox"
    )


def test_the_lookup_keeps_each_form_and_upos_most_frequent_lemma():
    lookup = LemmaLookup.from_pairs(
        [("saw", "VERB", "see"), ("saw", "NOUN", "saw"), ("saw", "VERB", "see"), ("saw", "VERB", "saw")]
    )
    assert lookup.get("saw", "VERB") == "see" and lookup.get("saw", "NOUN") == "saw"
    assert lookup.get("saw", "ADJ") is None and lookup.get("sawn", "VERB") is None
    assert LemmaLookup.from_json(lookup.to_json()).table == lookup.table


def test_the_lookup_leaves_out_a_name_s_lemma_seen_once_that_no_other_word_s_rule_explains():
    words = [("Vince", "PROPN", "VinceJKaminski@ECT"), ("Ann", "PROPN", "Anne"), ("Ann", "PROPN", "Ann")]
    words += [("Dogs", "PROPN", "Dog"), ("Cats", "NOUN", "Cat"), ("went", "VERB", "go"), ("later", "NOUN", "layer")]
    words += [("Paris", "PROPN", "Paris"), ("Gaza", "PROPN", "Gaza")]
    rules = training_rules([(form, lemma) for form, _, lemma in words])
    lookup = LemmaLookup.from_pairs(words, rules)
    assert lookup.get("Vince", "PROPN") is None  # a name seen once, its rule once: an annotator's one-off
    assert lookup.get("Ann", "PROPN") == "Ann"  # "Anne" is passed over for the pair's other lemma
    assert lookup.get("Dogs", "PROPN") == "Dog"  # seen once, but "Cats" shares its rule
    assert lookup.get("went", "VERB") == "go" and lookup.get("later", "NOUN") == "layer"  # not names: kept
    without = LemmaLookup.from_pairs(words)  # without rules: every pair's most frequent, ties to the first seen
    assert without.get("Vince", "PROPN") == "VinceJKaminski@ECT" and without.get("Ann", "PROPN") == "Anne"


def test_a_treebank_with_lemmas_trains_a_lemma_output(small_tagger, small_treebank):
    tagger, record = small_tagger
    assert "lemma" in tagger.model.columns
    assert 50 < record["epochs"][-1]["dev_lemma"] <= 100
    dev = list(read_sentences(str(small_treebank["dev"])))
    blank = [s.with_columns({"lemma": ["_"] * len(s)}) for s in dev]
    tagged = list(tagger.tag(blank))
    for sentence, original in zip(tagged, dev, strict=True):
        assert all(t.lemma not in ("", "_") or t.form == "_" for t in sentence.tokens)
        assert [t.upos for t in sentence.tokens] == [t.upos for t in original.tokens]  # UPOS was not blank
        for token, index in zip(sentence.tokens, sentence.token_lines, strict=True):
            assert sentence.lines[index].split("\t")[2] == token.lemma
    assert [s.to_conllu() for s in tagger.tag(dev)] == [s.to_conllu() for s in dev]  # filled: kept


def test_lemmas_do_not_depend_on_the_other_sentences_tagged_with_them(small_tagger, small_treebank):
    tagger, _ = small_tagger
    dev = list(read_sentences(str(small_treebank["dev"])))
    together = [[t.lemma for t in s.tokens] for s in tagger.tag(dev, retag=True)]
    alone = [[t.lemma for t in s.tokens] for d in dev for s in tagger.tag([d], retag=True)]
    assert together == alone


def test_forms_seen_in_training_take_their_training_lemma(small_tagger, small_treebank):
    tagger, _ = small_tagger
    lookup = tagger.model.lemma_lookup
    dev = list(read_sentences(str(small_treebank["dev"])))
    words = [t for s in tagger.tag(dev, retag=True) for t in s.tokens]
    seen = [t for t in words if lookup.get(t.form, t.upos) is not None]
    assert len(seen) > len(words) / 5  # a tagger trained for two epochs; still hundreds of words
    assert all(t.lemma == lookup.get(t.form, t.upos) for t in seen)


def test_a_treebank_without_lemmas_trains_no_lemma_output(small_treebank, tmp_path):
    from lstmparse.tagger.api import POSTagger
    from lstmparse.tagger.options import TaggerOptions
    from lstmparse.tagger.training import train_tagger

    no_lemmas = tmp_path / "train.conllu"
    sentences = list(read_sentences(str(small_treebank["train"])))[:30]
    no_lemmas.write_text("".join(s.with_columns({"lemma": ["_"] * len(s)}).to_conllu() for s in sentences))
    options = TaggerOptions(train=str(no_lemmas), model_dir=str(tmp_path / "m"), epochs=1)
    train_tagger(options, log=io.StringIO())
    tagger = POSTagger.load(tmp_path / "m")
    assert "lemma" not in tagger.model.columns
    (sentence,) = tagger.tag([["Dogs", "bark", "."]])
    assert [t.lemma for t in sentence.tokens] == ["_"] * 3


@pytest.fixture(scope="module")
def lemma_feats_tagger(small_treebank, tmp_path_factory):
    """A tagger whose lemma layer also reads the embedding of its predicted FEATS (``--lemma-feats 8``)."""
    import io

    from lstmparse.tagger.options import TaggerDimensions, TaggerOptions
    from lstmparse.tagger.training import train_tagger

    model_dir = tmp_path_factory.mktemp("lemma_feats") / "m"
    options = TaggerOptions(
        train=str(small_treebank["train"]),
        dev=str(small_treebank["dev"]),
        model_dir=str(model_dir),
        epochs=2,
        dims=TaggerDimensions(word=16, hidden=32, lemma_feats=8),
    )
    record = train_tagger(options, log=io.StringIO())
    return model_dir, record


def test_the_lemma_layer_reads_the_networks_own_feats(lemma_feats_tagger, small_treebank):
    import dynet as dy
    import numpy as np

    from lstmparse.tagger.model import Tagger

    model_dir, record = lemma_feats_tagger
    assert 0 < record["epochs"][-1]["dev_lemma"] <= 100
    tagger = Tagger.load(str(model_dir))
    forms = [t.form for t in next(iter(read_sentences(str(small_treebank["dev"])))).tokens]
    dy.renew_cg()
    hidden, lemma_input = tagger.encode([forms])
    feats = tagger.column_scores("feats", hidden).npvalue()
    feats[0] = -np.inf
    width = tagger.dims.lemma_feats
    embedded = lemma_input.npvalue()[-width:].reshape(width, -1)  # the last rows: the FEATS embedding
    expected = np.stack([tagger.lemma_feats[int(i)].npvalue() for i in feats.argmax(axis=0)], axis=1)
    np.testing.assert_allclose(embedded, expected, rtol=1e-6)
    before = tagger.predict([forms])[0]["lemma"]
    dy.renew_cg()
    tagger.lemma_feats.init_from_array(np.random.default_rng(0).normal(0, 50, tagger.lemma_feats.shape()))
    tagger.lemma_lookup.table.clear()  # every word through the rules, which now read other FEATS vectors
    assert tagger.predict([forms])[0]["lemma"] != before


def test_lemmas_reading_feats_do_not_depend_on_the_batch_and_survive_saving(lemma_feats_tagger, small_treebank):
    from lstmparse.tagger.api import POSTagger

    model_dir, record = lemma_feats_tagger
    tagger = POSTagger.load(model_dir)
    dev = list(read_sentences(str(small_treebank["dev"])))
    together = [[t.lemma for t in s.tokens] for s in tagger.tag(dev, retag=True)]
    alone = [[t.lemma for t in s.tokens] for d in dev for s in tagger.tag([d], retag=True)]
    assert together == alone
    gold = [t.lemma for s in dev for t in s.tokens]
    right = sum(a == b for a, b in zip([lemma for s in together for lemma in s], gold, strict=True))
    known, casing = record["known_lemma_weight"], record["lemma_casing_weight"]  # training ends choosing both on dev
    assert known["dev_lemma"]["0"] == record["epochs"][record["best_epoch"] - 1]["dev_lemma"]  # as trained
    assert casing["dev_lemma"]["0"] == known["dev_lemma"][f"{known['kept']:g}"]  # the casing weight's turn came next
    assert round(100.0 * right / len(gold), 2) == casing["dev_lemma"][f"{casing['kept']:g}"]


def test_training_keeps_a_known_lemma_weight_only_where_dev_lemmas_rise(small_tagger, small_treebank, tmp_path):
    import json
    import shutil

    from lstmparse.tagger.model import KNOWN_LEMMA_WEIGHT, LEMMA_CASING_WEIGHT, Tagger
    from lstmparse.tagger.training import accuracies, keep_lemma_weights_if_better, read_tagged

    loaded, record = small_tagger
    assert record[KNOWN_LEMMA_WEIGHT]["kept"] == loaded.model.known_lemma_weight  # training chose it
    assert record[LEMMA_CASING_WEIGHT]["kept"] == loaded.model.lemma_casing_weight
    model_dir = tmp_path / "m"
    shutil.copytree(loaded.source, model_dir)
    dev = read_tagged(str(small_treebank["dev"]))
    unknowable = [s.with_columns({"lemma": ["zzz"] * len(s)}) for s in dev]  # no weight gets one right
    for figures in keep_lemma_weights_if_better(str(model_dir), unknowable, io.StringIO()).values():
        assert figures["kept"] == 0.0 and set(figures["dev_lemma"].values()) == {0.0}
    vocab = json.loads(next(model_dir.glob("vocab-*.json")).read_text(encoding="utf-8"))
    assert KNOWN_LEMMA_WEIGHT not in vocab and LEMMA_CASING_WEIGHT not in vocab
    figures = keep_lemma_weights_if_better(str(model_dir), dev, io.StringIO())[KNOWN_LEMMA_WEIGHT]
    kept = figures["kept"]
    assert kept > 0 and figures["dev_lemma"][f"{kept:g}"] >= figures["dev_lemma"]["0"] + 0.1
    tagger = Tagger.load(str(model_dir))
    assert tagger.known_lemma_weight == kept
    tagger.lemma_casing_weight = 0.0  # the known-lemma weight was chosen before the casing weight's turn
    assert accuracies(tagger, dev)["lemma"] == figures["dev_lemma"][f"{kept:g}"]
    tagger.known_lemma_weight = 0.0
    assert accuracies(tagger, dev)["lemma"] == figures["dev_lemma"]["0"] < figures["dev_lemma"][f"{kept:g}"]


def test_the_tagger_s_casing_weight_casts_lemmas_as_its_counts_say_and_is_saved(small_tagger, small_treebank, tmp_path):
    from lstmparse.tagger.grouping import tag_all
    from lstmparse.tagger.model import Tagger

    loaded, _ = small_tagger
    tagger = Tagger.load(loaded.source)
    tagger.lemma_lookup.table.clear()  # every word through the rules
    sentences = [s.forms for s in read_sentences(str(small_treebank["dev"]))]
    forms = [form for sentence in sentences for form in sentence]
    for casing in ("form", "lower"):
        tagger.lemma_casings = LemmaCasings({f"{upos} title": {casing: 1000} for upos in tagger.vocabs["upos"].strings})
        tagger.lemma_casing_weight = 50.0
        lemmas = [lemma for tags in tag_all(tagger, sentences) for lemma in tags["lemma"]]
        titled = [(form, lemma) for form, lemma in zip(forms, lemmas, strict=True) if form_shape(form) == "title"]
        assert len(titled) > 20 and all(lemma_casing(form, lemma) == casing for form, lemma in titled)
        assert [tags for sentence in sentences for tags in tag_all(tagger, [sentence])] == tag_all(tagger, sentences)
    tagger.save(str(tmp_path / "saved"))
    again = Tagger.load(str(tmp_path / "saved"))
    assert again.lemma_casing_weight == 50.0 and again.lemma_casings.counts == tagger.lemma_casings.counts
    assert tag_all(again, sentences) == tag_all(tagger, sentences)
