"""Training the tokenizer: Adam on batches of character windows, the best dev segmentation kept.

Each epoch cuts every training paragraph into windows from a random offset, so
the network sees each character at many places within a window.  After every
epoch the dev paragraphs are segmented; the model directory keeps the epoch with
the best mean of token F1 and sentence F1 (tokens are right for almost every
model, sentences tell models apart).
"""

from __future__ import annotations

import dataclasses
import math
import random
import sys
import time
from collections.abc import Sequence
from typing import TextIO

import dynet as dy
import numpy as np

from lstmparse.core.model_io import update_vocab
from lstmparse.core.training import (
    TrainingHooks,
    adam_trainer,
    epoch_entry,
    minibatch_epoch,
    new_record,
    seed_epoch,
    train_epochs,
)
from lstmparse.errors import InputError
from lstmparse.io.formats import read_sentences
from lstmparse.tokenizer.data import Paragraph, paragraphs, spaces_inside_tokens, surface_tokens
from lstmparse.tokenizer.lexicon import Lexicon, held_out_marks
from lstmparse.tokenizer.model import CharacterLabeller
from lstmparse.tokenizer.options import TokenizerOptions
from lstmparse.tokenizer.segmentation import Span, label_paragraphs, segment, sentences_of
from lstmparse.tokenizer.words import MultiwordLookup, MultiwordSplitter


def _labelled_chars(batch: list) -> int:
    """The characters of a batch's windows that carry a label (context characters do not)."""
    return sum(sum(label >= 0 for label in labels) for _, labels in batch)


def read_paragraphs(path: str) -> tuple[list[Paragraph], MultiwordSplitter, MultiwordLookup]:
    """A treebank's labelled paragraphs and what its multi-word tokens teach (the lookup learned, not set)."""
    sentences = list(read_sentences(path))
    found = list(paragraphs(sentences))
    if not found:
        raise InputError(path, None, "no text to learn tokenization from")
    tokens = [t for s in sentences for t in surface_tokens(s)]
    splitter = MultiwordSplitter.learn((t.form, t.words) for t in tokens if t.is_multiword)
    return found, splitter, MultiwordLookup.learn((t.form, t.is_multiword) for t in tokens)


def token_spans(paragraph: Paragraph) -> list[tuple[int, int]]:
    """The character spans of a labelled paragraph's tokens."""
    return [(span.start, span.end) for sentence in sentences_of(paragraph.text, paragraph.labels) for span in sentence]


def training_lexicon(train: Sequence[Paragraph]) -> Lexicon:
    """The training words of several syllables, which the tokenizer reads in any text it is given."""
    return Lexicon.from_forms(p.text[start:end] for p in train for start, end in token_spans(p))


def f1(gold: set, system: set) -> float:
    return 200.0 * len(gold & system) / max(len(gold) + len(system), 1)


def spans_of(segmentations: Sequence[list[list[Span]]]) -> tuple[set, set]:
    """Every (paragraph, token span) and every (paragraph, sentence start, sentence end) of a segmentation."""
    tokens: set[tuple[int, Span]] = set()
    sentences: set[tuple[int, int, int]] = set()
    for index, paragraph in enumerate(segmentations):
        for sentence in paragraph:
            tokens.update((index, span) for span in sentence)
            sentences.add((index, sentence[0].start, sentence[-1].end))
    return tokens, sentences


def segmentation_scores(labeller: CharacterLabeller, dev: Sequence[Paragraph]) -> dict[str, float]:
    """Token, multi-word token and sentence F1 of the labeller's segmentation of ``dev``."""
    return scores_of(labeller, dev, segmented(labeller, dev))


def segmented(labeller: CharacterLabeller, dev: Sequence[Paragraph]) -> list[list[list[Span]]]:
    """Each dev paragraph's sentences as the network segments them (multi-word tokens as it marks them)."""
    log_probs = label_paragraphs(labeller, [p.text for p in dev])
    spaces, joins = labeller.dims.spaces_in_tokens, labeller.joins
    return [segment(p.text, values, spaces, joins) for p, values in zip(dev, log_probs, strict=True)]


def scores_of(
    labeller: CharacterLabeller, dev: Sequence[Paragraph], segmentations: list[list[list[Span]]]
) -> dict[str, float]:
    """F1 of ``segmentations`` of ``dev``, with the multi-word decisions of the labeller's splitter."""
    gold_tokens, gold_sentences = spans_of([sentences_of(p.text, p.labels) for p in dev])
    system_tokens, system_sentences = spans_of(
        [decided_multiwords(labeller, p.text, found) for p, found in zip(dev, segmentations, strict=True)]
    )
    multiword = {t for t in gold_tokens if t[1].multiword}, {t for t in system_tokens if t[1].multiword}
    return {
        "tokens_f1": round(f1(gold_tokens, system_tokens), 2),
        "multiword_f1": round(f1(*multiword), 2),
        "sentences_f1": round(f1(gold_sentences, system_sentences), 2),
    }


def decided_multiwords(labeller: CharacterLabeller, text: str, sentences: list[list[Span]]) -> list[list[Span]]:
    """A paragraph's token spans with the multi-word decisions that parsing makes (the splitter's lookup's)."""
    decide = labeller.splitter.is_multiword
    return [
        [dataclasses.replace(span, multiword=decide(text[span.start : span.end], span.multiword)) for span in sentence]
        for sentence in sentences
    ]


def choose_lookup(labeller: CharacterLabeller, lookup: MultiwordLookup, dev: Sequence[Paragraph]) -> dict:
    """Store the training tokens' lookup in the labeller's splitter, used if it raises dev's multi-word token F1.

    Dev decides per treebank (see :class:`MultiwordLookup`); without dev, or with no
    multi-word tokens in it, the tokenizer's marks stand.  The network segments dev
    once: the lookup changes only which of its tokens are multi-word.  The lookup is
    stored either way, so that a pipeline's choices (``multiword_lookup``) can decide
    again on the pipeline as it ships.  Returns both F1 figures.
    """
    found = segmented(labeller, dev) if dev else []
    labeller.splitter.lookup = lookup
    labeller.splitter.use_lookup = False
    without = scores_of(labeller, dev, found)["multiword_f1"]
    labeller.splitter.use_lookup = True
    with_lookup = scores_of(labeller, dev, found)["multiword_f1"]
    labeller.splitter.use_lookup = with_lookup > without
    return {"dev_multiword_f1_marks": without, "dev_multiword_f1_lookup": with_lookup}


def train_tokenizer(options: TokenizerOptions, log: TextIO = sys.stderr) -> dict:
    """Train and write the best tokenizer (dev tokens and sentences) to ``options.model_dir``."""
    started = time.time()
    seed_epoch(options.seed, -1)
    train, splitter, lookup = read_paragraphs(options.train)
    dev = read_paragraphs(options.dev)[0] if options.dev else []
    spaces = spaces_inside_tokens(train)
    dims = dataclasses.replace(options.dims, spaces_in_tokens=spaces, lexicon=options.dims.lexicon and spaces)
    lexicon = training_lexicon(train) if dims.lexicon else None
    labeller = CharacterLabeller.from_paragraphs(train, splitter, dims, lexicon)
    record = new_record(options)
    words = f", {len(lexicon)} words of several syllables" if lexicon is not None else ""
    print(
        f"training a tokenizer on {len(train)} paragraphs, {sum(len(p.text) for p in train)} characters, "
        f"{len(splitter.splits)} multi-word token forms{words}, {len(labeller.joins)} contexts never split, "
        f"{labeller.model.parameter_count()} parameters",
        file=log,
    )
    record = train_epochs(TokenizerTraining(labeller, train, dev, options), options, record, -math.inf, log, started)
    if dev:
        record["multiword_lookup"] = keep_lookup_if_better(options.model_dir, lookup, dev, log)
    return record


def keep_lookup_if_better(model_dir: str, lookup: MultiwordLookup, dev: Sequence[Paragraph], log: TextIO) -> dict:
    """The trained tokenizer in ``model_dir`` keeps the training tokens' lookup if dev says so (its files rewritten).

    Only the vocabulary and the training record change: the parameters are written back
    as they are stored (a half-precision model stays one).
    """
    labeller = CharacterLabeller.load(model_dir)
    figures = choose_lookup(labeller, lookup, dev)
    kept = labeller.splitter.use_lookup
    print(
        f"multi-word tokens on dev: F1 {figures['dev_multiword_f1_marks']:.2f} as the tokenizer marks them, "
        f"{figures['dev_multiword_f1_lookup']:.2f} with the training tokens' lookup: {'kept' if kept else 'not kept'}",
        file=log,
    )
    figures["kept"] = kept
    update_vocab(model_dir, {"multiword": labeller.splitter.to_json()}, {"multiword_lookup": figures})
    return figures


class TokenizerTraining(TrainingHooks):
    """The tokenizer's part in the shared loop: windows from random offsets, dev token and sentence F1."""

    loss_name = "loss_per_char"
    speed = ("characters_per_second", "chars/s")  # its examples are paragraphs, of any length

    def __init__(
        self, labeller: CharacterLabeller, train: list[Paragraph], dev: list[Paragraph], options: TokenizerOptions
    ) -> None:
        self.labeller, self.examples, self.dev, self.options = labeller, train, dev, options
        self.codes = [labeller.encode(p.text, marks) for p, marks in zip(train, self._marks(train), strict=True)]
        self.dev_seconds_guess = sum(len(p.text) for p in dev) / 20000.0
        self.trainer = adam_trainer(labeller.model, options)

    def _marks(self, train: list[Paragraph]) -> list[np.ndarray | None]:
        """The training text's lexicon marks, each part marked with the words of the others (why: lexicon.py)."""
        if self.labeller.lexicon is None:
            return [None] * len(train)
        return list(held_out_marks([p.text for p in train], [token_spans(p) for p in train]))

    def windows(self) -> list[tuple[np.ndarray, list[int]]]:
        """Every training paragraph cut into windows from a random offset: (window codes, labels)."""
        window = self.labeller.dims.window
        examples = []
        for paragraph, codes in zip(self.examples, self.codes, strict=True):
            shift = random.randrange(window)
            for start in range(-shift, len(paragraph.text), window):
                labels = [
                    paragraph.labels[i] if 0 <= i < len(paragraph.text) else -1 for i in range(start, start + window)
                ]
                if any(label >= 0 for label in labels):
                    examples.append((self.labeller.window(codes, start), labels))
        random.shuffle(examples)
        return examples

    def batch_loss(self, batch: list) -> dy.Expression:
        return self.labeller.loss([inputs for inputs, _ in batch], [labels for _, labels in batch])

    def train_epoch(self, epoch: int, stop_at: float | None) -> dict:
        windows = self.windows()
        size = self.options.batch_size
        batches = [windows[start : start + size] for start in range(0, len(windows), size)]
        self.labeller.set_dropout(self.options.dropout)
        run = minibatch_epoch(self.batch_loss, self.trainer, batches, _labelled_chars, stop_at, epoch, unit="windows")
        self.labeller.set_dropout(0.0)
        paragraphs = len(self.examples)
        paragraphs_seen = paragraphs if run.batches == len(batches) else paragraphs * run.batches // len(batches)
        return epoch_entry(
            epoch,
            paragraphs_seen,
            run.seconds,
            loss_per_char=run.loss / max(run.units, 1),
            characters_per_second=round(run.units / max(run.seconds, 1e-9)),
        )

    def evaluate(self) -> tuple[float, dict] | None:
        if not self.dev:
            return None
        scores = segmentation_scores(self.labeller, self.dev)
        return (scores["tokens_f1"] + scores["sentences_f1"]) / 2, {f"dev_{k}": v for k, v in scores.items()}

    def untested_score(self, entry: dict) -> float | None:
        return -entry["loss_per_char"]

    def save(self, model_dir: str, record: dict) -> None:
        record["best_dev_tokens_f1"] = record["epochs"][-1].get("dev_tokens_f1")
        record["best_dev_sentences_f1"] = record["epochs"][-1].get("dev_sentences_f1")
        self.labeller.save(model_dir, training=record)

    def dev_report(self, entry: dict) -> str:
        return (
            f"dev tokens F1 {entry['dev_tokens_f1']:.2f}  multi-word {entry['dev_multiword_f1']:.2f}  "
            f"sentences F1 {entry['dev_sentences_f1']:.2f}"
        )
