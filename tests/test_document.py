"""The document API (words with their heads, children, offsets and multi-word tokens; JSON) and the API's checks."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import EWT, ROOT

import lstmparse
from lstmparse.io.document import Document, sentences_text
from lstmparse.io.formats import read_sentences


@pytest.fixture(scope="module")
def nlp():
    return lstmparse.load()


@pytest.fixture(scope="module")
def ewt_dev():
    return list(read_sentences(str(EWT / "dev.conllu")))


def test_words_see_their_tree_and_columns(ewt_dev):
    sentence = next(s for s in ewt_dev if s.sent_id.endswith("0001") and "sheikh" in s.text)
    words = list(sentence)
    assert [w.id for w in words] == list(range(1, len(sentence) + 1))
    assert sentence[1].form == "sheikh" and sentence[1].upos == "NOUN" and sentence[1].deprel == "nsubj:pass"
    root = next(w for w in sentence if w.head is None)
    assert root.head_id == 0 and root.deprel == "root" and root.form == "attacked"
    for word in sentence:  # children and heads are two views of one tree
        assert all(child.head.id == word.id for child in word.children)
        assert word.head is None or word.id in [child.id for child in word.head.children]
    assert sum(len(w.children) for w in sentence) == len(sentence) - 1
    assert sentence[2].feats is None and sentence[0].feats == "Definite=Def|PronType=Art"  # None where CoNLL-U has _


def test_multiword_tokens_and_text_come_from_the_lines(ewt_dev):
    sentence = next(s for s in ewt_dev if any(w.token for w in s))
    split = [w for w in sentence if w.token]
    token = split[0].token
    assert len(token.word_ids) >= 2 and [w.id for w in sentence if w.token == token] == list(token.word_ids)
    assert (
        token.form
        == sentence.lines[next(i for i, line in enumerate(sentence.lines) if line.startswith(token.id))].split("\t")[1]
    )
    without_text = sentence.with_comments([])
    without_text.lines = [line if not line.startswith("# text") else "# note = text removed" for line in sentence.lines]
    assert "text" not in without_text.metadata
    assert without_text.text == sentence.text  # rebuilt from forms, multi-word tokens and SpaceAfter=No


def test_json_lines_follow_the_documented_schema(ewt_dev):
    lines = sentences_text(ewt_dev[:20], "json").splitlines()
    assert len(lines) == 20
    for line, sentence in zip(lines, ewt_dev[:20], strict=True):
        record = json.loads(line)
        assert set(record) == {"sent_id", "text", "comments", "words", "multiword_tokens"}
        assert record["sent_id"] == sentence.sent_id and record["text"] == sentence.text
        assert [w["form"] for w in record["words"]] == sentence.forms
        assert [w["head"] for w in record["words"]] == sentence.heads
        assert set(record["words"][0]) == {
            "id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "misc", "confidence", "start_char",
            "end_char",
        }  # fmt: skip
        assert all(w["lemma"] != "_" for w in record["words"])  # blanks are null


def test_a_pipeline_called_on_text_gives_words_with_offsets_into_that_text(nlp):
    text = "Dogs don't bark.\r\nThe U.S. Federal Reserve raised rates.\n\n  Cats\tsleep!"
    doc = nlp(text)
    assert isinstance(doc, Document) and doc.text == text and len(doc) >= 3
    for sentence in doc:
        for word in sentence:
            surface = text[word.start_char : word.end_char]
            assert surface == (word.token.form if word.token else word.form)
    dont = next(w for w in doc.words if w.token)
    assert dont.token.form == "don't" and text[dont.token.start_char : dont.token.end_char] == "don't"
    assert all(s.heads.count(0) == 1 for s in doc)
    assert json.loads(doc.to_json())["sentences"][0]["text"] == "Dogs don't bark."
    assert doc.to_conllu() == "".join(s.to_conllu() for s in doc)


def test_the_api_refuses_what_is_not_text_or_words(nlp):
    """Issue 33, defect 6: parse_text(None) raised AttributeError; a word that is only a space was parsed."""
    with pytest.raises(TypeError, match="raw text is a str"):
        nlp.parse_text(None)
    with pytest.raises(TypeError, match="raw text is a str"):
        nlp(b"bytes")
    for blank in (" ", "\u00a0", ""):
        with pytest.raises(ValueError, match="not empty or white space"):
            list(nlp.parse([["Dogs", blank, "bark"]]))


CONFIGURE_LATE = """
import lstmparse
lstmparse.configure(seed=3)
lstmparse.load("en_ewt_wp")
lstmparse.configure(seed=3)  # the same settings again: nothing to refuse
try:
    lstmparse.configure(seed=4)
except lstmparse.errors.ConfigurationError as error:
    print("refused:", error)
"""


def test_configure_after_dynet_is_loaded_raises():
    """Issue 33, defect 6: other settings after DyNet was imported only printed a warning."""
    result = subprocess.run([sys.executable, "-c", CONFIGURE_LATE], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("refused: DyNet was already imported with other settings")
