"""Words of several syllables marked in running text, and the held-out marks a tokenizer trains on."""

from __future__ import annotations

import io

import numpy as np
import pytest
from conftest import DATA, first_sentences

from lstmparse.tokenizer import lexicon as lexicon_module
from lstmparse.tokenizer.lexicon import MARKS, Lexicon, held_out_marks


def marked(marks: np.ndarray) -> str:
    """The marks as a string of their names' initials (n, f, r), one per character."""
    return "".join(MARKS[m][0] for m in marks)


def test_the_longest_known_word_is_marked_in_any_case_but_not_across_punctuation_or_a_run_of_spaces():
    words = Lexicon.from_forms(["thành phố", "Hà Nội", "thành phố Hà Nội", "84 . 4"])
    assert words.to_json() == ["hà nội", "thành phố", "thành phố hà nội"]  # `84 . 4`: `.` is no syllable
    text = "Thành phố hà nội, thành  phố"
    assert marked(words.mark(text)) == "f" * 5 + "r" * 11 + "n" * 12
    text = "nội thành. Phố Hà Nội"
    assert marked(words.mark(text)) == "n" * 15 + "ff" + "r" * 4


def test_training_text_is_marked_with_the_words_of_the_other_folds_only(monkeypatch):
    """A word known from one fold alone is not marked there (it would be known in no new text) but is elsewhere;
    a word of every fold is marked everywhere, as the whole lexicon would."""
    monkeypatch.setattr(lexicon_module, "BLOCK", 10)
    blocks = ["ab cd x y " if i == 0 else "ab cd q r " for i in range(lexicon_module.FOLDS)] + ["x y ab cd "]
    text = "".join(blocks)
    spans = []
    for b, block in enumerate(blocks):
        for word in ("ab cd", "x y"):
            if word in block:
                start = b * 10 + block.index(word)
                spans.append((start, start + len(word)))
    (held_out,) = held_out_marks([text], [spans])
    whole = Lexicon.from_forms(text[s:e] for s, e in spans).mark(text)
    assert marked(held_out[:10]) == "ffrrrnnnnn"  # `x y` is only in this block's fold
    assert marked(whole[:10]) == "ffrrrnfrrn"
    assert marked(held_out[50:]) == "nnnnffrrrn"  # the sixth block is fold 0 again: `x y` is its own
    assert (held_out[10:50] == whole[10:50]).all()


@pytest.fixture(scope="module")
def vietnamese_tokenizer(tmp_path_factory):
    """A tokenizer trained for one epoch on 150 VTB sentences."""
    from lstmparse.tokenizer.options import TokenizerOptions
    from lstmparse.tokenizer.training import train_tokenizer

    folder = tmp_path_factory.mktemp("vi")
    train = folder / "train.conllu"
    train.write_text(first_sentences(DATA / "ud" / "vi_vtb" / "train.conllu", 150), encoding="utf-8")
    options = TokenizerOptions(train=str(train), model_dir=str(folder / "m"), epochs=1)
    train_tokenizer(options, log=io.StringIO())
    return train, folder / "m"


def test_a_tokenizer_of_a_treebank_with_spaces_in_tokens_reads_its_lexicon_and_keeps_it(vietnamese_tokenizer):
    from lstmparse.tokenizer.api import Tokenizer

    _, model_dir = vietnamese_tokenizer
    labeller = Tokenizer.load(model_dir).labeller
    assert labeller.dims.lexicon and "lexicon" in labeller.named_parameters() and len(labeller.lexicon) > 50
    word = labeller.lexicon.to_json()[0]
    text = f"Và {word} ."
    codes = labeller.encode(text)
    assert codes.shape[0] == 4 and (codes[-1] == labeller.lexicon.mark(text)).all()
    assert MARKS[codes[-1][text.index(" ", 3)]] == "rest"  # the word's inner space


def test_the_tokenizer_trains_on_held_out_marks_not_on_its_whole_lexicon(vietnamese_tokenizer):
    from lstmparse.io.formats import read_sentences
    from lstmparse.tokenizer.api import Tokenizer
    from lstmparse.tokenizer.data import paragraphs
    from lstmparse.tokenizer.options import TokenizerOptions
    from lstmparse.tokenizer.training import TokenizerTraining, token_spans

    train_path, model_dir = vietnamese_tokenizer
    labeller = Tokenizer.load(model_dir).labeller
    train = list(paragraphs(list(read_sentences(str(train_path)))))
    training = TokenizerTraining(labeller, train, [], TokenizerOptions(train=str(train_path), model_dir=str(model_dir)))
    expected = held_out_marks([p.text for p in train], [token_spans(p) for p in train])
    assert all((codes[-1] == marks).all() for codes, marks in zip(training.codes, expected, strict=True))
    whole = sum(int((labeller.lexicon.mark(p.text) > 0).sum()) for p in train)
    assert sum(int((marks > 0).sum()) for marks in expected) < 0.9 * whole
