"""Model directories: save/load fidelity and atomic replacement."""

from __future__ import annotations

import numpy as np
import pytest

from lstmparse.core import model_io
from lstmparse.errors import ModelError
from lstmparse.io.formats import read_treebank
from lstmparse.stacklstm.model import StackLSTMParser
from lstmparse.stacklstm.systems import make_system
from lstmparse.stacklstm.training import build_vocabularies


@pytest.fixture()
def parser(small_treebank):
    sentences = read_treebank(str(small_treebank["train"]))
    system = make_system("arc-standard", {d for s in sentences for d in s.deprels})
    return StackLSTMParser(system, ["words", "pos", "feats", "chars"], build_vocabularies(sentences)), sentences


def test_loaded_model_parses_identically(tmp_path, parser):
    model, sentences = parser
    model.save(str(tmp_path / "m"), training={"note": "x"})
    loaded = StackLSTMParser.load(str(tmp_path / "m"))
    assert loaded.training_record == {"note": "x"}
    for sentence in sentences[:20]:
        assert loaded.parse(sentence.tokens) == model.parse(sentence.tokens)


def test_interrupted_save_keeps_the_previous_model(tmp_path, parser, monkeypatch):
    model, sentences = parser
    directory = tmp_path / "m"
    model.save(str(directory))
    before = sorted(p.name for p in directory.iterdir())
    expected = model.parse(sentences[0].tokens)

    def fail(*args, **kwargs):
        raise KeyboardInterrupt

    for p in model.model.parameters_list():
        p.set_value(np.zeros(p.shape()))
    monkeypatch.setattr(model_io.np, "savez_compressed", fail)
    with pytest.raises(KeyboardInterrupt):
        model.save(str(directory))
    assert sorted(p.name for p in directory.iterdir()) == before
    assert StackLSTMParser.load(str(directory)).parse(sentences[0].tokens) == expected


def test_missing_or_foreign_directories_are_clear_errors(tmp_path):
    with pytest.raises(ModelError, match="not a model directory"):
        StackLSTMParser.load(str(tmp_path))
    (tmp_path / "config.json").write_text('{"format_version": 1, "vocab_file": "v", "params_file": "p"}')
    with pytest.raises(ModelError, match="unreadable model"):
        StackLSTMParser.load(str(tmp_path))


def test_pretrained_vectors_are_stored_and_stay_fixed(tmp_path, small_treebank):
    from lstmparse.stacklstm.options import StackLSTMOptions
    from lstmparse.stacklstm.training import train

    vectors = tmp_path / "vectors.txt"
    vectors.write_text("3 4\nthe 1 0 0 0\nof 0 1 0 0\nand 0 0 1 0.5\n", encoding="utf-8")
    options = StackLSTMOptions(
        train=str(small_treebank["dev"]),
        model_dir=str(tmp_path / "m"),
        features=["words", "pretrained", "feats"],
        epochs=1,
        pretrained=str(vectors),
    )
    with open(tmp_path / "log", "w") as log:
        train(options, log=log)
    loaded = StackLSTMParser.load(str(tmp_path / "m"))
    table = loaded.tokens.pretrained_embeddings.as_array()
    assert loaded.vocabs["pretrained"].get("of") == 2
    np.testing.assert_allclose(table[[0, 2, 3]], [[0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.5]])


WEIGHT_DECAY_SCRIPT = """
from lstmparse.core import backend
backend.configure(seed=1, weight_decay=0.01)
import dynet as dy, numpy as np
from lstmparse.stacklstm.model import StackLSTMParser
from lstmparse.stacklstm.systems import make_system
from lstmparse.io.formats import Sentence
from lstmparse.stacklstm.training import build_vocabularies
from lstmparse.stacklstm.examples import Example
from lstmparse.stacklstm.oracles import make_oracle
import random
sentence = Sentence.from_forms(["a", "b", "c"])
vocabs = build_vocabularies([sentence])
system = make_system("arc-standard", ["dep"], "root")
parser = StackLSTMParser(system, ["words"], vocabs)
trainer = dy.SimpleSGDTrainer(parser.model)
actions = system.oracle_sequence([2, 0, 2], ["dep", "root", "dep"])
example = Example(sentence, system.gold_tree([2, 0, 2], ["dep", "root", "dep"]), actions)
for _ in range(30):
    dy.renew_cg()
    parser.oracle_loss(example, make_oracle(system, "static"), random.Random(1)).backward()
    trainer.update()
dy.renew_cg()
state = parser.state.expr().npvalue()
parser.save(DIRECTORY)
loaded = StackLSTMParser.load(DIRECTORY)
dy.renew_cg()
assert np.allclose(loaded.state.expr().npvalue(), state, atol=1e-6), "weight decay lost in the saved model"
print("ok")
"""


def test_saved_model_keeps_the_weight_decay_scale(tmp_path):
    """DyNet keeps L2 weight decay as a scale outside as_array(); a saved model must include it."""
    import subprocess
    import sys

    script = WEIGHT_DECAY_SCRIPT.replace("DIRECTORY", repr(str(tmp_path / "model")))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def _as_revision_1(directory) -> None:
    """Make a saved model look as models saved before revision 2 did (no ``revision`` entry)."""
    import json

    path = directory / model_io.CONFIG
    config = json.loads(path.read_text(encoding="utf-8"))
    del config["revision"]
    path.write_text(json.dumps(config), encoding="utf-8")


@pytest.mark.parametrize(
    ("system", "features", "refused"),
    [
        ("arc-hybrid", ["words"], "arc-hybrid arcs"),
        ("arc-standard", ["words", "feats"], "FEATS"),
        ("arc-swap", ["words", "pos"], None),  # computes what it computed before: still loads
    ],
)
def test_models_of_revision_1_load_only_where_the_model_is_unchanged(
    tmp_path, small_treebank, system, features, refused
):
    sentences = read_treebank(str(small_treebank["train"]))
    model = StackLSTMParser(
        make_system(system, {d for s in sentences for d in s.deprels}), features, build_vocabularies(sentences)
    )
    model.save(str(tmp_path / "m"))
    _as_revision_1(tmp_path / "m")
    if refused is None:
        assert StackLSTMParser.load(str(tmp_path / "m")).parse(sentences[0].tokens) == model.parse(sentences[0].tokens)
        return
    with pytest.raises(ModelError, match=f"{refused}.*train --resume"):
        StackLSTMParser.load(str(tmp_path / "m"))


def test_resuming_a_revision_1_model_trains_it_under_revision_2(tmp_path, small_treebank):
    import io

    from lstmparse.stacklstm.options import StackLSTMOptions
    from lstmparse.stacklstm.training import train

    options = StackLSTMOptions(
        train=str(small_treebank["train"]),
        dev=str(small_treebank["dev"]),
        model_dir=str(tmp_path / "m"),
        features=["words", "pos"],
        system="arc-hybrid",
        epochs=1,
    )
    train(options)
    _as_revision_1(tmp_path / "m")
    (tmp_path / "m" / "checkpoint" / model_io.CONFIG).unlink()  # resume from the (old) best model
    log = io.StringIO()
    record = train(StackLSTMOptions(**{**options.__dict__, "epochs": 2, "resume": True}), log=log)
    assert "revision-1 model" in log.getvalue()
    assert record["revision_1_epochs"] == 1 and record["best_epoch"] == 2  # old dev scores do not compete
    assert StackLSTMParser.load(str(tmp_path / "m")).training_record["revision_1_epochs"] == 1


def test_averaging_checkpoints_means_every_parameter_and_refuses_other_models(tmp_path, parser, small_treebank):
    model, sentences = parser
    first, second = tmp_path / "1", tmp_path / "2"
    model.save(str(first))
    shifted = {name: value + 1.0 for name, value in model_io.load_directory(first)[2].items()}
    config, vocab, _ = model_io.load_directory(first)
    stored = {k: v for k, v in config.items() if k not in ("format_version", "vocab_file", "params_file")}
    model_io.save_directory(second, stored, vocab, shifted)
    model_io.average_directories([first, second], tmp_path / "mean")
    _, _, original = model_io.load_directory(first)
    mean_config, _, mean = model_io.load_directory(tmp_path / "mean")
    for name, value in original.items():
        np.testing.assert_allclose(mean[name], value + 0.5, rtol=1e-6, atol=1e-6)
    assert mean_config["training"]["averaged_from"] == [str(first), str(second)]
    StackLSTMParser.load(str(tmp_path / "mean"))  # a model like any other
    other_sentences = read_treebank(str(small_treebank["train"]))[:5]
    system = make_system("arc-standard", {d for s in other_sentences for d in s.deprels})
    StackLSTMParser(system, ["words"], build_vocabularies(other_sentences)).save(str(tmp_path / "other"))
    with pytest.raises(ModelError, match="not a checkpoint of the same model"):
        model_io.average_directories([first, tmp_path / "other"], tmp_path / "bad")
    with pytest.raises(ModelError, match="at least two"):
        model_io.average_directories([first], tmp_path / "bad")


@pytest.mark.parametrize("name", ["en_ewt_pipeline_ensemble", "en_gum_seq2seq_ensemble"])
def test_a_model_directorys_record_is_read_once_on_its_way_in(monkeypatch, name):
    """One way in: ``lstmparse.load`` reads each config.json once (the record the registry, the pipeline
    assembler, the ensemble and constituency loaders hand on; a leaf's own load reads its part's)."""
    import pathlib

    import lstmparse

    reads: dict[str, int] = {}
    original = pathlib.Path.read_text

    def counted(self, *args, **kwargs):
        if self.name == model_io.CONFIG:
            reads[str(self.resolve())] = reads.get(str(self.resolve()), 0) + 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "read_text", counted)
    lstmparse.load(name)
    assert len(reads) >= 3  # the manifest and its members (a pipeline: its parts too)
    assert {path: count for path, count in reads.items() if count > 1} == {}
