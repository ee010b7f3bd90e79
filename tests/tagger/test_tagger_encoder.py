"""A tagger that reads the encoder's word vectors in context: the same tags alone, in a batch and once saved."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from lstmparse.io.formats import read_sentences
from tests.conftest import first_sentences


@pytest.fixture(scope="module")
def encoder_tagger(hungarian, tmp_path_factory):
    from lstmparse.tagger.api import POSTagger
    from lstmparse.tagger.options import TaggerDimensions, TaggerOptions
    from lstmparse.tagger.training import train_tagger

    folder = tmp_path_factory.mktemp("encoder-tagger")
    model_dir, dev = folder / "m", folder / "dev.conllu"
    dev.write_text(first_sentences(hungarian["dev"], 60), encoding="utf-8")
    options = TaggerOptions(
        train=str(hungarian["train"]),
        dev=str(dev),
        model_dir=str(model_dir),
        epochs=2,
        dims=TaggerDimensions(hidden=40, word=16, chars=16, encoder="e5:6-7"),
    )
    log = io.StringIO()
    train_tagger(options, log=log)
    return POSTagger.load(model_dir), model_dir, log.getvalue()


@pytest.fixture(scope="module")
def dev(hungarian) -> list:
    return list(read_sentences(str(hungarian["dev"])))[:60]


def upos_of(tagged) -> list[list[str]]:
    return [[t.upos for t in s.tokens] for s in tagged]


def test_the_model_names_its_encoder_and_training_encodes_each_sentence_once(encoder_tagger):
    _, model_dir, log = encoder_tagger
    assert json.loads((model_dir / "config.json").read_text())["dims"]["encoder"] == "e5:6-7"
    assert log.count("encoder e5:6-7:") == 1


def test_tags_do_not_depend_on_the_batch_and_survive_saving(encoder_tagger, dev):
    from lstmparse.tagger.api import POSTagger

    tagger, model_dir, _ = encoder_tagger
    together = upos_of(tagger.tag(dev, retag=True))
    assert upos_of(s for d in dev for s in tagger.tag([d], retag=True)) == together
    assert upos_of(POSTagger.load(model_dir).tag(dev[::-1], retag=True))[::-1] == together


def test_the_encoders_vectors_are_read(encoder_tagger, dev):
    """Zeroed vectors tag otherwise: the feature is part of the network's input."""
    tagger, _, _ = encoder_tagger
    vectors = tagger.model.context_vectors
    together = upos_of(tagger.tag(dev, retag=True))
    vectors.prepare([s.forms for s in dev])
    for key in list(vectors.kept):
        vectors.kept[key] = np.zeros_like(vectors.kept[key])
    try:
        assert upos_of(tagger.tag(dev, retag=True)) != together
    finally:
        vectors.kept.clear()
