"""Models loaded to parse run DyNet's fused LSTM operations (layers/lstms.py): the same LSTM as in training."""

from __future__ import annotations

import dynet as dy
import numpy as np
import pytest
from conftest import EWT, ROOT, first_sentences

import lstmparse
from lstmparse.core.model_io import birnn_parameters
from lstmparse.core.vocab import Vocabulary
from lstmparse.layers.chars import CharacterLSTM
from lstmparse.layers.lstms import vanilla_lstm
from lstmparse.pipeline.api import Pipeline
from lstmparse.seq2seq.model import Seq2SeqParser

PIPELINE = ROOT / "models" / "en_ewt_pipeline"
SEQ2SEQ = ROOT / "models" / "en_gum_seq2seq"
FUSED, UNFUSED = dy.CompactVanillaLSTMBuilder, dy.VanillaLSTMBuilder


def _same_parameters(named_from: dict, named_to: dict, seed: int = 0) -> None:
    """Random values (biases too, which start at 0) set alike in two models' named parameters (same names, shapes)."""
    assert named_from.keys() == named_to.keys()
    rng = np.random.default_rng(seed)
    for name, parameter in named_from.items():
        values = rng.normal(scale=0.5, size=parameter.as_array().shape)
        for target in (parameter, named_to[name]):
            if isinstance(target, dy.LookupParameters):
                target.init_from_array(values)
            else:
                target.set_value(values)


@pytest.mark.parametrize("layers", [1, 2])
@pytest.mark.parametrize("batch", [1, 3, 16])
def test_the_fused_builder_computes_the_training_builders_lstm(layers, batch):
    """Outputs of both builders agree to float rounding over a 12-step bi-LSTM run, for batches and deep stacks.

    The forget gate's bias (1) is part of both; a fused cell without it differs by far more than the tolerance.
    """
    rng = np.random.default_rng(layers * 100 + batch)
    runs = []
    for fused in (False, True):
        model = dy.ParameterCollection()
        birnn = dy.BiRNNBuilder(layers, 6, 8, model, vanilla_lstm(fused))
        runs.append((model, birnn))
    _same_parameters(birnn_parameters("b", runs[0][1]), birnn_parameters("b", runs[1][1]), seed=layers)
    inputs = rng.normal(size=(12, 6, batch))
    outputs = []
    for _, birnn in runs:
        dy.renew_cg()
        # (DyNet reads a batch of one as a plain vector)
        vectors = [dy.inputTensor(step, batched=True) if batch > 1 else dy.inputVector(step[:, 0]) for step in inputs]
        outputs.append(np.stack([vector.npvalue().reshape(-1, batch) for vector in birnn.transduce(vectors)]))
    assert np.allclose(outputs[0], outputs[1], rtol=1e-5, atol=1e-6)
    assert np.abs(outputs[0]).max() > 0.05  # not a trivially small output


def test_the_character_lstm_is_the_same_fused_or_not():
    vocab = Vocabulary(list("abcdefghij"))
    models = [dy.ParameterCollection(), dy.ParameterCollection()]  # kept: DyNet frees a collection's parameters with it
    encoders = [CharacterLSTM(model, vocab, 8, 10, fused) for model, fused in zip(models, (False, True), strict=True)]
    _same_parameters(encoders[0].named_parameters("c"), encoders[1].named_parameters("c"))
    forms = ["abc", "j", "hhhhhhhhh", "abc", "jade"]
    values = []
    for encoder in encoders:
        dy.renew_cg()
        values.append(encoder.encode(forms).npvalue())
    assert np.allclose(values[0], values[1], rtol=1e-5, atol=1e-6) and np.abs(values[0]).max() > 0.01


def _builder_classes(birnn) -> set[type]:
    return {type(builder) for layer in birnn.builder_layers for builder in layer}


def test_models_loaded_to_parse_run_the_fused_builder_and_models_to_train_the_training_one():
    pipeline = Pipeline.load(PIPELINE)
    assert _builder_classes(pipeline.tokenizer.labeller.birnn) == {FUSED}
    tagger = pipeline.tagger.model
    assert _builder_classes(tagger.birnn) == {FUSED} and type(tagger.char_lstm.forward) is FUSED
    assert type(pipeline.parser.model.tokens.char_lstm.backward) is FUSED
    loaded = Seq2SeqParser.load(str(SEQ2SEQ))
    assert type(loaded.encoder) is FUSED and type(loaded.forward_encoder) is FUSED
    resumed = Seq2SeqParser.load(str(SEQ2SEQ), fused=False)  # to train further (train --resume)
    assert type(resumed.encoder) is UNFUSED and type(resumed.char_lstm.forward) is UNFUSED


def test_the_default_pipeline_gives_the_same_output_with_either_builder(monkeypatch):
    """The same tokens, tags, lemmas and trees from raw text, fused (as loaded) and with the training builder."""
    text = "\n\n".join(
        line[len("# text = ") :]
        for line in first_sentences(EWT / "dev.conllu", 120).splitlines()
        if line.startswith("# text = ")
    )
    fused = [sentence.to_conllu() for sentence in lstmparse.load(PIPELINE).parse_text(text)]
    monkeypatch.setattr(dy, "CompactVanillaLSTMBuilder", dy.VanillaLSTMBuilder)
    unfused_pipeline = lstmparse.load(PIPELINE)
    assert type(unfused_pipeline.tokenizer.labeller.birnn.builder_layers[0][0]) is UNFUSED
    unfused = [sentence.to_conllu() for sentence in unfused_pipeline.parse_text(text)]
    assert len(fused) > 100 and fused == unfused
