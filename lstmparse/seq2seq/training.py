"""Training the sequence-to-sequence constituency parser.

Minibatches of 16 sentences of one length (one dense graph each, see
:mod:`lstmparse.seq2seq`), Adam (alpha 0.002) on the loss per output token with
gradient norms rescaled to 5, dropout 0.2 between layers: on GUM this learned about
twice as fast per epoch as batches of 32 with alpha 0.001 and dropout 0.3.  After every epoch dev is parsed greedily
(beam 1), with decoding constrained to well-formed trees and, for the record, the
paper's way (repair afterwards), and scored with EVALB's conventions; the model
directory always holds the model with the best constrained dev F1 so far.  The paper trained with SGD for days on a GPU;
Adam reaches a usable model within the hour a CPU gives.  ``resume`` continues from
that best model (the epochs after it are trained again; Adam's moment estimates,
which DyNet does not save, start afresh).
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from typing import TextIO

import numpy as np

from lstmparse.core.batching import length_batches
from lstmparse.core.training import (
    TrainingHooks,
    adam_trainer,
    epoch_entry,
    minibatch_epoch,
    new_record,
    seed_epoch,
    train_epochs,
)
from lstmparse.core.vocab import Vocabulary
from lstmparse.errors import ConfigurationError
from lstmparse.io.ptb import PTBTree, read_ptb
from lstmparse.layers.embeddings import read_word2vec
from lstmparse.scoring.evalb import BracketScores, score_bracketings
from lstmparse.seq2seq.linearization import delinearize, linearize
from lstmparse.seq2seq.model import END, Seq2SeqParser
from lstmparse.seq2seq.options import Seq2SeqDimensions, Seq2SeqOptions


def build_parser(trees: Sequence[PTBTree], dims: Seq2SeqDimensions, pretrained: str | None) -> Seq2SeqParser:
    """An untrained parser with the training data's words and output tokens."""
    words = Vocabulary.from_counts(Counter(w for tree in trees for w in tree.words))
    targets = Vocabulary.from_counts(Counter(token for tree in trees for token in linearize(tree)))
    targets.add(END)
    chars = Vocabulary.from_counts(Counter(c for tree in trees for w in tree.words for c in w)) if dims.chars else None
    if pretrained is None:
        return Seq2SeqParser(words, targets, dims, chars=chars)
    vector_words, vectors = read_word2vec(pretrained)
    dims.pretrained = vectors.shape[1]
    parser = Seq2SeqParser(words, targets, dims, Vocabulary(vector_words), chars)
    parser.pretrained_embeddings.init_from_array(np.concatenate([np.zeros((1, vectors.shape[1])), vectors]))
    return parser


def evaluate_seq2seq(
    parser: Seq2SeqParser, trees: Sequence[PTBTree], beam: int = 1, constrained: bool = True
) -> tuple[BracketScores, int]:
    """EVALB scores of the parser on ``trees`` (their gold tags on the output) and the repairs needed."""
    decoded = parser.decode_many([tree.words for tree in trees], beam, constrained)
    system = [delinearize(d.tokens, tree.words, tree.tags) for d, tree in zip(decoded, trees, strict=True)]
    return score_bracketings(trees, system), sum(d.repaired for d in decoded)


def train_seq2seq(options: Seq2SeqOptions, log: TextIO = sys.stderr) -> dict:
    """Train and write the best model (dev F1) to ``options.model_dir``."""
    started = time.time()
    seed_epoch(options.seed, -1)
    train_trees = read_ptb(options.train)
    dev_trees = read_ptb(options.dev) if options.dev else []
    examples = [(tree.words, linearize(tree)) for tree in train_trees]
    record = new_record(options)
    if options.resume:
        parser = resumed_parser(options, record, log)
        record = parser.training_record
    else:
        parser = build_parser(train_trees, options.dims, options.pretrained)
    print(
        f"training a seq2seq parser on {len(train_trees)} trees, {len(parser.words)} words, "
        f"{len(parser.targets)} output tokens, {parser.model.parameter_count()} parameters",
        file=log,
    )
    previous_best = record.get("best_dev_f1")
    best = previous_best if previous_best is not None else -math.inf
    hooks = Seq2SeqTraining(parser, examples, dev_trees, options)
    return train_epochs(hooks, options, record, best, log, started)


class Seq2SeqTraining(TrainingHooks):
    """The seq2seq parser's part in the shared loop: Adam over length batches, dev F1 (constrained)."""

    loss_name = "loss_per_token"
    loss_digits = 4

    def __init__(self, parser: Seq2SeqParser, examples: list, dev: Sequence[PTBTree], options: Seq2SeqOptions) -> None:
        self.parser, self.examples, self.dev, self.options = parser, examples, dev, options
        self.dev_seconds_guess = len(dev) / 50.0
        self.trainer = adam_trainer(parser.model, options)

    def train_epoch(self, epoch: int, stop_at: float | None) -> dict:
        examples = random.sample(self.examples, len(self.examples))
        batches = length_batches(examples, lambda e: len(e[0]), self.options.batch_size)
        self.parser.set_dropout(self.options.dropout)
        run = minibatch_epoch(self.parser.batch_loss, self.trainer, batches, _target_tokens, stop_at, epoch)
        self.parser.set_dropout(0.0)
        return epoch_entry(epoch, run.examples, run.seconds, loss_per_token=run.loss / max(run.units, 1))

    def evaluate(self) -> tuple[float, dict] | None:
        if not self.dev:
            return None
        scores, _ = evaluate_seq2seq(self.parser, self.dev, constrained=True)
        paper_scores, repaired = evaluate_seq2seq(self.parser, self.dev, constrained=False)
        fields = {"dev_f1": round(scores.f1, 2), "dev_f1_unconstrained": round(paper_scores.f1, 2)}
        return scores.f1, fields | {"dev_repaired": repaired}

    def untested_score(self, entry: dict) -> float | None:
        return -entry["loss_per_token"]

    def save(self, model_dir: str, record: dict) -> None:
        record["best_dev_f1"] = record["epochs"][-1].get("dev_f1")
        self.parser.save(model_dir, training=record)

    def dev_report(self, entry: dict) -> str:
        return (
            f"dev F1 {entry['dev_f1']:.2f}; unconstrained {entry['dev_f1_unconstrained']:.2f} with "
            f"{entry['dev_repaired']} repaired"
        )


def _target_tokens(batch: list) -> int:
    """What a batch's loss is summed over: each target token and the END after it."""
    return sum(len(target) + 1 for _, target in batch)


def resumed_parser(options: Seq2SeqOptions, record: dict, log: TextIO) -> Seq2SeqParser:
    """The best model so far of an interrupted run, checked to be the same run.

    Only the learning rate may change (a smaller one to fine-tune after a plateau);
    the change is logged and kept in the record.
    """
    parser = Seq2SeqParser.load(options.model_dir, fused=False)  # training goes on as it began
    previous = parser.training_record
    different = [
        key for key, value in record.items() if key not in ("epochs", "learning_rate") and previous.get(key) != value
    ]
    if asdict(parser.dims) != asdict(options.dims) | {"pretrained": parser.dims.pretrained}:
        different.append("dimensions")
    if different:
        raise ConfigurationError(f"{options.model_dir} was trained with other {', '.join(different)}; not resuming")
    epochs = previous.get("epochs", [])
    previous["epochs"] = epochs[: previous.get("best_epoch", len(epochs))]
    print(f"resuming from {options.model_dir} after epoch {len(previous['epochs'])}", file=log)
    if previous.get("learning_rate") != options.learning_rate:
        print(f"learning rate {options.learning_rate} (was {previous.get('learning_rate')})", file=log)
        previous.setdefault("learning_rate_changes", []).append(
            {"after_epoch": len(previous["epochs"]), "from": previous.get("learning_rate"), "to": options.learning_rate}
        )
        previous["learning_rate"] = options.learning_rate
    return parser
