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


class Parser:
    """A loaded dependency parser."""

    def __init__(self, model: StackLSTMParser) -> None:
        self.model = model

    @classmethod
    def load(cls, path: str | Path | None = None) -> Parser:
        """Load a model directory; without a path, the default English model."""
        path = Path(path) if path is not None else DEFAULT_MODEL
        if not path.exists():
            raise ModelError(f"{path}: no such model directory")
        return cls(StackLSTMParser.load(str(path)))

    def parse(self, sentences: Iterable[Sentence | Sequence[str]], batch_size: int = 32) -> Iterator[Sentence]:
        """Parse sentences (``Sentence`` objects or lists of word forms), in order.

        Each result is a copy of the input sentence with HEAD and DEPREL filled in;
        ``result.to_conllu()`` writes it with every other input byte kept.  Greedy
        decoding advances ``batch_size`` sentences in lock-step (the trees are those
        of one sentence at a time, ``batch_size=1``, only found faster; larger
        batches take more memory, see bench/RESULTS.md).
        """
        if batch_size == 1:
            for sentence in map(_as_sentence, sentences):
                yield with_tree(sentence, *self.model.parse(sentence.tokens))
            return
        for sentence, (best,) in self._decoded(sentences, 1, 1, batch_size):
            yield with_tree(sentence, best.heads, best.labels)

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
        for sentence, candidates in self._decoded(sentences, beam, kbest, batch_size):
            yield [
                with_tree(sentence, c.heads, c.labels).with_comments(
                    [f"# kbest_rank = {rank}", f"# parser_score = {c.score:.4f}"]
                )
                for rank, c in enumerate(candidates, start=1)
            ]

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
        for window in _windows((_as_sentence(s) for s in sentences), SENTENCE_WINDOW):
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


def _as_sentence(sentence: Sentence | Sequence[str]) -> Sentence:
    return sentence if isinstance(sentence, Sentence) else Sentence.from_forms(list(sentence))


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
