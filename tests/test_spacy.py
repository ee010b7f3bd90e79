"""lstmparse in spaCy: the same trees as lstmparse parse through both entries, offsets kept, the factory by entry
point, displaCy and to_json."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import EWT, blank_tags, first_sentences, run_cli

spacy = pytest.importorskip("spacy")

from lstmparse.io.formats import read_sentences  # noqa: E402
from lstmparse.tokenizer.data import paragraphs  # noqa: E402


@pytest.fixture(scope="module")
def nlp():
    import lstmparse.spacy

    return lstmparse.spacy.load("en_ewt_pipeline")


def words_of_conllu(text: str, tmp_path) -> list[list[tuple[str, str, int]]]:
    """Each sentence's syntactic words as (form, deprel, head) from CoNLL-U text."""
    path = tmp_path / "parsed.conllu"
    path.write_text(text, encoding="utf-8")
    return [[(t.form, t.deprel, t.head) for t in sentence.tokens] for sentence in read_sentences(str(path))]


def words_of_doc(doc) -> list[list[tuple[str, str, int]]]:
    """Each sentence's tokens as (form, deprel, head): head 0 for the root, else the head's place in the sentence."""
    found = []
    for sent in doc.sents:
        tokens = [t for t in sent if not t.is_space]
        place = {t.i: k + 1 for k, t in enumerate(tokens)}
        found.append([(t.text, t.dep_, 0 if t.head.i == t.i else place[t.head.i]) for t in tokens])
    return found


def test_the_models_tokenizer_in_spacy_parses_raw_text_as_lstmparse_parse_does(nlp, tmp_path):
    gold = list(read_sentences(str(EWT / "dev.conllu")))[:120]
    texts = [p.text for p in paragraphs(gold)]
    raw = tmp_path / "raw.txt"
    raw.write_text("\n\n".join(texts) + "\n", encoding="utf-8")
    cli = run_cli("parse", "--model", "en_ewt_pipeline", "--input-format", "raw", "--input", raw, "--quiet")
    assert cli.returncode == 0, cli.stderr
    docs = list(nlp.pipe(texts, batch_size=8))
    assert [doc.text for doc in docs] == texts  # the original text, offsets and all
    ours = [sentence for doc in docs for sentence in words_of_doc(doc)]
    assert ours == words_of_conllu(cli.stdout, tmp_path)
    for doc in docs:  # each word alone in its token is the spaCy token at the tokenizer's offsets
        starts = {t.idx: t.text for t in doc}
        for sentence in doc._.lstmparse_sentences:
            for word in sentence.words:
                if word.token is None:
                    assert starts[word.start_char] == word.form == doc.text[word.start_char : word.end_char]


def test_the_factory_parses_the_tokens_of_any_pipeline_as_lstmparse_parse_does(tmp_path):
    """Through the entry point alone (no import of lstmparse.spacy): spacy.blank('en') + add_pipe('lstmparse')."""
    from spacy.tokens import Doc

    blank = spacy.blank("en")
    blank.add_pipe("lstmparse", config={"model": "en_ewt_pipeline"})
    gold = list(read_sentences(str(EWT / "dev.conllu")))[:150]
    docs = [Doc(blank.vocab, words=s.forms) for s in gold]
    parsed = list(blank.pipe(docs, batch_size=16))
    text = blank_tags(first_sentences(EWT / "dev.conllu", 150))
    cli = run_cli("parse", "--model", "en_ewt_pipeline", "--quiet", stdin=text)
    assert cli.returncode == 0, cli.stderr
    assert [doc_tree(doc) for doc in parsed] == words_of_conllu(cli.stdout, tmp_path)
    first = parsed[0]
    assert all(t.pos_ and t.tag_ and t.lemma_ for t in first) and first[0].morph is not None


def doc_tree(doc) -> list[tuple[str, str, int]]:
    """A one-sentence doc's words as (form, deprel, head): head 0 for the root, else its 1-based place."""
    return [(t.text, t.dep_, 0 if t.head.i == t.i else t.head.i + 1) for t in doc]


def test_multiword_tokens_become_their_words_and_an_empty_text_an_empty_doc(nlp):
    doc = nlp("I'm sure you don't know.")
    assert [t.text for t in doc] == ["I", "'m", "sure", "you", "do", "n't", "know", "."]
    assert [t.idx for t in doc] == [0, 1, 4, 9, 13, 15, 19, 23] and doc.text == "I'm sure you don't know."
    assert doc[1].lemma_ == "be" and doc[5].lemma_ == "not" and doc[2].dep_ == "root"
    assert len(nlp("")) == 0 and len(nlp("   ")) <= 1


def test_displacy_draws_what_was_parsed_and_the_doc_is_json(nlp):
    from spacy import displacy

    doc = nlp("Dogs chase cats. They run.")
    svg = displacy.render(doc, style="dep")
    assert svg.startswith("<svg") and "chase" in svg and "nsubj" in svg
    data = doc.to_json()
    assert data["text"] == "Dogs chase cats. They run." and len(data["sents"]) == 2
    assert {t["dep"] for t in data["tokens"]} >= {"root", "punct"}


def test_the_factory_is_found_by_entry_point_in_a_fresh_interpreter():
    script = (
        "import spacy\n"
        "nlp = spacy.blank('en')\n"
        "nlp.add_pipe('lstmparse', config={'model': 'en_ewt_pipeline'})\n"
        "doc = nlp('The committee approved the budget .')\n"
        "print(' '.join(t.dep_ for t in doc))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["det", "nsubj", "root", "det", "obj", "punct"]


def test_many_texts_tokenized_together_are_each_tokenized_as_alone(nlp):
    """nlp.pipe labels many texts' paragraphs in shared graphs: each text's sentences must be its own."""
    tokenizer = nlp.get_pipe("lstmparse").pipeline.tokenizer
    gold = list(read_sentences(str(EWT / "test.conllu")))[:200]
    texts = [p.text for p in paragraphs(gold)] + ["", "Two paragraphs.\n\nIn one text."]
    together = [[s.to_conllu() for s in sentences] for sentences in tokenizer.tokenize_texts(texts, 7)]
    alone = [[s.to_conllu() for s in tokenizer.tokenize(text)] for text in texts]
    assert together == alone and len(alone[-1]) == 2
    docs = list(nlp.pipe(texts, batch_size=5))
    assert [doc.text for doc in docs] == texts
    assert [[t.dep_ for t in doc] for doc in docs] == [[t.dep_ for t in nlp(text)] for text in texts]
