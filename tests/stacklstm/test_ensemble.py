"""Stack-LSTM ensembles: the mean of the members' action distributions, the same trees whatever the search path.

Untrained members (random weights, no training needed) make the checks sharp: their
distributions differ a lot, so an ensemble that followed one member, or averaged
the wrong rows, would build other trees.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import ROOT, run_cli
from test_every_path import SYSTEMS, untrained_parser

from lstmparse.errors import ModelError
from lstmparse.io.formats import read_treebank
from lstmparse.stacklstm.api import Parser
from lstmparse.stacklstm.decoding import BatchDecoder
from lstmparse.stacklstm.ensemble import EnsembleDecoder, StackLSTMEnsemble


def members_for(system_id: str, sentences) -> list:
    """Two parsers with other features (and so other token vectors and weights), one system."""
    return [untrained_parser(system_id, "chars", sentences), untrained_parser(system_id, "pretrained-pos", sentences)]


def parser_score(candidate) -> float:
    return float(next(line for line in candidate.lines if line.startswith("# parser_score = ")).split("= ")[1])


def trees(parser: Parser, sentences, **search) -> list:
    return [[(t.head, t.deprel) for t in s.tokens] for s in parser.parse(sentences, **search)]


@pytest.mark.parametrize("system_id", list(SYSTEMS))
def test_each_path_gives_the_ensembles_trees(system_id, hungarian):
    """One sentence at a time, lock-step batches (in another order too) and beam 1 agree, for every system."""
    sentences = read_treebank(str(hungarian["train"]))[:24]
    ensemble = Parser(StackLSTMEnsemble(members_for(system_id, sentences)))
    batched = trees(ensemble, sentences, batch_size=32)
    assert trees(ensemble, sentences, batch_size=1) == batched
    reordered = trees(ensemble, sentences[::-1], batch_size=5)
    assert reordered[::-1] == batched
    beam_one = [[(t.head, t.deprel) for t in ranked[0].tokens] for ranked in ensemble.parse_kbest(sentences, 1, 1)]
    assert beam_one == batched


@pytest.mark.parametrize("system_id", ["standard", "swap", "hybrid-pp"])
def test_the_ensemble_follows_the_mean_of_its_members_distributions(system_id, hungarian):
    sentences = read_treebank(str(hungarian["train"]))[:12]
    members = members_for(system_id, sentences)
    ensemble = StackLSTMEnsemble(members)
    decoder = EnsembleDecoder(ensemble)
    configs = decoder._start([s.tokens for s in sentences])
    legal = [ensemble.system.legal(config) for config in configs]
    mixed = decoder._log_probs(configs, legal)
    singles = []
    for member in members:
        alone = BatchDecoder(member)
        member_configs = alone._start([s.tokens for s in sentences])
        singles.append(alone._log_probs(member_configs, legal))
    expected = (np.exp(singles[0]) + np.exp(singles[1])) / 2
    assert np.allclose(np.exp(mixed), expected, atol=1e-6)
    # along whole derivations too: the ensemble's scores are neither member's
    scores = [
        [parser_score(ranked[0]) for ranked in Parser(model).parse_kbest(sentences, 2, 1)]
        for model in (ensemble, *members)
    ]
    assert scores[0] != scores[1] and scores[0] != scores[2]


def test_an_ensemble_of_a_parser_with_itself_is_that_parser(hungarian):
    sentences = read_treebank(str(hungarian["train"]))[:16]
    parser = untrained_parser("swap", "all-context", sentences)
    alone, doubled = Parser(parser), Parser(StackLSTMEnsemble([parser, parser]))
    assert trees(doubled, sentences) == trees(alone, sentences)
    for mine, theirs in zip(doubled.parse_kbest(sentences, 4, 4), alone.parse_kbest(sentences, 4, 4), strict=True):
        assert [s.to_conllu() for s in mine] == [s.to_conllu() for s in theirs]


def test_members_with_other_systems_or_labels_are_refused(hungarian):
    sentences = read_treebank(str(hungarian["train"]))[:10]
    with pytest.raises(ModelError, match="transition system"):
        StackLSTMEnsemble([untrained_parser(system, "chars", sentences) for system in ("swap", "hybrid")])
    with pytest.raises(ModelError, match="at least two"):
        StackLSTMEnsemble([untrained_parser("swap", "chars", sentences)])


def test_the_cli_writes_and_parses_a_stacklstm_ensemble(hungarian, tmp_path):
    """lstmparse ensemble, then parse with it: --jobs 2 writes what one process writes; foreign members refused."""
    sentences = read_treebank(str(hungarian["train"]))[:30]
    directories = []
    for k, (system_id, features_id) in enumerate((("swap", "chars"), ("swap", "pretrained-pos"), ("hybrid", "chars"))):
        directory = tmp_path / f"member{k}"
        untrained_parser(system_id, features_id, sentences).save(str(directory))
        directories.append(str(directory))
    refused = run_cli("ensemble", directories[0], directories[2], "--output", str(tmp_path / "mixed"))
    assert refused.returncode == 2 and "outputs differ" in refused.stderr, refused.stderr
    made = run_cli("ensemble", directories[0], directories[1], "--output", str(tmp_path / "ensemble"))
    assert made.returncode == 0, made.stderr
    one = run_cli("parse", "--model", str(tmp_path / "ensemble"), "--input", str(hungarian["dev"]))
    two = run_cli("parse", "--model", str(tmp_path / "ensemble"), "--input", str(hungarian["dev"]), "--jobs", "2")
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    assert one.stdout == two.stdout
    models = run_cli("models", "--json", env={"LSTMPARSE_MODELS": str(tmp_path)})
    assert "dependency parser (ensemble)" in models.stdout
    # a pipeline's manifest may name an ensemble as its parser: the same trees as the ensemble given the same tags
    tagger = ROOT / "models" / "en_ewt_pipeline" / "tagger"
    manifest = {"arch": "pipeline", "parts": {"tagger": str(tagger), "parser": "../ensemble"}}
    (tmp_path / "pipeline").mkdir()
    (tmp_path / "pipeline" / "config.json").write_text(json.dumps(manifest))
    text = "Ez egy mondat .\nA kutya ugat .\n"
    through_pipeline = run_cli("parse", "--model", tmp_path / "pipeline", "--input-format", "text", stdin=text)
    assembled = run_cli(
        "parse", "--model", tmp_path / "ensemble", "--tagger", tagger, "--input-format", "text", stdin=text
    )
    assert through_pipeline.returncode == 0, through_pipeline.stderr
    assert through_pipeline.stdout == assembled.stdout and through_pipeline.stdout.count("\n\n") == 2
    listed = run_cli("models", "--json", env={"LSTMPARSE_MODELS": str(tmp_path)})
    sizes = {entry["name"]: entry["size_mb"] for entry in map(json.loads, listed.stdout.splitlines())}
    assert sizes["pipeline"] > sizes["ensemble"] > 0  # the tagger and both members counted


def test_an_ensemble_refuses_untagged_input_if_any_member_reads_tags(hungarian, tmp_path):
    sentences = read_treebank(str(hungarian["train"]))[:10]
    ensemble = Parser(StackLSTMEnsemble(members_for("swap", sentences)), "the ensemble")
    assert "pos" in ensemble.model.features
    blank = [["Ez", "egy", "mondat", "."]]
    with pytest.raises(Exception, match="UPOS column is empty"):
        list(ensemble.parse(blank))
