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
from dataclasses import asdict, dataclass, field
from typing import TextIO

import dynet as dy
import numpy as np

from .errors import ConfigurationError
from .evalb import BracketScores, score_bracketings
from .linearization import delinearize, linearize
from .ptb import PTBTree, read_ptb
from .seq2seq import END, Seq2SeqDimensions, Seq2SeqParser, length_batches
from .tokens import read_word2vec
from .training import run_epoch, seed_epoch
from .vocab import Vocabulary


@dataclass
class Seq2SeqOptions:
    train: str
    model_dir: str
    dev: str | None = None
    epochs: int = 30
    max_minutes: float | None = None
    batch_size: int = 16
    learning_rate: float = 0.002
    dropout: float = 0.2
    clip: float = 5.0
    seed: int | None = 1
    pretrained: str | None = None
    dims: Seq2SeqDimensions = field(default_factory=Seq2SeqDimensions)
    resume: bool = False  # continue from the model in model_dir (Adam's moments start afresh)


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
    deadline = started + 60 * options.max_minutes if options.max_minutes else None
    seed_epoch(options.seed, -1)
    train_trees = read_ptb(options.train)
    dev_trees = read_ptb(options.dev) if options.dev else []
    examples = [(tree.words, linearize(tree)) for tree in train_trees]
    record = {
        "train": options.train,
        "dev": options.dev,
        "batch_size": options.batch_size,
        "learning_rate": options.learning_rate,
        "dropout": options.dropout,
        "seed": options.seed,
        "epochs": [],
    }
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
    trainer = dy.AdamTrainer(parser.model, alpha=options.learning_rate)
    trainer.set_clip_threshold(options.clip)
    best = record.get("best_dev_f1") if record.get("best_dev_f1") is not None else -math.inf
    dev_seconds = len(dev_trees) / 50.0
    for epoch in range(len(record["epochs"]), options.epochs):
        seed_epoch(options.seed, epoch)
        entry = _train_one_epoch(parser, trainer, examples, options, epoch, deadline, dev_seconds)
        score = -entry["loss_per_token"]
        if dev_trees:
            eval_start = time.time()
            scores, _ = evaluate_seq2seq(parser, dev_trees, constrained=True)
            paper_scores, repaired = evaluate_seq2seq(parser, dev_trees, constrained=False)
            dev_seconds = time.time() - eval_start
            score = scores.f1
            entry.update(
                dev_f1=round(scores.f1, 2),
                dev_f1_unconstrained=round(paper_scores.f1, 2),
                dev_repaired=repaired,
                dev_seconds=round(dev_seconds, 1),
            )
        record["epochs"].append(entry)
        improved = score > best
        if improved:
            best = score
            record.update(best_epoch=epoch + 1, best_dev_f1=entry.get("dev_f1"))
            parser.save(options.model_dir, training=record)
        print(_epoch_line(entry, improved), file=log, flush=True)
        if entry["sentences"] < len(examples):
            print(f"time budget of {options.max_minutes} minutes reached", file=log)
            break
    record["total_seconds"] = round(time.time() - started, 1)
    return record


def resumed_parser(options: Seq2SeqOptions, record: dict, log: TextIO) -> Seq2SeqParser:
    """The best model so far of an interrupted run, checked to be the same run.

    Only the learning rate may change (a smaller one to fine-tune after a plateau);
    the change is logged and kept in the record.
    """
    parser = Seq2SeqParser.load(options.model_dir)
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


def _train_one_epoch(parser, trainer, examples, options, epoch, deadline, dev_seconds) -> dict:
    batches = length_batches(random.sample(examples, len(examples)), lambda e: len(e[0]), options.batch_size)
    parser.set_dropout(options.dropout)
    epoch_start = time.time()
    loss, tokens, seen_batches = run_epoch(
        parser.batch_loss,
        trainer,
        batches,
        1,
        None if deadline is None else deadline - 1.2 * dev_seconds,
        f"epoch {epoch + 1}",
        units=lambda batch: sum(len(target) + 1 for _, target in batch),
        mean=True,
        autobatching=False,
    )
    parser.set_dropout(0.0)
    seconds = time.time() - epoch_start
    seen = sum(len(batch) for batch in batches[:seen_batches])
    return {
        "epoch": epoch + 1,
        "sentences": seen,
        "train_seconds": round(seconds, 1),
        "sentences_per_second": round(seen / max(seconds, 1e-9), 1),
        "loss_per_token": loss / max(tokens, 1),
    }


def _epoch_line(entry: dict, improved: bool) -> str:
    line = (
        f"epoch {entry['epoch']}: loss/token {entry['loss_per_token']:.4f}  "
        f"{entry['train_seconds']:.0f} s ({entry['sentences_per_second']:.0f} sent/s)"
    )
    if "dev_f1" in entry:
        line += (
            f"  dev F1 {entry['dev_f1']:.2f}; unconstrained {entry['dev_f1_unconstrained']:.2f} with "
            f"{entry['dev_repaired']} repaired ({entry['dev_seconds']:.0f} s)"
        )
    return line + ("  saved" if improved else "")
