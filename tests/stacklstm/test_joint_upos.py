"""Joint tagging (``--joint-upos``): the parser's context bi-LSTM also predicts UPOS.

The loss of a minibatch with the tag layer equals the one-sentence sums (with the
rest of the matrix in ``test_lockstep_training``); here: the tag loss is really in
the parser's loss and trains the tag layer, a sentence's predicted tags do not depend
on the other sentences read with it, training reports the tags' dev accuracy, a
saved model keeps its tag layer, and the command line refuses settings that
make no sense.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import dynet as dy
import pytest
from conftest import HU, assert_one_error_line, first_sentences, run_cli
from test_every_path import SMALL, scrambled_parser

from lstmparse.io.formats import read_treebank
from lstmparse.stacklstm.examples import oracle_examples, sentence_rng, training_trees
from lstmparse.stacklstm.model import StackLSTMParser
from lstmparse.stacklstm.options import StackLSTMDimensions, StackLSTMOptions
from lstmparse.stacklstm.oracles import Exploration, make_oracle
from lstmparse.stacklstm.training import joint_upos_accuracy, train


def train_joint_parser(train_file, model_dir, epochs: int, dev=None) -> dict:
    """A small words-and-characters parser with one context layer that predicts UPOS, trained; its record."""
    options = StackLSTMOptions(
        train=str(train_file),
        dev=None if dev is None else str(dev),
        model_dir=str(model_dir),
        features=["words", "chars"],
        epochs=epochs,
        seed=1,
        dims=StackLSTMDimensions(**SMALL, context_layers=1, joint_upos=True),
    )
    return train(options, log=io.StringIO())


@pytest.fixture(scope="module")
def sentences(tmp_path_factory):
    path = tmp_path_factory.mktemp("hu_joint") / "train.conllu"
    path.write_text(first_sentences(HU / "train.conllu", 60), encoding="utf-8")
    return read_treebank(str(path))


def test_the_tag_loss_is_part_of_the_parsers_loss(sentences):
    parser = scrambled_parser("standard", "joint-upos", sentences)
    trees = training_trees(sentences, False)
    example = oracle_examples(parser.system, sentences, trees)[0][0]
    oracle = make_oracle(parser.system, "static", Exploration(0.0, 0.75))
    dy.renew_cg()
    total = parser.oracle_loss(example, oracle, sentence_rng(1, 0, example)).value()
    dy.renew_cg()
    vectors = parser.tokens.encode_many([example.sentence.tokens], train=True, rngs=[sentence_rng(1, 0, example)])
    tagging = parser.tagging_loss(vectors, [example.sentence.tokens]).value()
    assert tagging > 0
    parser.upos_head = None  # the same parser without its tag layer: the parse's loss alone
    dy.renew_cg()
    parsing = parser.oracle_loss(example, oracle, sentence_rng(1, 0, example)).value()
    assert total == pytest.approx(parsing + tagging, rel=1e-5)


def test_a_sentences_tags_do_not_depend_on_its_batch(sentences):
    parser = scrambled_parser("standard", "joint-upos", sentences, seed=3)
    tokens = [s.tokens for s in sentences[:12]]
    together = parser.predict_upos(tokens, group=12)
    alone = [parser.predict_upos([sentence])[0] for sentence in tokens]
    reversed_order = parser.predict_upos(tokens[::-1], group=5)[::-1]
    assert together == alone == reversed_order
    assert len({tag for tags in together for tag in tags}) > 2  # scrambled weights: varied tags


def test_tag_layer_graphs_take_sentences_by_length_within_a_word_budget(sentences, monkeypatch):
    """Sentences are grouped shortest first, no graph over ``UPOS_GROUP_WORDS`` words unless one sentence is longer;
    the tags come back in input order, as one sentence at a time gives them."""
    import lstmparse.stacklstm.model as model_module

    parser = scrambled_parser("standard", "joint-upos", sentences, seed=3)
    tokens = [s.tokens for s in sentences[:20]]
    alone = [parser.predict_upos([sentence])[0] for sentence in tokens]
    budget = 2 * max(len(sentence) for sentence in tokens) // 3  # the longest sentences get graphs of their own
    monkeypatch.setattr(model_module, "UPOS_GROUP_WORDS", budget)
    graphs: list[list[int]] = []
    encode_many = parser.tokens.encode_many
    monkeypatch.setattr(
        parser.tokens,
        "encode_many",
        lambda chunk, **kw: graphs.append([len(s) for s in chunk]) or encode_many(chunk, **kw),
    )
    assert parser.predict_upos(tokens, group=8) == alone
    assert sorted(n for graph in graphs for n in graph) == [n for graph in graphs for n in graph]  # shortest first
    assert all(sum(graph) <= budget or len(graph) == 1 for graph in graphs) and len(graphs) > 3
    assert all(len(graph) <= 8 for graph in graphs)


def test_training_learns_the_tags_and_a_saved_model_keeps_them(hungarian, tmp_path):
    record = train_joint_parser(hungarian["train"], tmp_path / "joint", epochs=3, dev=hungarian["dev"])
    accuracy = [epoch["dev_joint_upos"] for epoch in record["epochs"]]
    assert accuracy[-1] > accuracy[0] and accuracy[-1] > 40.0  # the tag layer learns (17 tags)
    parser = StackLSTMParser.load(str(tmp_path / "joint"))
    dev = read_treebank(str(hungarian["dev"]))
    assert joint_upos_accuracy(parser, dev) == record["epochs"][record["best_epoch"] - 1]["dev_joint_upos"]
    config = json.loads((tmp_path / "joint" / "config.json").read_text())
    assert config["dims"]["joint_upos"] is True


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        (["--features", "words,chars"], "--context-layers"),
        (["--features", "words,pos,chars", "--context-layers", "1"], "drop 'pos' from --features"),
    ],
)
def test_the_command_line_refuses_joint_tags_it_cannot_learn(small_treebank, tmp_path, arguments, fragment):
    result = run_cli(
        "train",
        "--arch",
        "stacklstm",
        "--train",
        small_treebank["train"],
        "--model-dir",
        tmp_path / "m",
        "--joint-upos",
        *arguments,
    )
    assert_one_error_line(result, fragment)


def test_a_joint_parser_fills_blank_upos_with_its_own_tags_on_every_decoding_path(hungarian, tmp_path):
    """Untagged input gets the parser's tags (greedy one at a time, lock-step, beam); given tags stay; trees agree."""
    from conftest import blank_tags

    from lstmparse.stacklstm.api import Parser

    train_joint_parser(hungarian["train"], tmp_path / "joint", epochs=2)
    parser = Parser.load(str(tmp_path / "joint"))
    tagged = tmp_path / "dev.conllu"
    tagged.write_text(first_sentences(hungarian["dev"], 40), encoding="utf-8")
    untagged = tmp_path / "untagged.conllu"
    untagged.write_text(blank_tags(tagged.read_text(encoding="utf-8")), encoding="utf-8")
    sentences = list(read_treebank(str(untagged)))
    expected = parser.model.predict_upos([s.tokens for s in sentences])
    runs = {
        "one at a time": list(parser.parse(sentences, batch_size=1)),
        "lock-step": list(parser.parse(sentences, batch_size=8)),
        "beam 2": [best for best, *_ in parser.parse_kbest(sentences, beam=2)],
    }
    for name, parsed in runs.items():
        assert [[t.upos for t in s.tokens] for s in parsed] == expected, name
    kept = list(parser.parse(read_treebank(str(tagged)), batch_size=8))
    given = [[t.upos for t in s.tokens] for s in read_treebank(str(tagged))]
    assert [[t.upos for t in s.tokens] for s in kept] == given
    trees = [[(t.head, t.deprel) for t in s.tokens] for s in kept]
    assert trees == [[(t.head, t.deprel) for t in s.tokens] for s in runs["lock-step"]]  # tags are not read


@pytest.fixture(scope="module")
def joint_pipeline(small_treebank, tmp_path_factory):
    """The default pipeline's tokenizer and tagger with a small joint-UPOS parser (two epochs on 200 EWT sentences)."""
    from conftest import ROOT

    folder = tmp_path_factory.mktemp("joint_pipeline")
    train_joint_parser(small_treebank["train"], folder / "parser", epochs=2)
    default = ROOT / "models" / "en_ewt_pipeline"
    made = run_cli(
        "train", "--arch", "pipeline", "--parser", folder / "parser", "--tagger", default,
        "--tokenizer", default, "--model-dir", folder / "pipeline",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    return folder / "pipeline"


def test_a_pipeline_takes_upos_from_its_tagger_and_joint_parser_together(joint_pipeline, small_treebank, tmp_path):
    """UPOS: the likeliest under the mean of the tagger's and the parser's probabilities; XPOS, FEATS, lemmas for it."""
    from conftest import blank_tags

    from lstmparse.pipeline.api import Pipeline
    from lstmparse.tagger.api import POSTagger

    pipeline = Pipeline.load(joint_pipeline)
    gold = list(read_treebank(str(small_treebank["dev"])))
    blanked = tmp_path / "untagged.conllu"
    blanked.write_text(blank_tags(Path(small_treebank["dev"]).read_text(encoding="utf-8")), encoding="utf-8")
    untagged = list(read_treebank(str(blanked)))
    parsed = list(pipeline.parse(untagged))
    expected = mean_of_both(pipeline, untagged)
    assert columns(parsed, "upos") == expected
    tagger = POSTagger.load(joint_pipeline / "tagger")
    tagged_alone = list(tagger.tag(untagged))
    parser_alone = pipeline.parser.model.predict_upos([s.tokens for s in untagged])
    assert expected != columns(tagged_alone, "upos") and expected != parser_alone, "the mean decides nothing here"
    mixed_upos = [s.with_columns({"upos": [t.upos for t in p.tokens]}) for s, p in zip(untagged, parsed, strict=True)]
    given_upos = list(tagger.tag(mixed_upos))  # XPOS and FEATS follow the UPOS (tagger/companions.py)
    for column in ("xpos", "feats"):
        assert columns(parsed, column) == columns(given_upos, column), column
    assert columns(parsed, "xpos") != columns(tagged_alone, "xpos"), "no XPOS followed the UPOS"
    given = list(pipeline.parse(gold))  # tagged input keeps its UPOS, unless retagged
    assert [[t.upos for t in s.tokens] for s in given] == [[t.upos for t in s.tokens] for s in gold]
    retagged = list(pipeline.parse(gold, retag=True))
    assert [[t.upos for t in s.tokens] for s in retagged] == [[t.upos for t in s.tokens] for s in parsed]


def mean_of_both(pipeline, sentences) -> list[list[str]]:
    """Each word's UPOS under the mean of the two models' probabilities, from their raw output layers."""
    import dynet as dy
    import numpy as np

    from lstmparse.tagger.outputs import GroupOutputs

    tagger, parser = pipeline.tagger.model, pipeline.parser.model
    strings = tagger.vocabs["upos"].strings
    parser_tags = parser.upos_head.tags.strings
    chosen = []
    for sentence, theirs in zip(sentences, parser.upos_log_probs([s.tokens for s in sentences]), strict=True):
        dy.renew_cg()
        scores = GroupOutputs([tagger], [sentence.forms]).column("upos").astype(np.float64)
        own = np.exp(scores - scores.max(axis=0))
        own /= own.sum(axis=0)
        other = np.zeros_like(own)
        for column, tag in enumerate(parser_tags):
            if tag in strings:
                other[strings.index(tag)] = np.exp(theirs[:, column])
        chosen.append([strings[i] for i in (own + other).argmax(axis=0)])
    return chosen


def columns(sentences, column: str) -> list[list[str]]:
    return [[getattr(t, column) for t in s.tokens] for s in sentences]


def test_a_joint_pipeline_writes_the_same_bytes_with_jobs_and_streaming(joint_pipeline, small_treebank, tmp_path):
    text = "Dogs chase cats. The committee approved the new budget on Tuesday.\n\nCats sleep."
    outputs = [
        run_cli("parse", "--model", joint_pipeline, "--input-format", "raw", "--quiet", *extra, stdin=text)
        for extra in ([], ["--jobs", "2"], ["--batch-size", "1"])
    ]
    assert all(result.returncode == 0 for result in outputs), [r.stderr for r in outputs]
    assert outputs[0].stdout == outputs[1].stdout == outputs[2].stdout and outputs[0].stdout.count("\troot\t") == 3


def test_an_ensembles_upos_is_the_mean_of_its_joint_members(sentences):
    """A member that predicts no UPOS has no say; two joint members' probabilities are averaged."""
    import numpy as np

    from lstmparse.errors import ModelError
    from lstmparse.stacklstm.api import Parser
    from lstmparse.stacklstm.ensemble import StackLSTMEnsemble

    first, second = (scrambled_parser("standard", "joint-upos", sentences, seed=s) for s in (1, 2))
    plain = scrambled_parser("standard", "chars", sentences, seed=3)
    ensemble = Parser(StackLSTMEnsemble([first, plain, second]))
    assert ensemble.predicts_upos and not Parser(plain).predicts_upos
    with pytest.raises(ModelError, match="--joint-upos"):
        Parser(plain).upos_distributions(sentences[:2])
    window = sentences[:12]
    mixed = ensemble.upos_distributions(window)
    alone = [Parser(member).upos_distributions(window) for member in (first, second)]
    for k, distribution in enumerate(mixed):
        assert list(distribution.tags) == list(alone[0][k].tags)
        mean = (np.exp(alone[0][k].log_probs) + np.exp(alone[1][k].log_probs)) / 2
        np.testing.assert_allclose(np.exp(distribution.log_probs), mean, rtol=1e-5, atol=1e-7)
    blanked = [s.with_columns({"upos": ["_"] * len(s)}) for s in window]
    filled = columns(ensemble.fill_blank_upos(blanked), "upos")
    assert filled == [[d.tags[i] for i in d.log_probs.argmax(axis=1)] for d in mixed]
    assert filled != first.predict_upos([s.tokens for s in window]), "the mean decides nothing here"
