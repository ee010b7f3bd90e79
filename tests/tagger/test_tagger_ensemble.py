"""Tagger ensembles: each output is the mean of the members' distributions, whatever else is tagged with a word.

Untrained members (random weights, other sizes) make the checks sharp: their
distributions differ a lot, so an ensemble that followed one member, or averaged the
wrong rows, would give other numbers and other tags.
"""

from __future__ import annotations

import dynet as dy
import numpy as np
import pytest
from conftest import run_cli

from lstmparse.core.ensembles import write_ensemble
from lstmparse.errors import ModelError
from lstmparse.io.formats import read_treebank
from lstmparse.tagger.api import POSTagger
from lstmparse.tagger.ensemble import TaggerEnsemble
from lstmparse.tagger.grouping import tag_all
from lstmparse.tagger.model import Tagger
from lstmparse.tagger.options import COLUMNS, LEMMA, TaggerDimensions
from lstmparse.tagger.outputs import GroupOutputs


def untrained(sentences, hidden: int) -> Tagger:
    """A tagger of the sentences' tags, per-feature outputs and lemma rules, with random weights."""
    return Tagger.from_sentences(sentences, TaggerDimensions(hidden=hidden, lemmas=True, factored_feats=True))


@pytest.fixture(scope="module")
def sentences(hungarian) -> list:
    return read_treebank(str(hungarian["train"]))[:60]


@pytest.fixture(scope="module")
def members(sentences) -> list[Tagger]:
    return [untrained(sentences, 32), untrained(sentences, 48)]


def log_probs(values: np.ndarray) -> np.ndarray:
    shifted = values - values.max(axis=0)
    return shifted - np.log(np.exp(shifted).sum(axis=0))


def test_every_output_is_the_mean_of_the_members_distributions(members, sentences):
    group = [s.forms for s in sentences if len(s.forms) == len(sentences[0].forms)]
    dy.renew_cg()
    mixed = GroupOutputs(members, group)
    alone = [GroupOutputs([member], group) for member in members]
    features = [name for name in members[0].outputs if name.startswith("feat:")]
    assert features, "Hungarian's features make one output each"
    for name in (*COLUMNS, *features):
        singles = [np.exp(log_probs(outputs.column(name))) for outputs in alone]
        assert np.allclose(np.exp(mixed.column(name)), (singles[0] + singles[1]) / 2, atol=1e-6), name
        if len(members[0].vocabs[name]) > 2:  # a choice to make (Hungarian's XPOS is always _)
            assert not np.allclose(singles[0], singles[1], atol=1e-3), name
    positions = [0, 3, 5]
    singles = [np.exp(log_probs(outputs.lemma_rules(positions))) for outputs in alone]
    assert np.allclose(np.exp(mixed.lemma_rules(positions)), (singles[0] + singles[1]) / 2, atol=1e-6)


def test_the_ensembles_tags_are_neither_members_and_never_depend_on_the_group(members, sentences):
    forms = [s.forms for s in sentences]
    ensemble = TaggerEnsemble(members)
    together = tag_all(ensemble, forms)
    assert together != tag_all(members[0], forms) and together != tag_all(members[1], forms)
    one_at_a_time = [tag_all(ensemble, [sentence])[0] for sentence in forms]
    assert one_at_a_time == together
    reversed_order = tag_all(ensemble, forms[::-1])
    assert reversed_order[::-1] == together


def test_the_first_member_s_known_lemma_weight_decides_the_ensemble_s_lemmas(members, sentences):
    forms = [s.forms for s in sentences]
    ensemble = TaggerEnsemble(members)

    def lemmas(groups):
        return [lemma for tags in tag_all(ensemble, groups) for lemma in tags[LEMMA]]

    plain = lemmas(forms)
    try:
        members[1].known_lemma_weight = 50.0  # not the first member: its weight is not read
        assert lemmas(forms) == plain
        members[0].known_lemma_weight = 50.0
        favoured = lemmas(forms)
        changed = [(before, after) for before, after in zip(plain, favoured, strict=True) if before != after]
        known = members[0].lemma_lookup.known_lemmas
        assert changed and all(after.lower() in known for _, after in changed)
        assert [lemma for sentence in forms for lemma in lemmas([sentence])] == favoured  # never the group's
    finally:
        members[0].known_lemma_weight = members[1].known_lemma_weight = 0.0


def test_an_ensemble_of_a_tagger_with_itself_is_that_tagger(members, sentences):
    forms = [s.forms for s in sentences]
    assert tag_all(TaggerEnsemble([members[0], members[0]]), forms) == tag_all(members[0], forms)


def test_taggers_of_other_data_make_no_ensemble(members, sentences, tmp_path):
    other = untrained(sentences[:10], 32)
    with pytest.raises(ModelError, match="share their tags"):
        TaggerEnsemble([members[0], other])
    for name, tagger in (("a", members[0]), ("b", members[1]), ("other", other)):
        tagger.save(str(tmp_path / name))
    with pytest.raises(ModelError, match="other tags, features or lemma rules"):
        write_ensemble([tmp_path / "a", tmp_path / "other"], tmp_path / "refused")
    assert not (tmp_path / "refused").exists()


def test_an_ensemble_written_by_the_cli_tags_as_the_members_mean(members, sentences, hungarian, tmp_path):
    for name, tagger in (("a", members[0]), ("b", members[1])):
        tagger.save(str(tmp_path / name))
    result = run_cli("ensemble", str(tmp_path / "a"), str(tmp_path / "b"), "--output", str(tmp_path / "e"))
    assert result.returncode == 0, result.stderr
    loaded = POSTagger.load(tmp_path / "e")
    assert "ensemble of 2" in repr(loaded)
    expected = tag_all(TaggerEnsemble([Tagger.load(str(tmp_path / n)) for n in "ab"]), [s.forms for s in sentences])
    for sentence, tags in zip(loaded.tag(sentences, retag=True), expected, strict=True):
        assert [t.upos for t in sentence.tokens] == tags["upos"]
        assert [t.feats for t in sentence.tokens] == tags["feats"]
        assert [t.lemma for t in sentence.tokens] == tags[LEMMA]
    (tmp_path / "in.conllu").write_text("".join(s.to_conllu() for s in sentences[:5]), encoding="utf-8")
    tagged = run_cli("parse", "--model", str(tmp_path / "e"), "--input", str(tmp_path / "in.conllu"), "--retag")
    assert tagged.returncode == 0, tagged.stderr
    upos = [line.split("\t")[3] for line in tagged.stdout.splitlines() if line and line[0].isdigit()]
    assert upos == [tag for tags in expected[:5] for tag in tags["upos"]]


def test_the_service_serves_a_tagger_ensemble_as_a_tagger(members, sentences, tmp_path):
    from lstmparse.app.serve import Job, ServedModel, run_job

    for name, tagger in (("a", members[0]), ("b", members[1])):
        tagger.save(str(tmp_path / name))
    write_ensemble([tmp_path / "a", tmp_path / "b"], tmp_path / "e")
    served = ServedModel.of(str(tmp_path / "e"))
    assert served.stages == ("tagger",)
    data = "".join(s.to_conllu() for s in sentences[:3])
    _, answered = run_job(Job(served, ("tagger",), "conllu", "conllu", data, 100))
    expected = tag_all(TaggerEnsemble(members), [s.forms for s in sentences[:3]])
    assert [[t.upos for t in s.tokens] for s in answered] == [tags["upos"] for tags in expected]
