"""lstmparse inside spaCy: a ``Language`` with the model's own tokenizer, and a pipeline component for any pipeline.

``lstmparse.spacy.load("en_ewt_pipeline")`` gives a :class:`spacy.Language` whose
tokenizer is the model's tokenizer and sentence splitter and whose ``lstmparse``
component tags, lemmatizes and parses (``token.pos_``, ``tag_``, ``morph``,
``lemma_``, ``dep_``, ``head``, ``doc.sents``).  The component is registered as
the spaCy factory ``lstmparse`` (entry point ``spacy_factories``), so
``nlp.add_pipe("lstmparse", config={"model": "en_ewt_pipeline"})`` works in any
pipeline after installing ``lstmparse[spacy]``: it tags and parses the tokens that
pipeline made, each sentence of ``doc.sents`` (the whole doc where there are none)
as presegmented input.

A multi-word token becomes its syntactic words (``don't`` = ``do`` + ``n't``, as
``spacy-udpipe`` and ``spacy-stanza`` do) when they spell it; one whose words do
not (French ``du`` = ``de le``) stays one spaCy token, so that ``doc.text`` is
always the original text, and carries the analysis of its word that attaches
outside it.  ``nlp.pipe(texts, batch_size=...)`` parses each batch's sentences
together, in the toolkit's lock-step batches.  spaCy is imported only here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np
from spacy.attrs import DEP, HEAD
from spacy.language import Language
from spacy.tokens import Doc
from spacy.vocab import Vocab

if TYPE_CHECKING:
    from thinc.types import Ints2d

from lstmparse.io.document import multiword_tokens
from lstmparse.io.formats import Sentence

EXTENSION = "lstmparse_sentences"  # Doc._.lstmparse_sentences: the toolkit's sentences behind a doc


def load(model: str | Path = "en_ewt_pipeline", batch_size: int = 32) -> Language:
    """A spaCy pipeline of ``model`` (a name, a language code or a directory, as ``--model`` takes)."""
    import spacy

    pipeline = _pipeline(str(model))
    language = _language_of(pipeline)
    try:
        nlp = spacy.blank(language)
    except Exception:  # a language spaCy has no class for: its multilingual one  # noqa: BLE001
        nlp = spacy.blank("xx")
    nlp.tokenizer = LstmparseTokenizer(nlp.vocab, pipeline)
    nlp.add_pipe("lstmparse", config={"model": str(model), "batch_size": batch_size})
    component = nlp.get_pipe("lstmparse")
    assert isinstance(component, LstmparseComponent)
    component.pipeline = pipeline  # one loaded model for both
    nlp.__class__ = _with_batched_tokenizer(type(nlp))
    return nlp


def _with_batched_tokenizer(language: type[Language]) -> type[Language]:
    """The language class with a ``pipe`` that tokenizes its texts in batches first.

    spaCy calls a tokenizer on one text at a time; the character model labels many
    paragraphs together three times as fast, and a text's tokens do not depend on
    the others, so ``nlp.pipe`` hands spaCy docs already tokenized.
    """

    def pipe(self, texts, *, as_tuples: bool = False, batch_size: int | None = None, **kwargs):
        if as_tuples:
            return language.pipe(self, texts, as_tuples=True, batch_size=batch_size, **kwargs)
        if isinstance(self.tokenizer, LstmparseTokenizer):
            texts = _tokenized(self.tokenizer, texts, batch_size or self.batch_size)
        return language.pipe(self, texts, as_tuples=False, batch_size=batch_size, **kwargs)

    return type(f"Lstmparse{language.__name__}", (language,), {"pipe": pipe})


def _tokenized(tokenizer: LstmparseTokenizer, texts: Iterable, batch_size: int) -> Iterator:
    """Texts as docs, tokenized ``batch_size`` at a time; docs given pass as they are."""
    from lstmparse.core.batching import windows

    for chunk in windows(iter(texts), max(batch_size, 1)):
        strings = [text for text in chunk if isinstance(text, str)]
        docs = iter(tokenizer.pipe(strings, len(strings)) if strings else [])
        for text in chunk:
            yield next(docs) if isinstance(text, str) else text


@Language.factory("lstmparse", default_config={"model": "en_ewt_pipeline", "batch_size": 32})
def make_lstmparse(nlp: Language, name: str, model: str, batch_size: int) -> LstmparseComponent:
    """The spaCy factory: tags, lemmatizes and parses a doc's tokens with ``model``."""
    return LstmparseComponent(_pipeline(model), batch_size)


def _pipeline(model: str):
    from lstmparse.app.catalog import resolve_model
    from lstmparse.core.backend import configure_defaults

    configure_defaults()
    from lstmparse.pipeline.api import Pipeline

    return Pipeline.assemble(resolve_model(model))


def _language_of(pipeline) -> str:
    from lstmparse.core.model_io import read_card

    source = pipeline.source or next(iter(pipeline.parts.values()), None)
    return (read_card(source).get("language") if source else None) or "xx"


def _ensure_extension() -> None:
    if not Doc.has_extension(EXTENSION):
        Doc.set_extension(EXTENSION, default=None)


class LstmparseTokenizer:
    """The model's tokenizer and sentence splitter as a spaCy tokenizer (text in, ``Doc`` out, text kept)."""

    def __init__(self, vocab: Vocab, pipeline) -> None:
        if pipeline.tokenizer is None:
            raise ValueError(f"{pipeline!r} has no tokenizer: use a pipeline model, or add the component to a pipeline")
        self.vocab, self.pipeline = vocab, pipeline
        _ensure_extension()

    def __call__(self, text: str) -> Doc:
        return doc_of(self.vocab, text, list(self.pipeline.tokenize(text)) if text.strip() else [])

    def pipe(self, texts: Iterable[str], batch_size: int = 256) -> Iterator[Doc]:
        """Docs of many texts, their paragraphs labelled ``batch_size`` texts at a time (what ``nlp.pipe`` uses)."""
        texts = list(texts) if not isinstance(texts, list) else texts
        for text, sentences in zip(texts, self.pipeline.tokenizer.tokenize_texts(texts, batch_size), strict=True):
            yield doc_of(self.vocab, text, sentences)

    def to_bytes(self, **kwargs) -> bytes:
        return b""

    def from_bytes(self, data: bytes, **kwargs) -> LstmparseTokenizer:
        return self

    def to_disk(self, path, **kwargs) -> None:
        Path(path).mkdir(parents=True, exist_ok=True)

    def from_disk(self, path, **kwargs) -> LstmparseTokenizer:
        return self


def doc_of(vocab: Vocab, text: str, sentences: Sequence[Sentence]) -> Doc:
    """A ``Doc`` of the tokenizer's sentences whose text is ``text`` exactly (extra white space as spaCy's
    white-space tokens); each syntactic word a token where the words spell their multi-word token."""
    words: list[str] = []
    spaces: list[bool] = []
    starts: list[bool | int | None] = []  # spaCy's sent_starts: True where a sentence starts
    position = 0

    def white_space_until(start: int) -> None:
        """The text between the last token and ``start``: a space after it, or spaCy's white-space token."""
        gap = text[position:start]
        if gap.startswith(" ") and words and not spaces[-1]:
            spaces[-1], gap = True, gap[1:]
        if gap:
            words.append(gap)
            spaces.append(False)
            starts.append(False)

    for sentence in sentences:
        for k, (start, end, surface, _) in enumerate(_surface_units(sentence, text)):
            white_space_until(start)
            for j, form in enumerate(surface):
                words.append(form)
                spaces.append(False)
                starts.append(k == 0 and j == 0)
            position = end
    white_space_until(len(text))
    if starts:
        starts[0] = True
    doc = Doc(vocab, words=words, spaces=spaces, sent_starts=starts or None)
    doc._.set(EXTENSION, list(sentences))
    return doc


def _surface_units(sentence: Sentence, text: str) -> Iterator[tuple[int, int, list[str], int]]:
    """Each token of a sentence in the text: its offsets, the spaCy tokens it becomes (its words where they
    spell it, else itself) and how many words it holds."""
    for units in _token_groups(sentence):
        start, end = units[0].start_char, units[0].end_char
        surface = text[start:end]
        forms = [word.form for word in units]
        yield start, end, forms if len(units) == 1 or "".join(forms) == surface else [surface], len(units)


def _token_groups(sentence: Sentence) -> list[list]:
    """The sentence's words (their records) grouped by their surface token (a multi-word token's words together)."""
    multiword = multiword_tokens(sentence)
    groups: list[list] = []
    previous = None
    for word in sentence.tokens:
        token = multiword.get(word.id)
        if token is not None and token is previous:
            groups[-1].append(word)
        else:
            groups.append([word])
        previous = token
    return groups


class LstmparseComponent:
    """Tags, lemmatizes and parses each sentence of a doc with a loaded pipeline."""

    def __init__(self, pipeline, batch_size: int = 32) -> None:
        self.pipeline, self.batch_size = pipeline, batch_size
        _ensure_extension()

    def __call__(self, doc: Doc) -> Doc:
        return next(iter(self.pipe([doc])))

    def pipe(self, docs: Iterable[Doc], batch_size: int | None = None) -> Iterator[Doc]:
        """Docs parsed a batch at a time: every sentence of the batch's docs in one call of the parser."""
        size = batch_size or self.batch_size
        batch: list[Doc] = []
        for doc in docs:
            batch.append(doc)
            if len(batch) >= size:
                yield from self._parsed(batch)
                batch = []
        if batch:
            yield from self._parsed(batch)

    def _parsed(self, docs: list[Doc]) -> Iterator[Doc]:
        inputs = [self._sentences_of(doc) for doc in docs]
        flat = [sentence for sentences, _ in inputs for sentence in sentences]
        parsed = iter(list(self.pipeline.parse(flat)) if flat else [])
        for doc, (sentences, token_index) in zip(docs, inputs, strict=True):
            mine = [next(parsed) for _ in sentences]
            doc._.set(EXTENSION, mine)
            _annotate(doc, mine, token_index)
            yield doc

    def _sentences_of(self, doc: Doc) -> tuple[list, list[list[int]]]:
        """The sentences to parse and, for each word, the index of the spaCy token that carries it."""
        own = doc._.get(EXTENSION)
        if own is not None:
            return own, _own_token_index(doc, own)
        spans = list(doc.sents) if doc.has_annotation("SENT_START") else [doc[:]]
        sentences, index = [], []
        for span in spans:
            tokens = [token for token in span if not token.is_space]
            if tokens:
                sentences.append([token.text for token in tokens])
                index.append([token.i for token in tokens])
        return sentences, index


def _own_token_index(doc: Doc, sentences: Sequence[Sentence]) -> list[list[int]]:
    """For the tokenizer's own sentences: each word's spaCy token, in the order :func:`doc_of` made them."""
    tokens = iter(token for token in doc if not token.is_space)
    text, index = doc.text, []
    for sentence in sentences:
        words: list[int] = []
        for _, _, surface, count in _surface_units(sentence, text):
            pieces = [next(tokens).i for _ in surface]
            words += pieces if len(pieces) == count else pieces * count  # a token kept whole: all its words
        index.append(words)
    return index


def _annotate(doc: Doc, sentences: Sequence[Sentence], token_index: list[list[int]]) -> None:
    """Tags, lemmas, morphology, labels and heads on the doc's tokens; a token carrying several words (a
    multi-word token kept whole) takes the analysis of the word that attaches outside it.  White space
    attaches to the token before it (the first token of the doc: after it)."""
    heads = list(range(len(doc)))
    deps = ["" for _ in doc]
    for sentence, index in zip(sentences, token_index, strict=True):
        for k, token in enumerate(sentence.tokens):
            target, head = index[k], token.head or 0
            if head and index[head - 1] == target:
                continue  # a word attached inside its own multi-word token: the outer word speaks for the token
            spacy_token = doc[target]
            spacy_token.pos_ = _blank(token.upos)
            spacy_token.tag_ = _blank(token.xpos)
            spacy_token.lemma_ = _blank(token.lemma)
            spacy_token.set_morph(_blank(token.feats) or None)  # type: ignore[attr-defined]  # not in spaCy's stub
            heads[target] = target if head == 0 else index[head - 1]
            deps[target] = token.deprel or "dep"
    first = next((word.i for word in doc if not word.is_space), None)
    last = None  # the last token before this one that is not white space
    for word in doc:
        if not word.is_space:
            last = word.i
        elif first is not None:
            heads[word.i], deps[word.i] = (first if last is None else last), "dep"
    if len(doc):
        array = np.empty((len(doc), 2), dtype="uint64")
        array[:, 0] = np.array([heads[i] - i for i in range(len(doc))], dtype="int64").astype("uint64")  # relative
        array[:, 1] = [doc.vocab.strings.add(dep) for dep in deps]
        doc.from_array([HEAD, DEP], cast("Ints2d", array))


def _blank(value: str | None) -> str:
    return "" if value in (None, "_") else value
