"""The loaded tagger: fills the UPOS, XPOS and FEATS columns of sentences, and LEMMA if it was trained to.

import lstmparse
tagger = lstmparse.load("models/en_ewt_pipeline/tagger")
for sentence in tagger.tag([["The", "dog", "barks", "."]]):
    print(sentence.to_conllu())

A column the input already fills is kept (a treebank's gold tags stay gold)
unless ``retag`` is asked for; a column no word of a sentence fills is predicted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from lstmparse.core.batching import SENTENCE_WINDOW, windows
from lstmparse.core.ensembles import TAGGER_ENSEMBLE, TagDistribution
from lstmparse.core.model_io import model_repr
from lstmparse.core.records import ModelRecord, read_record
from lstmparse.errors import ModelError
from lstmparse.io.formats import Sentence
from lstmparse.io.inputs import checked_sentences
from lstmparse.tagger.ensemble import TaggerEnsemble
from lstmparse.tagger.familiarity import expected_unknown_share, watched
from lstmparse.tagger.grouping import tag_all
from lstmparse.tagger.model import Tagger

UposSource = Callable[[list[Sentence]], list[TagDistribution]]  # a window's sentences -> their UPOS distributions


def _model_name(source) -> str:
    """How the warning names the model: a pipeline's part by its pipeline."""
    if source is None:
        return "the tagger"
    path = Path(source)
    return path.parent.name if path.name == "tagger" else path.name


class POSTagger:
    """A loaded UPOS, XPOS and FEATS tagger."""

    def __init__(self, model: Tagger | TaggerEnsemble, source: str | Path | None = None) -> None:
        self.model = model
        self.source = source  # the model directory, for repr
        words = model.vocabs.get("words")
        self.expected_unknown = expected_unknown_share(words) if words is not None else 0.0

    def __repr__(self) -> str:
        details = ", ".join(column.upper() for column in self.model.columns)
        if isinstance(self.model, TaggerEnsemble):
            details = f"ensemble of {len(self.model.members)}, {details}"
        return model_repr("tagger", self.source, details)

    @classmethod
    def load(cls, path: str | Path | ModelRecord) -> POSTagger:
        """A tagger's directory, or an ensemble's manifest (``lstmparse ensemble`` of taggers)."""
        record = read_record(path)
        if not record.path.exists():
            raise ModelError(f"{record.path}: no such model directory")
        if record.arch == TAGGER_ENSEMBLE:
            return cls(TaggerEnsemble.load(record), record.path)
        return cls(Tagger.load(record), record.path)

    def columns_to_fill(self, sentence: Sentence, retag: bool) -> list[str]:
        """The columns this tagger predicts that the sentence leaves blank (all it predicts with ``retag``)."""
        blank = sentence.blank_columns()
        return [column for column in self.model.columns if retag or column in blank]

    def tag(
        self,
        sentences: Iterable[Sentence | Sequence[str]],
        retag: bool = False,
        window_size: int = SENTENCE_WINDOW,
        upos_from: UposSource | None = None,
    ) -> Iterator[Sentence]:
        """Each sentence with its blank tag columns filled (all three with ``retag``), in order.

        Sentences are read and tagged ``window_size`` at a time (1: each as soon as it
        arrives, for interactive use); a sentence's tags never depend on its window.
        ``upos_from``: another model's UPOS distributions for a window's sentences (a joint
        parser's, ``Pipeline.tag``), averaged with the tagger's where it fills UPOS.
        A string where sentences belong raises here, at the call.
        """
        checked = checked_sentences(sentences)
        if "words" in self.model.vocabs and "chars" in self.model.vocabs:
            vocabs, name = self.model.vocabs, _model_name(self.source)
            checked = watched(checked, vocabs["words"], vocabs["chars"], name, self.expected_unknown)
        return self._tagged(checked, retag, window_size, upos_from)

    def _tagged(
        self, sentences: Iterator[Sentence], retag: bool, window_size: int, upos_from: UposSource | None
    ) -> Iterator[Sentence]:
        tags_feats = "feats" in self.model.columns  # its sentences' FEATS are its answer, blank or not
        for window in windows(sentences, window_size):
            needed = [self.columns_to_fill(sentence, retag) for sentence in window]
            todo = [k for k, columns in enumerate(needed) if columns]
            forms = [window[k].forms for k in todo]
            given = [_given_upos(window[k], needed[k]) for k in todo]
            others = _other_upos(upos_from, [window[k] for k in todo], [needed[k] for k in todo])
            predicted = dict(zip(todo, tag_all(self.model, forms, given, others), strict=True))
            for k, sentence in enumerate(window):
                if k in predicted:
                    sentence = sentence.with_columns({column: predicted[k][column] for column in needed[k]})
                yield replace(sentence, feats_tagged=True) if tags_feats else sentence


def _given_upos(sentence: Sentence, filled: list[str]) -> list[str]:
    """The sentence's UPOS, which the tagger keeps and tags the other columns for (blank where it fills UPOS)."""
    if "upos" in filled:
        return ["_"] * len(sentence.tokens)
    return [token.upos for token in sentence.tokens]


def _other_upos(
    upos_from: UposSource | None, sentences: list[Sentence], needed: list[list[str]]
) -> list[TagDistribution | None] | None:
    """``upos_from``'s distributions for the sentences whose UPOS the tagger fills, None for the others."""
    if upos_from is None:
        return None
    filling = [k for k, columns in enumerate(needed) if "upos" in columns]
    others: list[TagDistribution | None] = [None] * len(sentences)
    for k, distribution in zip(filling, upos_from([sentences[k] for k in filling]), strict=True):
        others[k] = distribution
    return others
