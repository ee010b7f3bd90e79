"""Ensembles of seq2seq constituency parsers (Vinyals et al. 2015, section 3: "an ensemble of 5 LSTM+A+D models").

Each step's distribution over the next output token is the mean of the members'
distributions, given the same prefix; beam search follows it exactly as it follows
one model's (:mod:`lstmparse.seq2seq.decoding`), and a sequence's score is its
log-probability under that mixture.  Members are independently trained models of
one output vocabulary (other seeds, other options); their errors differ, so the mean
is more accurate than each, at the cost of one encoder and decoder per member.
``lstmparse ensemble A B --output DIR`` writes the manifest
(:mod:`lstmparse.core.ensembles`); the directory then parses like a model.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lstmparse.core.ensembles import checked_members, member_directories, mixture_log_probs
from lstmparse.core.records import ModelRecord
from lstmparse.seq2seq.decoding import Seq2SeqDecoding
from lstmparse.seq2seq.model import Seq2SeqParser


class Seq2SeqEnsemble(Seq2SeqDecoding):
    """Seq2seq parsers decoded as one model: the mean of their next-token distributions."""

    def __init__(self, parsers: Sequence[Seq2SeqParser]) -> None:
        mismatch = "the members of an ensemble must share one output vocabulary"
        self.parsers = checked_members(parsers, lambda parser: tuple(parser.targets.strings), mismatch)
        self.targets = parsers[0].targets
        self.training_record = {"members": [parser.training_record for parser in parsers]}

    @property
    def members(self) -> Sequence[Seq2SeqParser]:
        return self.parsers

    def log_prob(self, words: Sequence[str], tokens: Sequence[str]) -> float:
        """log P(tokens, END | words) under the mixture: what beam search scores a finished sequence with."""
        per_member = [parser.token_log_probs(words, tokens) for parser in self.parsers]
        return float(mixture_log_probs(per_member).sum())

    @classmethod
    def load(cls, directory: str | Path | ModelRecord) -> Seq2SeqEnsemble:
        return cls([Seq2SeqParser.load(str(member)) for member in member_directories(directory)])
