"""A model scored on a gold treebank the way users report it: from the treebank's raw text or from its gold tokens.

This is UDPipe's ``--accuracy`` mode.  From raw text, the gold file's text is
rebuilt as the CoNLL 2018 shared task gave it to systems: each sentence's tokens
with their ``SpaceAfter=No``, sentences joined inside a paragraph, a paragraph
break at ``# newpar``/``# newdoc`` (a treebank that marks neither is one
paragraph), so that the model must find the tokens, words and sentences itself.
From gold tokens, the gold words are given with the columns the model's tagger
predicts blanked (a parser without a tagger reads the gold tags, as it was
trained to).  Either way the output is scored by the CoNLL 2018 measures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lstmparse.errors import ConfigurationError
from lstmparse.io.formats import TAG_COLUMNS, Sentence
from lstmparse.scoring.conll18 import Score, document, score_documents, unannotated_measures
from lstmparse.tokenizer.data import raw_text_paragraphs

SOURCES = ("raw", "tokens")


@dataclass
class AccuracyRun:
    """What a model made of a gold file: its sentences, the scores, and how its input was made."""

    sentences: list[Sentence]
    scores: dict[str, Score]
    input_note: str
    unannotated: dict[str, str] = field(default_factory=dict)  # measures the gold file cannot judge

    def f1(self) -> dict[str, float]:
        """Each CoNLL 2018 measure's F1, in percent, rounded as the official scorer prints it (those judged)."""
        return {name: round(score.f1, 2) for name, score in self.scores.items() if name not in self.unannotated}


def blank_columns(gold: Sequence[Sentence], columns: Sequence[str]) -> list[Sentence]:
    """The gold sentences with the given tag columns (``lemma``, ``upos``, ...) set to ``_``."""
    return [sentence.with_columns({c: ["_"] * len(sentence) for c in columns}) for sentence in gold]


def run_model(pipeline, gold: Sequence[Sentence], source: str, beam: int | None = None) -> AccuracyRun:
    """``pipeline`` (a loaded :class:`~lstmparse.pipeline.api.Pipeline`, any of its parts present) on ``gold``
    (``beam`` ``None``: the pipeline's own), scored."""
    output, note = model_output(pipeline, gold, source, beam)
    scores = score_documents(document(gold), document(output))
    return AccuracyRun(output, scores, note, unannotated_measures(gold))


def model_output(
    pipeline, gold: Sequence[Sentence], source: str, beam: int | None = None
) -> tuple[list[Sentence], str]:
    """What ``pipeline`` makes of ``gold``'s raw text or tokens, and a note saying which: the work a speed
    measure times (the scoring is not parsing)."""
    from lstmparse.tokenizer.api import RawParagraph

    if source not in SOURCES:
        raise ConfigurationError(f"--from {source}: choose one of {', '.join(SOURCES)}")
    if source == "raw":
        if pipeline.tokenizer is None:
            raise ConfigurationError(
                "--from raw needs a model with a tokenizer (a pipeline); this one reads tokens: use --from tokens"
            )
        texts, note = raw_text_paragraphs(gold)
        sentences = list(pipeline.tokenizer.tokenize_paragraphs([RawParagraph(text) for text in texts]))
    else:
        blanked = list(TAG_COLUMNS) if pipeline.tagger is not None else []
        sentences = blank_columns(gold, blanked)
        what = "the tag and lemma columns blanked" if blanked else "their gold tags (the model has no tagger)"
        note = f"{len(gold)} gold sentences' tokens with {what}"
    if pipeline.parser is None:
        return list(pipeline.tag(sentences, retag=source == "tokens")), note
    return [best for best, *_ in pipeline.candidates(sentences, beam, 1)], note


def evaluate_model(model: str | Path, gold_path: str, source: str, beam: int | None = None) -> AccuracyRun:
    """Load ``model`` (a name or directory: a pipeline, a parser, a tagger) and score it on ``gold_path``."""
    from lstmparse.app.catalog import resolve_model
    from lstmparse.core.backend import configure_defaults
    from lstmparse.io.formats import read_sentences

    configure_defaults()
    from lstmparse.pipeline.api import Pipeline

    gold = list(read_sentences(gold_path))
    if not gold:
        raise ConfigurationError(f"{gold_path}: no sentences to score against")
    return run_model(Pipeline.assemble(resolve_model(model)), gold, source, beam)
