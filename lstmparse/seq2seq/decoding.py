"""Batched beam search for the seq2seq parser: sentences of any length, many at once.

Decoding costs one decoder step per output token and hypothesis, and a step's cost
is almost all matrix products, so two things make it fast on a CPU:

* **Large batches.** Sentences of different lengths share a batch: they are
  encoded in one padded run (``DecoderModel.encode``), each sentence's encoder
  outputs are padded to the batch's longest, and attention gives the padding
  exactly zero weight.  Every sentence keeps ``beam`` hypothesis slots (greedy
  decoding is beam 1), so the slots' memory is gathered once per batch, and again
  only when finished sentences have freed a quarter of the slots.
* **Work per sentence instead of per step.**  The decoder's first layer reads the
  previous context (the attention-weighted sum of encoder outputs) and, with the
  word pointer, the memory of the next word; the output layer reads the new context
  and the same pointed memory.  Their products with the weights are linear, so
  ``W (M a) = (W M) a``: the products of the weights with every encoder output are
  computed once per sentence, and a step multiplies a (rows x words) matrix by the
  attention weights instead of a (rows x 512) matrix by the context; a
  sentence's ``beam`` hypotheses share that matrix, so it is one matrix product per
  sentence.  The previous token's share of the first layer's gates is looked up
  from a table computed once per batch.  For the shipped model's sizes this halves
  the multiply-adds of a hypothesis's step (about 2.0 M to 0.95 M).  The first
  layer's cell is VanillaLSTMBuilder's (affine transform, then the four gates with
  the forget gate's bias of 1), the layers above use DyNet's fused LSTM operations;
  the scores the search reports equal the training graph's log-probabilities of
  the same sequences (tested), and on GUM test the trees are those of the
  decoder this one replaced, for beam 1 and 10, constrained or not.

An ensemble (:mod:`lstmparse.seq2seq.ensemble`) searches with several models at
once: each keeps its own memory and decoder states for the same slots, and a
step's distribution is the mean of the models' distributions.

The search itself is the one the model always had: at each step each sentence keeps
its ``beam`` best extensions; an extension by END is finished, the others go on; a
sentence stops once ``beam`` sequences have finished, or after ``max_output_length``
steps (its unfinished hypotheses are then returned as they are).  Constrained search
masks, in NumPy for all hypotheses at once, every token that would not keep the
sequence a prefix of a well-formed tree with one leaf per word (the rules of
:class:`~lstmparse.seq2seq.linearization.Prefix`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import dynet as dy
import numpy as np

from lstmparse.core.ensembles import mixture_log_probs
from lstmparse.seq2seq.linearization import is_well_formed, repair
from lstmparse.seq2seq.step import DecoderModel, Member

if TYPE_CHECKING:
    from lstmparse.core.vocab import Vocabulary

BUDGET_WORDS = 32  # sentences up to this long get full batches
# Hypotheses decoded together by default.  Greedy decoding is as fast with 16 sentences per
# batch as with 64 and peaks at less than half the memory (GUM test, one core: 82 to 99
# against 86 to 105 sentences/s, 784 against 1,709 MB; bench/RESULTS.md); a beam of 10 needs
# its 64 hypotheses (6 sentences) for speed (14.1 to 14.8 sentences/s against 8.0 to 8.6 with 16).
GREEDY_HYPOTHESES = 16
BEAM_HYPOTHESES = 64


def default_hypotheses(beam: int) -> int:
    """The hypotheses per batch that decode fastest at this beam for the least memory (measured above)."""
    return GREEDY_HYPOTHESES if beam == 1 else BEAM_HYPOTHESES


def max_output_length(words: int) -> int:
    """Where decoding stops: linearized GUM trees have at most 5 tokens per word."""
    return 6 * words + 10


@dataclass
class Decoded:
    tokens: list[str]  # well-formed
    log_prob: float  # of the sequence the beam found (before any repair)
    repaired: bool


@dataclass
class Found:
    """A sequence the search ended with: target ids (END excluded) and its log-probability."""

    ids: list[int]
    log_prob: float


class _Grammar:
    """The target vocabulary's token kinds, as arrays, for masks over all hypotheses at once."""

    def __init__(self, parser: DecoderModel) -> None:
        strings = parser.targets.strings
        self.size = len(strings)
        self.leaf, self.end = parser.leaf_id, parser.end_id
        self.opens = parser.open_ids
        self.is_open = np.zeros(self.size, dtype=bool)
        self.is_open[self.opens] = True
        self.is_close = np.array([token.startswith(")") for token in strings])
        self.closing_of = np.full(self.size, -1)  # an opening bracket's closing token, -1 if it has none
        for token_id in self.opens:
            self.closing_of[token_id] = parser.close_ids.get(strings[token_id][1:], -1)


class _Slots:
    """Every hypothesis slot's search state: ``beam`` slots per sentence, NumPy arrays."""

    def __init__(self, sentences: int, beam: int, lengths: np.ndarray, depth: int, start: int) -> None:
        count = sentences * beam
        self.owner = np.repeat(np.arange(sentences), beam)  # the sentence of each slot
        self.words = lengths[self.owner]
        self.score = np.full(count, -np.inf)
        self.score[::beam] = 0.0  # one live hypothesis per sentence to start with
        self.previous = np.full(count, start)  # the decoder starts from END
        self.leaves = np.zeros(count, dtype=int)
        self.depth = np.zeros(count, dtype=int)
        self.closing = np.full((count, depth), -1)  # per open constituent, its closing token
        self.filled = np.zeros((count, depth), dtype=bool)
        self.history: list[tuple | None] = [None] * count  # (token, parent history) linked lists

    def take(self, parents: np.ndarray) -> None:
        """Each slot becomes a copy of its parent slot."""
        for name in ("owner", "words", "score", "previous", "leaves", "depth", "closing", "filled"):
            setattr(self, name, getattr(self, name)[parents])
        self.history = [self.history[p] for p in parents.tolist()]

    def advance(self, tokens: np.ndarray, grammar: _Grammar, constrained: bool) -> None:
        """The slots' prefixes extended by ``tokens`` (history is extended by the caller)."""
        self.previous = tokens
        leaf = tokens == grammar.leaf
        self.leaves = self.leaves + leaf
        if not constrained:
            return
        rows = np.arange(len(tokens))
        opened = grammar.is_open[tokens]
        has_open = self.depth > 0
        fill = (leaf | opened) & has_open
        self.filled[rows[fill], self.depth[fill] - 1] = True
        self.closing[rows[opened], self.depth[opened]] = grammar.closing_of[tokens[opened]]
        self.filled[rows[opened], self.depth[opened]] = False
        self.depth = self.depth + opened - grammar.is_close[tokens]

    def allowed(self, grammar: _Grammar) -> np.ndarray:
        """(tokens x slots): what each slot's prefix allows next (the rules of ``Prefix``)."""
        allowed = np.zeros((grammar.size, len(self.score)), dtype=bool)
        can_place = self.leaves < self.words
        allowed[grammar.leaf] = can_place
        allowed[grammar.opens] = can_place[None, :]
        rows = np.arange(len(self.score))
        top = np.maximum(self.depth - 1, 0)
        closable = (self.depth > 0) & self.filled[rows, top] & (self.closing[rows, top] >= 0)
        allowed[self.closing[rows[closable], top[closable]], rows[closable]] = True
        allowed[grammar.end] = (self.depth == 0) & (self.leaves == self.words)
        return allowed


def decoding_batches(lengths: Sequence[int], beam: int, hypotheses: int) -> list[list[int]]:
    """Sentence indices in batches, longest sentences first, of about ``hypotheses`` hypotheses each.

    A step's memory grows with hypotheses times words (attention), a sentence takes
    a number of steps that grows with its words, and the graph keeps every step's
    values until the batch ends: so a batch's memory grows with hypotheses times
    words squared, and batches of sentences longer than ``BUDGET_WORDS`` hold
    fewer hypotheses by that square (down to one sentence).  Longest first, DyNet's
    memory pool reaches its largest size at the first batch and is reused by the others.
    """
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    batches: list[list[int]] = []
    for index in order:
        if batches:
            longest = lengths[batches[-1][0]]
            allowed = max(1, hypotheses * BUDGET_WORDS**2 // max(longest, BUDGET_WORDS) ** 2 // beam)
            if len(batches[-1]) < allowed:
                batches[-1].append(index)
                continue
        batches.append([index])
    return batches


class Seq2SeqDecoding(ABC):
    """Beam search and k-best lists for a model or an ensemble of models (``members``).

    The subclass gives ``members`` (the models that score each step) and ``targets``
    (their shared output vocabulary).
    """

    targets: Vocabulary

    @property
    @abstractmethod
    def members(self) -> Sequence[DecoderModel]:
        """The models whose mean next-token distribution the search follows."""

    def beam_search(
        self, words: Sequence[str], beam: int = 10, constrained: bool = False, max_length: int | None = None
    ) -> list[tuple[list[str], float]]:
        """Up to ``beam`` finished sequences of the sentence, best first, with their log-probabilities.

        With ``constrained`` every step allows only the tokens that keep the
        sequence a prefix of a well-formed tree of ``len(words)`` leaves.  Should no
        sequence end within ``max_length`` tokens, the unfinished ones are returned.
        """
        return self.beam_search_batch([words], beam, constrained, max_length)[0]

    def beam_search_batch(
        self,
        batch: Sequence[Sequence[str]],
        beam: int = 10,
        constrained: bool = False,
        max_length: int | None = None,
    ) -> list[list[tuple[list[str], float]]]:
        """``beam_search`` of sentences of any lengths at once (see the module's docstring)."""
        found = _Search(self.members, batch, beam, constrained, max_length).run()
        return [[([self.targets.strings[i] for i in f.ids], f.log_prob) for f in sentence] for sentence in found]

    def decode(self, words: Sequence[str], beam: int = 10, constrained: bool = False) -> Decoded:
        """The best sequence of the beam, repaired into a tree of ``len(words)`` leaves if need be."""
        return well_formed(*self.beam_search(words, beam, constrained)[0], len(words))

    def decode_many(
        self,
        sentences: Sequence[Sequence[str]],
        beam: int = 10,
        constrained: bool = False,
        batch_size: int | None = None,
    ) -> list[Decoded]:
        """``decode`` of each sentence, in input order."""
        return [found[0] for found in self.kbest_many(sentences, beam, 1, constrained, batch_size)]

    def kbest_many(
        self,
        sentences: Sequence[Sequence[str]],
        beam: int = 10,
        k: int = 1,
        constrained: bool = False,
        batch_size: int | None = None,
    ) -> list[list[Decoded]]:
        """The ``k`` best sequences of each sentence's beam (best first, ``k <= beam``), in input order.

        Sentences are sorted by length and decoded ``batch_size`` hypotheses (sentences
        times beam) at a time (None: ``default_hypotheses(beam)``); the results are those
        of one sentence at a time, whatever the batch size.
        """
        hypotheses = batch_size or default_hypotheses(beam)
        decoded: list[list[Decoded]] = [[] for _ in sentences]
        for indices in decoding_batches([len(words) for words in sentences], beam, hypotheses):
            found = self.beam_search_batch([sentences[i] for i in indices], beam, constrained)
            for index, sequences in zip(indices, found, strict=True):
                words = len(sentences[index])
                decoded[index] = [well_formed(tokens, log_prob, words) for tokens, log_prob in sequences[:k]]
        return decoded


def well_formed(tokens: list[str], log_prob: float, words: int) -> Decoded:
    """The sequence as a tree of ``words`` leaves: as it is if well-formed, else repaired."""
    if is_well_formed(tokens, words):
        return Decoded(tokens, log_prob, False)
    return Decoded(repair(tokens, words), log_prob, True)


class _Search:
    """One batch's search: the graph, the slots, the members' states and each sentence's finished sequences."""

    def __init__(
        self,
        parsers: Sequence[DecoderModel],
        batch: Sequence[Sequence[str]],
        beam: int,
        constrained: bool,
        max_length: int | None,
    ) -> None:
        dy.renew_cg()
        first = parsers[0]
        self.beam, self.constrained = beam, constrained
        self.lengths = np.array([len(words) for words in batch])
        self.longest = int(self.lengths.max())
        self.limits = np.array([max_length or max_output_length(n) for n in self.lengths.tolist()])
        self.grammar = _Grammar(first)
        self.slots = _Slots(len(batch), beam, self.lengths, int(self.limits.max()) + 1, first.end_id)
        self.members = [Member(parser, batch, self.slots.owner.tolist()) for parser in parsers]
        self.finished: list[list[Found]] = [[] for _ in batch]
        self.done = np.zeros(len(batch), dtype=bool)

    def run(self) -> list[list[Found]]:
        slots = self.slots
        for step in range(int(self.limits.max())):
            log_probs = mixture_log_probs([member.step(slots, self.longest, self.beam) for member in self.members])
            log_probs[0] = -np.inf  # the unknown token is never an output
            if self.constrained:
                log_probs[~slots.allowed(self.grammar)] = -np.inf
            parents, tokens, scores = self._select(log_probs + slots.score[None, :])
            if not self.done.all():
                self._extend(parents, tokens, scores, step)
            if self.done.all():
                break
            for member in self.members:
                member.take(parents)
            live = ~self.done[slots.owner]
            if live.sum() <= 0.75 * len(live):  # compact: finished sentences leave the batch
                kept = np.flatnonzero(live)
                slots.take(kept)
                for member in self.members:
                    member.compact(kept, slots.owner, self.beam)
        return [sorted(found, key=lambda item: -item.log_prob)[: self.beam] for found in self.finished]

    def _extend(self, parents: np.ndarray, tokens: np.ndarray, scores: np.ndarray, step: int) -> None:
        """The slots become their parents extended by ``tokens``; sentences out of steps end as they are."""
        slots = self.slots
        history = slots.history
        slots.take(parents)
        slots.score = scores
        slots.history = [
            (token, history[parent]) if np.isfinite(score) else None
            for token, parent, score in zip(tokens.tolist(), parents.tolist(), scores.tolist(), strict=True)
        ]
        slots.advance(tokens, self.grammar, self.constrained)
        for sentence in np.flatnonzero(~self.done & (self.limits <= step + 1)).tolist():
            self._finish_unfinished(sentence)

    def _select(self, totals: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each live sentence's ``beam`` best extensions: END finishes one, the others fill its slots.

        ``totals`` is (tokens x slots), slots grouped by sentence.  Returns, for every
        slot, the slot it extends, the token it adds and its score (minus infinity
        for a slot left empty).  Marks sentences done once ``beam`` sequences have
        finished or nothing is left to extend.
        """
        slots, beam, grammar = self.slots, self.beam, self.grammar
        count = totals.shape[1] // beam
        owners = slots.owner[::beam]
        per_sentence = totals.reshape(grammar.size, count, beam).transpose(1, 0, 2).reshape(count, -1)
        per_sentence[self.done[owners]] = -np.inf
        best = np.argsort(-per_sentence, axis=1, kind="stable")[:, :beam]
        best_scores = np.take_along_axis(per_sentence, best, axis=1)
        tokens, positions = best // beam, best % beam
        valid = np.isfinite(best_scores)
        ending = valid & (tokens == grammar.end)
        going = valid & ~ending
        first_slot = np.arange(count)[:, None] * beam
        for row, rank in zip(*np.nonzero(ending), strict=True):
            parent = first_slot[row, 0] + positions[row, rank]
            self.finished[owners[row]].append(Found(_ids(slots.history[parent]), float(best_scores[row, rank])))
        order = np.argsort(~going, axis=1, kind="stable")  # continuing extensions first, in rank order
        chosen = np.take_along_axis(going, order, axis=1)
        parents = np.where(chosen, first_slot + np.take_along_axis(positions, order, axis=1), first_slot)
        new_tokens = np.where(chosen, np.take_along_axis(tokens, order, axis=1), grammar.end)
        scores = np.where(chosen, np.take_along_axis(best_scores, order, axis=1), -np.inf)
        for row, owner in enumerate(owners.tolist()):
            if not self.done[owner] and (len(self.finished[owner]) >= beam or not going[row].any()):
                self.done[owner] = True
        return parents.reshape(-1), new_tokens.reshape(-1), scores.reshape(-1)

    def _finish_unfinished(self, sentence: int) -> None:
        rows = np.flatnonzero((self.slots.owner == sentence) & np.isfinite(self.slots.score))
        for row in rows.tolist():
            self.finished[sentence].append(Found(_ids(self.slots.history[row]), float(self.slots.score[row])))
        self.done[sentence] = True


def _ids(history: tuple | None) -> list[int]:
    ids = []
    while history is not None:
        token, history = history
        ids.append(token)
    return ids[::-1]
