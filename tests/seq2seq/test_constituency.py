"""The seq2seq constituency parser: training, decoding alike in every batch, ensembles, the CLI."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from lstmparse.errors import InputError
from lstmparse.io.formats import Sentence
from lstmparse.io.ptb import parse_ptb_text, read_ptb
from lstmparse.scoring.evalb import brackets
from lstmparse.seq2seq.linearization import LEAF

ROOT = Path(__file__).resolve().parents[2]


def lstmparse(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), *args], input=stdin, capture_output=True, text=True, cwd=ROOT
    )


def seq2seq_training(small_gum, model: Path) -> list[str]:
    """``lstmparse train`` of a one-layer seq2seq model on the small GUM subset, seed 3."""
    train, dev = small_gum
    options = "--arch seq2seq --seed 3 --layers 1".split()
    return ["train", *options, "--train", str(train), "--dev", str(dev), "--model-dir", str(model)]


def trained_on_small_gum(small_gum, folder: Path, *options: str) -> Path:
    """A seq2seq model trained through the CLI on the small GUM subset, with ``options``."""
    model = folder / "model"
    result = lstmparse(*seq2seq_training(small_gum, model), *options)
    assert result.returncode == 0, result.stderr
    assert "dev F1" in result.stderr and "at the best epoch" in result.stderr
    return model


@pytest.fixture(scope="module")
def trained_model(small_gum, tmp_path_factory) -> Path:
    return trained_on_small_gum(small_gum, tmp_path_factory.mktemp("s2s"), "--epochs", "6", "--hidden", "48")


@pytest.fixture(scope="module")
def extended_model(small_gum, tmp_path_factory) -> Path:
    """A model with the extensions beyond the paper: bidirectional encoder, word pointer, character bi-LSTM."""
    return trained_on_small_gum(
        small_gum,
        tmp_path_factory.mktemp("s2s_ext"),
        "--epochs",
        "3",
        "--hidden",
        "32",
        "--bidirectional",
        "--word-pointer",
        "--chars",
    )


@pytest.fixture(scope="module")
def ensemble_model(trained_model: Path, extended_model: Path, tmp_path_factory) -> Path:
    """An ensemble of the paper's model and the extended one (two architectures, one output vocabulary)."""
    from lstmparse.core.ensembles import write_ensemble

    directory = tmp_path_factory.mktemp("s2s_ensemble") / "ensemble"
    write_ensemble([trained_model, extended_model], directory)
    return directory


@pytest.fixture(params=["paper", "extended", "ensemble"])
def any_model(request, trained_model: Path, extended_model: Path, ensemble_model: Path) -> Path:
    return {"paper": trained_model, "extended": extended_model, "ensemble": ensemble_model}[request.param]


@pytest.mark.slow
def test_the_extensions_are_stored_with_the_model(extended_model: Path, trained_model: Path) -> None:
    import lstmparse as api

    extended = api.load_constituency(extended_model).model.dims
    assert (extended.bidirectional, extended.word_pointer, extended.memory, extended.chars) == (True, True, 64, 100)
    paper = api.load_constituency(trained_model).model.dims
    assert (paper.bidirectional, paper.word_pointer, paper.memory, paper.chars) == (False, False, 48, 0)


def test_only_a_character_lstm_tells_unseen_words_apart(extended_model: Path, trained_model: Path) -> None:
    import lstmparse as api

    tokens = ["(S", "(NP", "XX", ")NP", "(VP", "XX", ")VP", ")S"]
    for model, spelled in ((extended_model, True), (trained_model, False)):
        parser = api.load_constituency(model).model
        assert parser.words.get("Quuxification") == parser.words.get("blorped") == 0
        first = parser.log_prob(["Quuxification", "runs"], tokens)
        second = parser.log_prob(["blorped", "runs"], tokens)
        assert (abs(first - second) > 1e-6) == spelled


def test_training_lowers_the_loss_and_keeps_the_best_dev_f1(trained_model: Path) -> None:
    import json

    record = json.loads((trained_model / "config.json").read_text())["training"]
    losses = [entry["loss_per_token"] for entry in record["epochs"]]
    assert losses[-1] < 0.8 * losses[0]
    assert record["best_dev_f1"] == max(entry["dev_f1"] for entry in record["epochs"])
    assert record["best_dev_f1"] > 0


@pytest.mark.slow
def test_training_resumes_from_the_best_model_and_refuses_other_options(trained_model: Path, small_gum, tmp_path):
    import json
    import shutil

    model = tmp_path / "model"
    shutil.copytree(trained_model, model)
    common = [*seq2seq_training(small_gum, model), "--hidden", "48", "--resume"]
    refused = lstmparse(*common, "--epochs", "8", "--dropout", "0.1")
    assert refused.returncode == 2
    assert "dropout" in refused.stderr
    resumed = lstmparse(*common, "--epochs", "8")
    assert resumed.returncode == 0, resumed.stderr
    before = json.loads((trained_model / "config.json").read_text())["training"]
    after = json.loads((model / "config.json").read_text())["training"]
    assert f"after epoch {before['best_epoch']}" in resumed.stderr
    assert "epoch 8:" in resumed.stderr
    assert f"epoch {before['best_epoch']}:" not in resumed.stderr
    assert after["best_dev_f1"] >= before["best_dev_f1"]
    slower = lstmparse(*common, "--epochs", "9", "--learning-rate", "0.0005")
    assert slower.returncode == 0, slower.stderr
    assert "learning rate 0.0005 (was 0.002)" in slower.stderr


def test_pretrained_vectors_are_stored_and_stay_fixed(small_gum, tmp_path: Path) -> None:
    import numpy as np

    from lstmparse.seq2seq.model import Seq2SeqParser
    from lstmparse.seq2seq.options import Seq2SeqDimensions, Seq2SeqOptions
    from lstmparse.seq2seq.training import train_seq2seq

    vectors = tmp_path / "vectors.txt"
    vectors.write_text("2 3\nthe 1 0 0\nof 0 1 0.5\n", encoding="utf-8")
    options = Seq2SeqOptions(
        train=str(small_gum[0]),
        model_dir=str(tmp_path / "m"),
        epochs=1,
        pretrained=str(vectors),
        dims=Seq2SeqDimensions(word=16, hidden=16, layers=1, attention=16, target=8),
    )
    with open(tmp_path / "log", "w") as log:
        train_seq2seq(options, log=log)
    loaded = Seq2SeqParser.load(str(tmp_path / "m"))
    assert loaded.dims.pretrained == 3
    table = loaded.pretrained_embeddings.as_array()
    np.testing.assert_allclose(table, [[0, 0, 0], [1, 0, 0], [0, 1, 0.5]])
    assert loaded.decode(["The", "of", "xyzzy"], beam=2).tokens.count(LEAF) == 3


def test_parse_ptb_input_keeps_its_tags_and_evaluates(trained_model: Path, small_gum, tmp_path: Path) -> None:
    _, dev = small_gum
    output = tmp_path / "out.ptb"
    result = lstmparse(
        "parse",
        "--model",
        str(trained_model),
        "--input-format",
        "ptb",
        "--input",
        str(dev),
        "--beam",
        "3",
        "--output",
        str(output),
    )
    assert result.returncode == 0, result.stderr
    assert "repaired" in result.stderr
    gold, parsed = read_ptb(dev), read_ptb(output)
    assert [t.words for t in parsed] == [t.words for t in gold]
    assert [t.tags for t in parsed] == [t.tags for t in gold]
    evaluated = lstmparse("evaluate", "--format", "ptb", "--json", str(dev), str(output))
    assert evaluated.returncode == 0, evaluated.stderr
    assert '"f1"' in evaluated.stdout


def test_parse_text_writes_one_tree_per_line_with_xx_tags(trained_model: Path) -> None:
    result = lstmparse(
        "parse",
        "--model",
        str(trained_model),
        "--input-format",
        "text",
        "--beam",
        "1",
        stdin="The cat sat .\nWhy ( really ) ?\n",
    )
    assert result.returncode == 0, result.stderr
    trees = parse_ptb_text(result.stdout)
    assert [t.words for t in trees] == [["The", "cat", "sat", "."], ["Why", "-LRB-", "really", "-RRB-", "?"]]
    assert {tag for t in trees for tag in t.tags} == {"XX"}
    assert len(result.stdout.splitlines()) == 2


def test_preterminals_carry_the_inputs_tags_else_the_taggers(trained_model: Path, tmp_path: Path) -> None:
    """Tags come from the input (CoNLL-U XPOS), else from --tagger's XPOS, else XX; the brackets stay the parser's."""
    pipeline = ROOT / "models" / "en_ewt_pipeline"
    text = "The cat sat .\nWhy ( really ) ?\n"
    plain = lstmparse("parse", "--model", str(trained_model), "--input-format", "text", "--beam", "1", stdin=text)
    tagged = lstmparse(
        "parse", "--model", str(trained_model), "--input-format", "text", "--beam", "1", "--tagger", str(pipeline),
        stdin=text,
    )  # fmt: skip
    assert tagged.returncode == 0, tagged.stderr
    trees, xx_trees = parse_ptb_text(tagged.stdout), parse_ptb_text(plain.stdout)
    assert [t.tags for t in trees] == [["DT", "NN", "VBD", "."], ["WRB", "-LRB-", "RB", "-RRB-", "."]]
    assert [brackets(t, t.tags) for t in trees] == [brackets(x, t.tags) for t, x in zip(trees, xx_trees, strict=True)]
    conllu = tmp_path / "tagged.conllu"
    conllu.write_text("1\tDogs\t_\tNOUN\tNNS\t_\t_\t_\t_\t_\n2\tbark\t_\tVERB\tVBP\t_\t_\t_\t_\t_\n\n")
    kept = lstmparse("parse", "--model", str(trained_model), "--input", str(conllu), "--tagger", str(pipeline))
    assert kept.returncode == 0, kept.stderr
    assert parse_ptb_text(kept.stdout)[0].tags == ["NNS", "VBP"]
    refusals = {
        ("--model", str(trained_model), "--tagger", str(ROOT / "models" / "en_ewt")): "not a tagger",
        ("--model", str(ROOT / "models" / "en_ewt"), "--tagger", str(ROOT / "models" / "en_ewt")): "neither a tagger",
    }
    for options, message in refusals.items():
        refused = lstmparse("parse", *options, "--input-format", "text", stdin="A dog .\n")
        assert refused.returncode == 2 and message in refused.stderr, refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("constrained", [False, True], ids=["unconstrained", "constrained"])
@pytest.mark.parametrize("beam", [1, 3])
def test_decoding_does_not_depend_on_the_batch(any_model: Path, small_gum, beam: int, constrained: bool) -> None:
    """Sentences of different lengths share batches (padded memory): each is decoded as if alone."""
    import lstmparse as api

    parser = api.load_constituency(any_model)
    sentences = [t.words for t in read_ptb(small_gum[1])][:14] + [["Hello"], ["a", "b"]]
    assert len({len(words) for words in sentences}) > 5
    alone = [parser.model.beam_search(words, beam, constrained) for words in sentences]
    together = parser.model.beam_search_batch(sentences, beam, constrained)
    assert [[tokens for tokens, _ in found] for found in together] == [[t for t, _ in f] for f in alone]
    for found, expected in zip(together, alone, strict=True):
        assert [score for _, score in found] == pytest.approx([score for _, score in expected], abs=1e-3)
    for batch_size in (1, 7, 500, None):  # the batches decode_many forms: one sentence, a few, all, the default
        decoded = parser.model.decode_many(sentences, beam, constrained, batch_size)
        assert [d.tokens for d in decoded] == [d.tokens for d in (f for f in map(_best, alone, sentences))]


@pytest.mark.parametrize("extended", [False, True], ids=["paper", "extended"])
def test_a_padded_batch_encodes_each_sentence_as_if_alone(
    trained_model: Path, extended_model: Path, small_gum, extended: bool
) -> None:
    """Sentences of different lengths share one encoder run: each gets the memory it gets alone."""
    import dynet as dy
    import numpy as np

    import lstmparse as api

    parser = api.load_constituency(extended_model if extended else trained_model).model
    sentences = [["Hello"], *[t.words for t in read_ptb(small_gum[1])][:6], ["a", "b"]]
    dy.renew_cg()
    parser.set_dropout(0.0)
    together = parser.encode(sentences)
    outputs = together.outputs.npvalue()
    finals = [state.npvalue() for state in together.final]
    pointable = together.pointable.npvalue() if together.pointable is not None else None
    for index, words in enumerate(sentences):
        alone = parser.encode([words])
        length = len(words)
        np.testing.assert_allclose(outputs[:, :length, index], alone.outputs.npvalue().reshape(-1, length), atol=1e-5)
        for final, expected in zip(finals, alone.final, strict=True):
            np.testing.assert_allclose(final[:, index], expected.npvalue(), atol=1e-5)
        if pointable is not None:  # the words, then the column past the last word
            expected = alone.pointable.npvalue()
            np.testing.assert_allclose(pointable[:, : length + 1, index], expected, atol=1e-5)


def _best(found: list, words: list[str]):
    from lstmparse.seq2seq.decoding import well_formed

    return well_formed(*found[0], len(words))


def test_decoding_batches_put_long_sentences_first_and_fewer_together() -> None:
    from lstmparse.seq2seq.decoding import BUDGET_WORDS, decoding_batches

    lengths = [5, 80, 12, 33, 5, 160, 7, 20] * 10
    batches = decoding_batches(lengths, beam=4, hypotheses=32)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    firsts = [lengths[batch[0]] for batch in batches]
    assert firsts == sorted(firsts, reverse=True)
    for batch in batches:
        longest = lengths[batch[0]]
        assert len(batch) <= max(1, 32 * BUDGET_WORDS**2 // max(longest, BUDGET_WORDS) ** 2 // 4)
    assert len(batches[-2]) == 8  # short sentences fill batches: 32 hypotheses of beam 4


def test_beam_scores_are_the_sequences_log_probabilities_best_first(any_model: Path, small_gum) -> None:
    import lstmparse as api

    parser = api.load_constituency(any_model)
    short = [t.words for t in read_ptb(small_gum[1]) if len(t) <= 8][:6]
    assert short
    for words in short:
        for constrained in (False, True):
            found = parser.model.beam_search(words, 4, constrained)
            scores = [score for _, score in found]
            assert scores == sorted(scores, reverse=True)
            for tokens, score in found:
                assert parser.model.log_prob(words, tokens) == pytest.approx(score, abs=1e-3)


def test_a_model_stored_at_half_precision_parses_alike(trained_model: Path, small_gum, tmp_path: Path) -> None:
    import shutil

    import lstmparse as api
    from lstmparse.core.model_io import store_half_precision

    halved = tmp_path / "half"
    shutil.copytree(trained_model, halved)
    store_half_precision(halved)
    size = sum(p.stat().st_size for p in halved.glob("params-*.npz"))
    assert size < 0.6 * sum(p.stat().st_size for p in trained_model.glob("params-*.npz"))
    sentences = [t.words for t in read_ptb(small_gum[1])][:10]
    full = [p.to_bracketed() for p in api.load_constituency(trained_model).parse(sentences, beam=3)]
    half = [p.to_bracketed() for p in api.load_constituency(halved).parse(sentences, beam=3)]
    assert sum(a == b for a, b in zip(full, half, strict=True)) >= 9


def test_a_dependency_model_refuses_bracketed_input() -> None:
    result = lstmparse("parse", "--input-format", "ptb", stdin="(ROOT (S (NN a)))\n")
    assert result.returncode == 2
    assert "constituency" in result.stderr


def test_random_token_lists_parse_into_trees_of_their_length(any_model: Path) -> None:
    import lstmparse as api

    parser = api.load_constituency(any_model)
    rng = random.Random(5)
    sentences = [
        [rng.choice(["a", "the", "of", "xyzzy", ",", "."]) for _ in range(rng.randint(1, 30))] for _ in range(10)
    ]
    for words, parsed in zip(sentences, parser.parse(sentences, beam=2, constrained=False), strict=True):
        assert parsed.tree.words == words
    for beam in (1, 3):
        constrained = list(parser.parse(sentences, beam=beam, constrained=True))
        assert [p.tree.words for p in constrained] == sentences
        assert not any(p.repaired for p in constrained)


def test_bracketed_input_with_an_error_writes_every_tree_before_it(trained_model: Path, tmp_path: Path) -> None:
    source = tmp_path / "in.ptb"
    source.write_text("(S (NP (DT the) (NN dog)) (VP (VBZ barks)))\n(S (NN a))\n(S (NN broken)\n")
    result = lstmparse(
        "parse", "--model", str(trained_model), "--input-format", "ptb", "--input", str(source), "--beam", "1"
    )
    assert result.returncode == 2
    error = result.stderr.strip().splitlines()[-1]
    assert error == f"lstmparse: {source}:3: unbalanced brackets: 1 left open at the end of the file"
    assert len(result.stdout.splitlines()) == 2


def test_load_gives_a_constituency_parser_that_reads_token_lists_and_sentences(trained_model: Path) -> None:
    import lstmparse as api

    parser = api.load(trained_model)
    assert isinstance(parser, api.ConstituencyParser)
    lists = [["The", "cat", "sat", "."], ["Why", "(", "really", ")", "?"]]
    from_lists = [p.to_bracketed() for p in parser.parse(lists, beam=2)]
    from_sentences = [p.to_bracketed() for p in parser.parse([Sentence.from_forms(f) for f in lists], beam=2)]
    assert from_lists == from_sentences
    assert [parse_ptb_text(tree)[0].words for tree in from_lists] == [
        ["The", "cat", "sat", "."],
        ["Why", "-LRB-", "really", "-RRB-", "?"],
    ]
    with pytest.raises(InputError, match="non-empty words"):
        list(parser.parse([[]]))


def test_a_string_is_refused_as_the_dependency_api_refuses_it(trained_model: Path) -> None:
    """ "Dogs bark." would be split on spaces into "Dogs" and "bark." (issue 33): refused, as parse([...]) expects."""
    import lstmparse as api

    parser = api.load(trained_model)
    with pytest.raises(TypeError, match="iterable of sentences"):
        list(parser.parse("Dogs bark."))
    with pytest.raises(TypeError, match="not a str"):
        list(parser.parse(["Dogs bark ."]))
    with pytest.raises(InputError, match="non-empty words"):
        list(parser.parse([["Dogs", " "]]))


def test_kbest_trees_are_ranked_by_score_and_the_first_is_the_parse(any_model: Path, small_gum) -> None:
    import lstmparse as api

    parser = api.load(any_model)
    sentences = [t.words for t in read_ptb(small_gum[1])][:6]
    best = [p.to_bracketed() for p in parser.parse(sentences, beam=4)]
    kbest = list(parser.parse_kbest(sentences, beam=4, k=3))
    assert [candidates[0].to_bracketed() for candidates in kbest] == best
    for words, candidates in zip(sentences, kbest, strict=True):
        assert [c.rank for c in candidates] == list(range(1, len(candidates) + 1))
        assert [c.log_prob for c in candidates] == sorted((c.log_prob for c in candidates), reverse=True)
        assert all(c.tree.words == words for c in candidates)
    with pytest.raises(ValueError, match="k = 5"):
        list(parser.parse_kbest(sentences, beam=4, k=5))


def test_parse_kbest_writes_a_scored_block_per_sentence(trained_model: Path) -> None:
    result = lstmparse(
        "parse", "--model", str(trained_model), "--input-format", "text", "--beam", "3", "--kbest", "2",
        stdin="The cat sat .\nA dog .\n",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    blocks = result.stdout.split("\n\n")
    assert blocks[-1] == "" and len(blocks) == 3
    for block in blocks[:2]:
        lines = [line.split("\t") for line in block.splitlines()]
        assert [rank for rank, _, _ in lines] == ["1", "2"]
        assert float(lines[0][1]) >= float(lines[1][1])
        assert all(parse_ptb_text(tree) for _, _, tree in lines)
    refused = lstmparse("parse", "--model", str(trained_model), "--beam", "2", "--kbest", "3", stdin="a\n")
    assert refused.returncode == 2 and "--kbest 3" in refused.stderr


@pytest.mark.slow
def test_kept_epochs_average_into_a_model_that_parses(small_gum, tmp_path: Path) -> None:
    model = trained_on_small_gum(small_gum, tmp_path, "--epochs", "2", "--hidden", "24", "--keep-epochs")
    epochs = [model / "epochs" / "1", model / "epochs" / "2"]
    assert all((epoch / "config.json").is_file() for epoch in epochs)
    averaged = tmp_path / "averaged"
    result = lstmparse("average", *map(str, epochs), "--output", str(averaged))
    assert result.returncode == 0, result.stderr
    parsed = lstmparse("parse", "--model", str(averaged), "--input-format", "text", "--beam", "2", stdin="A dog .\n")
    assert parsed.returncode == 0, parsed.stderr
    assert parse_ptb_text(parsed.stdout)[0].words == ["A", "dog", "."]
    again = lstmparse("average", *map(str, epochs), "--output", str(averaged))
    assert again.returncode == 2 and "--overwrite" in again.stderr


def test_an_ensemble_of_a_model_with_itself_decodes_as_the_model(trained_model: Path, small_gum) -> None:
    """The mean of two equal distributions is that distribution: the same sequences and scores."""
    import lstmparse as api
    from lstmparse.seq2seq.ensemble import Seq2SeqEnsemble

    model = api.load_constituency(trained_model).model
    doubled = Seq2SeqEnsemble([model, model])
    sentences = [t.words for t in read_ptb(small_gum[1])][:8]
    for constrained in (False, True):
        alone = model.beam_search_batch(sentences, 3, constrained)
        together = doubled.beam_search_batch(sentences, 3, constrained)
        assert [[t for t, _ in found] for found in together] == [[t for t, _ in found] for found in alone]
        for found, expected in zip(together, alone, strict=True):
            assert [score for _, score in found] == pytest.approx([score for _, score in expected], abs=1e-4)


def test_an_ensemble_parses_from_its_manifest_and_is_not_either_member(
    trained_model: Path, extended_model: Path, ensemble_model: Path, small_gum
) -> None:
    import json

    import lstmparse as api

    members = json.loads((ensemble_model / "config.json").read_text())["members"]
    assert all(not Path(member).is_absolute() for member in members)  # the directories move together
    ensemble = api.load(ensemble_model)
    assert isinstance(ensemble, api.ConstituencyParser)
    sentences = [t.words for t in read_ptb(small_gum[1])][:10]
    scores = {
        name: [trees[0].log_prob for trees in api.load(path).parse_kbest(sentences, beam=2)]
        for name, path in (("paper", trained_model), ("extended", extended_model), ("ensemble", ensemble_model))
    }
    assert scores["ensemble"] != scores["paper"] and scores["ensemble"] != scores["extended"]
    result = lstmparse("parse", "--model", str(ensemble_model), "--input-format", "text", stdin="The cat sat .\n")
    assert result.returncode == 0, result.stderr
    assert parse_ptb_text(result.stdout)[0].words == ["The", "cat", "sat", "."]


def test_ensemble_refuses_models_that_cannot_form_one(trained_model: Path, tmp_path: Path) -> None:
    import json
    import shutil

    other_tokens = tmp_path / "other_tokens"
    shutil.copytree(trained_model, other_tokens)
    vocab_file = other_tokens / json.loads((other_tokens / "config.json").read_text())["vocab_file"]
    vocab = json.loads(vocab_file.read_text())
    vocab["targets"]["strings"] = vocab["targets"]["strings"][::-1]  # as if trained on another treebank
    vocab_file.write_text(json.dumps(vocab))
    refusals = {
        (str(trained_model),): "at least two",
        (str(trained_model), str(other_tokens)): "outputs differ",
        (str(trained_model), str(ROOT / "models" / "en_ewt")): "seq2seq",
    }
    for models, message in refusals.items():
        result = lstmparse("ensemble", *models, "--output", str(tmp_path / "ensemble"))
        assert result.returncode == 2 and message in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "ensemble" / "config.json").exists()
    made = lstmparse("ensemble", str(trained_model), str(trained_model), "--output", str(tmp_path / "ensemble"))
    assert made.returncode == 0, made.stderr
    again = lstmparse("ensemble", str(trained_model), str(trained_model), "--output", str(tmp_path / "ensemble"))
    assert again.returncode == 2 and "--overwrite" in again.stderr
    inside = tmp_path / "inside"
    shutil.copytree(trained_model, inside / "member")  # a member kept in the ensemble's own directory
    made = lstmparse("ensemble", str(trained_model), str(inside / "member"), "--output", str(inside))
    assert made.returncode == 0, made.stderr
    assert json.loads((inside / "config.json").read_text())["members"][1] == "member"
    moved = tmp_path / "deeper" / "moved"
    shutil.copytree(tmp_path / "ensemble", moved)  # without its members beside it
    broken = lstmparse("parse", "--model", str(moved), "--input-format", "text", stdin="A dog .\n")
    assert broken.returncode == 2 and len(broken.stderr.strip().splitlines()) == 1, broken.stderr
