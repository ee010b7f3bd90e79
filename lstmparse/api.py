"""The Python API behind the command line: load a model, parse sentences.

import lstmparse
parser = lstmparse.load()  # the default, tag-free English model (models/en_ewt)
for sentence in parser.parse([["The", "dog", "barks", "."]]):
    print(sentence.to_conllu())

constituency = lstmparse.load_constituency("runs/gum_seq2seq")  # see models/README.md
for tree in constituency.parse([["The", "dog", "barks", "."]]):
    print(tree.to_bracketed())
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import InputError, ModelError
from .formats import Sentence, read_sentences
from .model_io import DEFAULT_MODEL
from .parser import StackLSTMParser
from .ptb import PTBTree, to_bracketed

if TYPE_CHECKING:
    from .decoding import BatchDecoder

SENTENCE_WINDOW = 1024  # parsing groups this many input sentences by length
WORDS_PER_SENTENCE = 25  # lock-step batches close at this many words per sentence on average
FEATS_EVIDENCE_WORDS = 1000  # a FEATS model refuses input whose first this many words have no feature


class Parser:
    """A loaded dependency parser."""

    def __init__(self, model: StackLSTMParser, name: str = "this model") -> None:
        self.model = model
        self.name = name  # for messages: the model directory

    @classmethod
    def load(cls, path: str | Path | None = None) -> Parser:
        """Load a model directory; without a path, the default English model."""
        path = Path(path) if path is not None else DEFAULT_MODEL
        if not path.exists():
            raise ModelError(f"{path}: no such model directory")
        return cls(StackLSTMParser.load(str(path)), str(path))

    def parse(self, sentences: Iterable[Sentence | Sequence[str]], batch_size: int = 32) -> Iterator[Sentence]:
        """Parse sentences (``Sentence`` objects or lists of word forms), in order.

        Each result is a copy of the input sentence with HEAD and DEPREL filled in;
        ``result.to_conllu()`` writes it with every other input byte kept.  Greedy
        decoding advances ``batch_size`` sentences in lock-step (the trees are those
        of one sentence at a time, ``batch_size=1``, only found faster; larger
        batches take more memory, see bench/RESULTS.md).
        """
        _check_search(1, 1, batch_size)
        checked = self._readable(_sentences(sentences))
        if batch_size == 1:
            return (with_tree(sentence, *self.model.parse(sentence.tokens)) for sentence in checked)
        return (
            with_tree(sentence, best.heads, best.labels)
            for sentence, (best,) in self._decoded(checked, 1, 1, batch_size)
        )

    def parse_file(self, path: str, fmt: str = "conllu") -> Iterator[Sentence]:
        """Parse every sentence of a file (``-`` = stdin) lazily."""
        return self.parse(read_sentences(path, fmt))

    def parse_kbest(
        self, sentences: Iterable[Sentence | Sequence[str]], beam: int, kbest: int = 1, batch_size: int = 32
    ) -> Iterator[list[Sentence]]:
        """Beam search: for each sentence (in order) its ``kbest`` best distinct trees, best first.

        Each candidate carries ``# kbest_rank = r`` and ``# parser_score = s`` (the
        total log-probability of its derivation) after the input's comments: the
        input format of ``lstmparse rerank``.  ``batch_size`` hypotheses are
        advanced together: ``batch_size // beam`` sentences at a time (at least one).
        """
        _check_search(beam, kbest, batch_size)
        decoded = self._decoded(self._readable(_sentences(sentences)), beam, kbest, batch_size)
        return (_ranked(sentence, candidates) for sentence, candidates in decoded)

    def _readable(self, sentences: Iterator[Sentence]) -> Iterator[Sentence]:
        """The sentences, once it is clear that they fill the tag columns the model reads.

        A model that reads UPOS or FEATS parses blank columns into garbage (test
        LAS 11 for a UPOS model on untagged EWT), so they are refused instead.  A
        blank UPOS is an error on its word's line.  FEATS are blank ('_') on many
        words of tagged text (punctuation, particles), so that column counts as
        missing only when the first ``FEATS_EVIDENCE_WORDS`` words (or all of a
        shorter input) have none; sentences are held back until that is known.
        """
        features = self.model.features
        needs_pos, feats_seen = "pos" in features, "feats" not in features
        held, words = [], 0
        for sentence in sentences:
            if needs_pos:
                blank = next((i for i, t in enumerate(sentence.tokens) if t.upos in ("", "_")), None)
                if blank is not None:
                    raise InputError(sentence.path, sentence.line_of(blank), self._needs_column("UPOS"))
            if feats_seen:
                yield sentence
                continue
            held.append(sentence)
            words += len(sentence)
            feats_seen = any(t.feats not in ("", "_") for t in sentence.tokens)
            if feats_seen:
                yield from held
                held = []
            elif words >= FEATS_EVIDENCE_WORDS:
                break
        if held:
            first = held[0]
            raise InputError(first.path, first.line_of(0), self._needs_column("FEATS"))

    def _needs_column(self, column: str) -> str:
        return (
            f"the {column} column is empty, but {self.name} reads it (features {','.join(self.model.features)}); "
            f"give tagged input, or parse with a model that reads no tags (the default, {DEFAULT_MODEL.name})"
        )

    def _decoded(self, sentences: Iterable, beam: int, kbest: int, batch_size: int) -> Iterator[tuple[Sentence, list]]:
        """Each input sentence with its candidates; ``batch_size`` hypotheses advance in lock-step.

        A lock-step batch takes as many steps as its longest sentence needs, so
        sentences are read ``SENTENCE_WINDOW`` at a time and batched in order of
        length (bench/RESULTS.md: 1.3 times faster than batches in input order);
        results still come out in input order.  The decoder's graph holds every
        value of a batch until it is done, so memory grows with the words of the
        batch times beam: a batch also closes at ``WORDS_PER_SENTENCE`` words per
        sentence on average, so that a batch of long sentences does not take
        several times the memory of ordinary ones.
        """
        from .decoding import BatchDecoder

        decoder = BatchDecoder(self.model)
        sentences_per_batch = max(1, batch_size // beam)
        for window in _windows(sentences, SENTENCE_WINDOW):
            candidates = _decoded_by_length(decoder, window, beam, kbest, sentences_per_batch)
            yield from zip(window, candidates, strict=True)


@dataclasses.dataclass
class ParsedTree:
    """A constituency parse: the tree, and whether the decoder's output had to be repaired."""

    tree: PTBTree
    repaired: bool
    log_prob: float

    def to_bracketed(self) -> str:
        return to_bracketed(self.tree)


class ConstituencyParser:
    """A loaded sequence-to-sequence constituency parser."""

    def __init__(self, model) -> None:
        self.model = model

    @classmethod
    def load(cls, path: str | Path) -> ConstituencyParser:
        from .seq2seq import Seq2SeqParser

        if not Path(path).exists():
            raise ModelError(f"{path}: no such model directory")
        return cls(Seq2SeqParser.load(str(path)))

    def parse(
        self,
        sentences: Iterable[PTBTree | Sentence | Sequence[str]],
        beam: int = 10,
        constrained: bool = True,
        batch_size: int = 64,
    ) -> Iterator[ParsedTree]:
        """Parse token lists, CoNLL-U sentences or bracketed trees (re-parsed from their words), in order.

        A tree's POS tags are kept on the output's preterminals; other inputs get XX.
        ``constrained`` decoding only follows prefixes of well-formed trees; without
        it, as in the paper, a malformed output is repaired afterwards.  Sentences
        are read ``SENTENCE_WINDOW`` at a time, and those of one length decoded
        together, ``batch_size`` hypotheses (sentences times beam) per batch.
        """
        from .linearization import delinearize

        for batch in _windows(sentences, SENTENCE_WINDOW):
            words = [_words_of(item) for item in batch]
            tags = [item.tags if isinstance(item, PTBTree) else None for item in batch]
            decoded_batch = self.model.decode_many(words, beam, constrained, batch_size)
            for decoded, forms, tree_tags in zip(decoded_batch, words, tags, strict=True):
                tree = delinearize(decoded.tokens, forms, tree_tags)
                yield ParsedTree(tree, decoded.repaired, decoded.log_prob)


def _words_of(item: PTBTree | Sentence | Sequence[str]) -> list[str]:
    if isinstance(item, PTBTree):
        return item.words
    if isinstance(item, Sentence):
        return item.forms
    return list(item)


def _as_sentence(sentence: Sentence | Sequence[str], number: int = 0) -> Sentence:
    """A ``Sentence``, or a list of word forms checked and made into one.

    A word form is a non-empty string without tab or line break (CoNLL-U could
    not hold it); a string given where a sentence belongs is refused rather than
    parsed as one-character words.
    """
    if isinstance(sentence, Sentence):
        return sentence
    where = f"sentence {number}" if number else "a sentence"
    if isinstance(sentence, str) or not isinstance(sentence, Sequence):
        raise TypeError(
            f"{where} is a {type(sentence).__name__}; a sentence is a list of word forms, "
            f"such as {str(sentence).split()[:3]!r}"
        )
    if not sentence:
        raise ValueError(f"{where} has no words")
    for position, form in enumerate(sentence, start=1):
        if not isinstance(form, str):
            raise TypeError(f"word {position} of {where} is a {type(form).__name__}, not a string")
        if not form or any(c in form for c in "\t\n\r"):
            raise ValueError(f"word {position} of {where} is {form!r}: words are non-empty, without tab or newline")
    return Sentence.from_forms(list(sentence))


def _sentences(sentences: Iterable[Sentence | Sequence[str]]) -> Iterator[Sentence]:
    """The input, checked sentence by sentence as it is read; a single string is refused at once."""
    if isinstance(sentences, (str, Sentence)):
        raise TypeError(
            "parse() takes an iterable of sentences, each a Sentence or a list of word forms; "
            f"got one {type(sentences).__name__} (for text, parse([text.split()]))"
        )
    return (_as_sentence(sentence, number) for number, sentence in enumerate(sentences, start=1))


def _check_search(beam: int, kbest: int, batch_size: int) -> None:
    for name, value in (("beam", beam), ("kbest", kbest), ("batch_size", batch_size)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a whole number of at least 1, not {value!r}")
    if kbest > beam:
        raise ValueError(f"kbest {kbest} needs a beam at least as wide (beam {beam})")


def _ranked(sentence: Sentence, candidates: list) -> list[Sentence]:
    """The candidates as copies of the sentence, with their rank and score as comments."""
    return [
        with_tree(sentence, c.heads, c.labels).with_comments(
            [f"# kbest_rank = {rank}", f"# parser_score = {c.score:.4f}"]
        )
        for rank, c in enumerate(candidates, start=1)
    ]


def _decoded_by_length(
    decoder: BatchDecoder, window: list[Sentence], beam: int, kbest: int, sentences_per_batch: int
) -> list:
    """The candidates of each sentence of ``window``, in its order, decoded in batches of similar length."""
    results: list = [None] * len(window)
    lengths = [len(sentence) for sentence in window]
    by_length = sorted(range(len(window)), key=lengths.__getitem__)
    words_per_batch = sentences_per_batch * WORDS_PER_SENTENCE
    for batch in _batches(by_length, sentences_per_batch, words_per_batch, size_of=lengths.__getitem__):
        for index, candidates in zip(batch, decoder.parse([window[i].tokens for i in batch], beam, kbest), strict=True):
            results[index] = candidates
    return results


def _windows(items: Iterable, size: int) -> Iterator[list]:
    """Consecutive lists of ``size`` items; when reading fails, the items read before come first.

    So a malformed sentence in the input costs only itself and what follows: the
    sentences before it are still parsed and written before the error is reported.
    """
    window: list = []
    try:
        for item in items:
            window.append(item)
            if len(window) == size:
                yield window
                window = []
    except InputError:
        if window:
            yield window
        raise
    if window:
        yield window


def _batches(
    items: Iterable, size: int, max_words: int | None = None, size_of: Callable[[Any], int] = len
) -> Iterator[list]:
    """Consecutive items in lists of ``size``, or fewer once they hold ``max_words`` words (``size_of``)."""
    batch, words = [], 0
    for item in items:
        batch.append(item)
        words += size_of(item) if max_words is not None else 0
        if len(batch) == size or (max_words is not None and words >= max_words):
            yield batch
            batch, words = [], 0
    if batch:
        yield batch


def with_tree(sentence: Sentence, heads: Sequence[int], deprels: Sequence[str]) -> Sentence:
    """A copy of ``sentence`` whose words carry the given tree."""
    tokens = [dataclasses.replace(t, head=h, deprel=r) for t, h, r in zip(sentence.tokens, heads, deprels, strict=True)]
    return dataclasses.replace(sentence, tokens=tokens)
