"""The loaded dependency parser that the command line and users call.

import lstmparse
parser = lstmparse.load("models/en_ewt")  # the tag-free English parser
for sentence in parser.parse([["The", "dog", "barks", "."]]):
    print(sentence.to_conllu())

(``lstmparse.load()`` without a path gives the default pipeline, which tags
before it parses with its own tag-reading parser; ``Parser.load()`` without a path
gives ``models/en_ewt``, which reads no tags, so untagged input is enough.)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from lstmparse.core.batching import PARSE_BATCH_SIZE, SENTENCE_WINDOW, batches, windows
from lstmparse.core.ensembles import STACKLSTM_ENSEMBLE, TagDistribution, mixture_log_probs
from lstmparse.core.languages import pipelines_of_language
from lstmparse.core.model_io import TAG_FREE_MODEL, model_repr, read_card
from lstmparse.core.records import ModelRecord, read_record
from lstmparse.errors import InputError, ModelError
from lstmparse.io.formats import BLANK_VALUES, Sentence, read_sentences
from lstmparse.io.inputs import checked_sentences
from lstmparse.stacklstm.model import StackLSTMParser

if TYPE_CHECKING:
    from lstmparse.stacklstm.decoding import BatchDecoder
    from lstmparse.stacklstm.ensemble import StackLSTMEnsemble

WORDS_PER_SENTENCE = 16  # lock-step batches close at this many words per sentence on average
FEATS_EVIDENCE_WORDS = 1000  # a FEATS model refuses input whose first this many words have no feature
OWN_TAGS_WINDOW = 64  # sentences a joint-UPOS parser tags at a time before parsing them


class Parser:
    """A loaded dependency parser."""

    def __init__(self, model: StackLSTMParser | StackLSTMEnsemble, name: str = "this model") -> None:
        self.model = model
        self.name = name  # for messages: the model directory
        self.beam = 1  # the beam when none is asked for: a pipeline's manifest may set it (chosen on dev)

    def __repr__(self) -> str:
        members = getattr(self.model, "members", None)
        details = f"{self.model.system.name}, features {','.join(self.model.features)}"
        if members:
            details = f"ensemble of {len(members)}, {details}"
        return model_repr("parser", self.name if Path(self.name).exists() else None, details)

    def __call__(self, *args, **kwargs):
        raise TypeError(
            "a Parser reads tokenized sentences: parser.parse([['Dogs', 'bark', '.']]) or parser.parse_file(path); "
            "for raw text, load a pipeline of its language (lstmparse models lists them) and call that"
        )

    @classmethod
    def load(cls, path: str | Path | ModelRecord | None = None) -> Parser:
        """Load a model directory (or an ensemble's manifest); without a path, the tag-free ``en_ewt``."""
        record = read_record(path if path is not None else TAG_FREE_MODEL)
        if not record.path.exists():
            raise ModelError(f"{record.path}: no such model directory")
        if record.arch == STACKLSTM_ENSEMBLE:
            from lstmparse.stacklstm.ensemble import StackLSTMEnsemble

            return cls(StackLSTMEnsemble.load(record), str(record.path))
        return cls(StackLSTMParser.load(str(record.path)), str(record.path))

    def parse(
        self, sentences: Iterable[Sentence | Sequence[str]], batch_size: int = PARSE_BATCH_SIZE
    ) -> Iterator[Sentence]:
        """Parse sentences (``Sentence`` objects or lists of word forms), in order.

        Each result is a copy of the input sentence with HEAD and DEPREL filled in;
        ``result.to_conllu()`` writes it with every other input byte kept.  Decoding
        (greedy, or with the parser's ``beam``) advances ``batch_size`` sentences in
        lock-step (the trees are those of one sentence at a time, ``batch_size=1``,
        only found faster; larger batches take more memory, see bench/RESULTS.md).
        """
        return self._best(sentences, self.beam, batch_size)

    def _best(self, sentences: Iterable[Sentence | Sequence[str]], beam: int, batch_size: int) -> Iterator[Sentence]:
        """Each sentence with its best tree found with ``beam`` (greedy one at a time: the model's own loop)."""
        _check_search(beam, 1, batch_size)
        checked = self._prepared(sentences, batch_size)
        if batch_size == 1 and beam == 1:
            return (sentence.with_tree(*self.model.parse(sentence.tokens)) for sentence in checked)
        return (
            sentence.with_tree(best.heads, best.labels)
            for sentence, (best,) in self._decoded(checked, beam, 1, batch_size)
        )

    def parse_file(self, path: str, fmt: str = "conllu") -> Iterator[Sentence]:
        """Parse every sentence of a file (``-`` = stdin) lazily."""
        return self.parse(read_sentences(path, fmt))

    def parse_kbest(
        self,
        sentences: Iterable[Sentence | Sequence[str]],
        beam: int,
        kbest: int = 1,
        batch_size: int = PARSE_BATCH_SIZE,
    ) -> Iterator[list[Sentence]]:
        """Beam search: for each sentence (in order) its ``kbest`` best distinct trees, best first.

        Each candidate carries ``# kbest_rank = r`` and ``# parser_score = s`` (the
        total log-probability of its derivation) after the input's comments: the
        input format of ``lstmparse rerank``.  ``batch_size`` hypotheses are
        advanced together: ``batch_size // beam`` sentences at a time (at least one).
        """
        _check_search(beam, kbest, batch_size)
        decoded = self._decoded(self._prepared(sentences, batch_size), beam, kbest, batch_size)
        return (_ranked(sentence, candidates) for sentence, candidates in decoded)

    def candidates(
        self,
        sentences: Iterable[Sentence | Sequence[str]],
        beam: int | None = None,
        kbest: int = 1,
        batch_size: int = PARSE_BATCH_SIZE,
        confidence: str | None = None,
    ) -> Iterator[list[Sentence]]:
        """Each sentence's list of parses: the best one found with ``beam``, or (``kbest`` above 1) the ``kbest``
        best, ranked and scored as :meth:`parse_kbest` writes them (``beam`` ``None``: the parser's own,
        :attr:`beam`).

        What ``lstmparse parse`` writes, whatever runs it (``--jobs``, ``parse-corpus``).
        ``confidence`` puts a number per word in MISC (``Conf=0.93``) and the tree's
        in ``# parse_confidence``: ``greedy``, the probability the parser gave the action
        that attached the word (and the product over the derivation for the tree);
        ``kbest``, the share of the k-best list's probability mass whose tree has the
        word's arc (``kbest`` at least 2; the mass of the tree itself for the tree).
        """
        beam = self.beam if beam is None else beam
        if confidence is None:
            if kbest == 1:
                return ([sentence] for sentence in self._best(sentences, beam, batch_size))
            return self.parse_kbest(sentences, beam, kbest, batch_size)
        if confidence not in CONFIDENCE_KINDS:
            raise ValueError(f"confidence is one of {CONFIDENCE_KINDS}, not {confidence!r}")
        if confidence == "kbest" and kbest < 2:
            raise ValueError("confidence from the k-best list needs kbest of at least 2")
        _check_search(beam, kbest, batch_size)
        decoded = self._decoded(self._prepared(sentences, batch_size), beam, kbest, batch_size)
        return (_with_confidence(sentence, trees, confidence, kbest > 1) for sentence, trees in decoded)

    def _prepared(self, sentences: Iterable[Sentence | Sequence[str]], batch_size: int) -> Iterator[Sentence]:
        """The sentences checked (:meth:`_readable`), and their blank UPOS filled by a parser that predicts it
        (sentence by sentence for ``batch_size`` 1, so that interactive input streams)."""
        checked = self._readable(checked_sentences(sentences))
        if not self.predicts_upos:
            return checked
        groups = windows(checked, _read_ahead(OWN_TAGS_WINDOW, batch_size))
        return (sentence for group in groups for sentence in self.fill_blank_upos(group))

    @property
    def predicts_upos(self) -> bool:
        """Whether this parser (or a member of this ensemble) was trained to predict UPOS too (``--joint-upos``)."""
        return any(getattr(member, "upos_head", None) is not None for member in self._members())

    def upos_distributions(self, window: list[Sentence]) -> list[TagDistribution]:
        """The UPOS log-probabilities of each word of ``window`` from the parser's tag layer (``--joint-upos``); an
        ensemble's: the log of the mean of its joint members' probabilities."""
        joint = self._joint_members()
        strings = list(_upos_head(joint[0]).tags.strings)
        tokens = [sentence.tokens for sentence in window]
        per_member = [_upos_log_probs_over(member, tokens, strings) for member in joint]
        return [
            TagDistribution(strings, mixture_log_probs([member[k] for member in per_member]).T)
            for k in range(len(window))
        ]

    def _members(self) -> list:
        return list(getattr(self.model, "members", [self.model]))

    def _joint_members(self) -> list[StackLSTMParser]:
        """The parsers behind this API that predict UPOS; refused where none does."""
        joint = [member for member in self._members() if getattr(member, "upos_head", None) is not None]
        if not joint:
            raise ModelError(f"{self.name}: this parser was not trained with --joint-upos: it predicts no UPOS")
        return joint

    def fill_blank_upos(self, window: list[Sentence]) -> list[Sentence]:
        """The parser's tags (``--joint-upos``) in each blank UPOS of ``window``; given tags are kept.

        Its tree reads no tag column, so the tree and the tags both come from its one network
        (an ensemble's: the mean of its joint members' distributions).
        """
        joint = self._joint_members()
        blank = [k for k, sentence in enumerate(window) if any(t.upos in BLANK_VALUES for t in sentence.tokens)]
        chosen = [window[k] for k in blank]
        if isinstance(self.model, StackLSTMParser):
            tags = joint[0].predict_upos([sentence.tokens for sentence in chosen])
        else:
            tags = [[d.tags[i] for i in d.log_probs.argmax(axis=1)] for d in self.upos_distributions(chosen)]
        filled = list(window)
        for k, sentence_tags in zip(blank, tags, strict=True):
            upos = [_given_or(token.upos, tag) for token, tag in zip(window[k].tokens, sentence_tags, strict=True)]
            filled[k] = window[k].with_columns({"upos": upos})
        return filled

    def _readable(self, sentences: Iterator[Sentence]) -> Iterator[Sentence]:
        """The sentences, once it is clear that they fill the tag columns the model reads.

        A model that reads UPOS or FEATS parses blank columns into garbage (test
        LAS 11 for a UPOS model on untagged EWT), so they are refused instead.  A
        blank UPOS is an error on its word's line.  FEATS are blank ('_') on many
        words of tagged text (punctuation, particles), so that column counts as
        missing only when the first ``FEATS_EVIDENCE_WORDS`` words (or all of a
        shorter input) have none; sentences are held back until that is known.  A
        sentence a FEATS tagger has tagged (a pipeline's) has its FEATS, blank or not.
        """
        features = self.model.features
        needs_pos, feats_seen = "pos" in features, "feats" not in features
        held, words = [], 0
        for sentence in sentences:
            if needs_pos:
                blank = next((i for i, t in enumerate(sentence.tokens) if t.upos in BLANK_VALUES), None)
                if blank is not None:
                    raise InputError(sentence.path, sentence.line_of(blank), self._needs_column("UPOS"))
            if feats_seen:
                yield sentence
                continue
            held.append(sentence)
            words += len(sentence)
            feats_seen = sentence.feats_tagged or any(t.feats not in BLANK_VALUES for t in sentence.tokens)
            if feats_seen:
                yield from held
                held = []
            elif words >= FEATS_EVIDENCE_WORDS:
                break
        if held:
            first = held[0]
            raise InputError(first.path, first.line_of(0), self._needs_column("FEATS"))

    def _needs_column(self, column: str) -> str:
        """What to do about untagged input, naming models of this model's own language (or none)."""
        language = read_card(self.name).get("language") if Path(self.name).exists() else None
        pipelines = pipelines_of_language(language)
        if pipelines:
            advice = f"parse with a pipeline of its language that tags first ({', '.join(pipelines)})"
        else:
            advice = "tag it first (lstmparse train --arch pipeline --treebank DIR trains a pipeline that does)"
        if language == "en":
            advice += f", or with a model that reads no tags ({TAG_FREE_MODEL.name})"
        features = ",".join(self.model.features)
        return (
            f"the {column} column is empty, but {self.name} reads it (features {features}); give tagged input, {advice}"
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
        several times the memory of ordinary ones.  With ``batch_size`` 1 each sentence is its own batch, so it is
        read alone: interactive input streams, as greedy decoding does.
        """
        decoder = _decoder(self.model)
        sentences_per_batch = max(1, batch_size // beam)
        for window in windows(sentences, _read_ahead(SENTENCE_WINDOW, batch_size)):
            candidates = _decoded_by_length(decoder, window, beam, kbest, sentences_per_batch)
            yield from zip(window, candidates, strict=True)


def _read_ahead(window: int, batch_size: int) -> int:
    """How many sentences a stage reads before it hands any on: ``window``, or one at ``batch_size`` 1, so that
    interactive input streams."""
    return window if batch_size > 1 else 1


def _decoder(model: StackLSTMParser | StackLSTMEnsemble) -> BatchDecoder:
    """The lock-step decoder of a parser, or of an ensemble (the members' mean distribution)."""
    from lstmparse.stacklstm.decoding import BatchDecoder
    from lstmparse.stacklstm.ensemble import EnsembleDecoder, StackLSTMEnsemble

    return EnsembleDecoder(model) if isinstance(model, StackLSTMEnsemble) else BatchDecoder(model)


def _check_search(beam: int, kbest: int, batch_size: int) -> None:
    for name, value in (("beam", beam), ("kbest", kbest), ("batch_size", batch_size)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a whole number of at least 1, not {value!r}")
    if kbest > beam:
        raise ValueError(f"kbest {kbest} needs a beam at least as wide (beam {beam})")


def _ranked(sentence: Sentence, candidates: list) -> list[Sentence]:
    """The candidates as copies of the sentence, with their rank and score as comments."""
    return [
        sentence.with_tree(c.heads, c.labels).with_comments(
            [f"# kbest_rank = {rank}", f"# parser_score = {c.score:.4f}"]
        )
        for rank, c in enumerate(candidates, start=1)
    ]


CONFIDENCE_KINDS = ("greedy", "kbest")


def _with_confidence(sentence: Sentence, trees: list, kind: str, ranked: bool) -> list[Sentence]:
    """The candidates with their confidence per word (MISC ``Conf``) and per tree (``# parse_confidence``)."""
    parses = _ranked(sentence, trees) if ranked else [sentence.with_tree(trees[0].heads, trees[0].labels)]
    if kind == "greedy":
        per_word = [[math.exp(value) for value in tree.arc_log_probs] for tree in trees]
        per_tree = [math.exp(tree.score) for tree in trees]
    else:
        per_word, per_tree = kbest_confidence(trees)
    return [
        parse.with_misc("Conf", [f"{value:.4f}" for value in words]).with_comments(
            [f"# parse_confidence = {tree_value:.4f}"]
        )
        for parse, words, tree_value in zip(parses, per_word, per_tree, strict=False)
    ]


def kbest_confidence(trees: list) -> tuple[list[list[float]], list[float]]:
    """Per tree of a k-best list: each word's share of the list's probability mass whose tree has its arc
    (same head and label), and the tree's own share."""
    scores = [tree.score for tree in trees]
    top = max(scores)
    weights = [math.exp(score - top) for score in scores]
    total = sum(weights)
    shares = [weight / total for weight in weights]
    mass: list[dict[tuple[int, str], float]] = [{} for _ in trees[0].heads]  # per word: (head, label) -> mass
    for tree, share in zip(trees, shares, strict=True):
        for i, arc in enumerate(zip(tree.heads, tree.labels, strict=True)):
            mass[i][arc] = mass[i].get(arc, 0.0) + share
    per_word = [[mass[i][arc] for i, arc in enumerate(zip(t.heads, t.labels, strict=True))] for t in trees]
    return per_word, shares


def _decoded_by_length(
    decoder: BatchDecoder, window: list[Sentence], beam: int, kbest: int, sentences_per_batch: int
) -> list:
    """The candidates of each sentence of ``window``, in its order, decoded in batches of similar length."""
    results: list = [None] * len(window)
    lengths = [len(sentence) for sentence in window]
    by_length = sorted(range(len(window)), key=lengths.__getitem__)
    words_per_batch = sentences_per_batch * WORDS_PER_SENTENCE
    for batch in batches(by_length, sentences_per_batch, words_per_batch, words_of=lengths.__getitem__):
        for index, candidates in zip(batch, decoder.parse([window[i].tokens for i in batch], beam, kbest), strict=True):
            results[index] = candidates
    return results


def _given_or(value: str, predicted: str) -> str:
    """A column's value as the input gives it, or ``predicted`` where the input leaves it blank."""
    return value if value not in BLANK_VALUES else predicted


def _upos_log_probs_over(parser: StackLSTMParser, tokens: list, strings: list[str]) -> list[np.ndarray]:
    """A joint parser's UPOS log-probabilities of each sentence of ``tokens``, as (``strings`` x words)."""
    own = _upos_head(parser).tags.strings
    return [TagDistribution(own, values).over(strings) for values in parser.upos_log_probs(tokens)]


def _upos_head(parser: StackLSTMParser):
    """A joint member's tag layer (present: ``Parser._joint_members`` chose it)."""
    assert parser.upos_head is not None
    return parser.upos_head
