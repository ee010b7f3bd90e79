"""Training a (Ld)TreeLSTM on a dependency treebank (Zhang, Lu & Lapata 2016, section 3).

SGD from learning rate 1.0 on the mean loss of a minibatch of trees (one graph,
autobatched), gradient-norm rescaling, and the learning rate halved whenever the
log-likelihood of dev stops improving.  Words seen at most ``min_count`` times in
training map to UNK.  The model directory always holds the model with the best dev
perplexity so far.
"""

from __future__ import annotations

import math
import sys
import time
from collections import Counter
from collections.abc import Sequence
from typing import TextIO

import dynet as dy

from lstmparse.core.training import (
    TrainingHooks,
    Updates,
    epoch_entry,
    new_record,
    run_epoch,
    shuffled_batches,
    summed,
    train_epochs,
)
from lstmparse.core.vocab import UNK, Vocabulary
from lstmparse.errors import InputError
from lstmparse.io.formats import Sentence, read_treebank
from lstmparse.io.tree import tree_problem
from lstmparse.treelstm.model import ROOT_WORD, TreeLSTM, TreeScore
from lstmparse.treelstm.options import TreeLSTMOptions

MAX_HALVINGS = 8  # stop once the learning rate has been halved this often


def read_trees(path: str, fmt: str = "conllu") -> list[Sentence]:
    """A treebank whose every sentence is one well-formed tree (else ``file:line:`` error)."""
    sentences = read_treebank(path, fmt)
    for sentence in sentences:
        problem = tree_problem(sentence.gold_heads)
        if problem:
            raise InputError(sentence.path, sentence.first_line, f"not a tree: {problem}")
    return sentences


def tree_vocabulary(sentences: Sequence[Sentence], min_count: int) -> Vocabulary:
    """Words seen more than ``min_count`` times, plus ROOT; UNK's count is that of the rest."""
    counts = Counter(form for sentence in sentences for form in sentence.forms)
    kept = Vocabulary.from_counts(counts, min_count + 1)
    kept.add(ROOT_WORD)
    kept.counts[UNK] = sum(c for word, c in counts.items() if word not in kept)
    return kept


def tree_scores(model: TreeLSTM, sentences: Sequence[Sentence]) -> list[TreeScore]:
    """log P(S|T) of each sentence's tree."""
    return model.score_trees([(s.forms, s.gold_heads) for s in sentences])


def corpus_perplexity(scores: Sequence[TreeScore]) -> float:
    words = sum(s.words for s in scores)
    return math.exp(-sum(s.log_prob for s in scores) / max(words, 1))


def train_treelstm(options: TreeLSTMOptions, log: TextIO = sys.stderr) -> dict:
    """Train a TreeLSTM and write the best model (dev perplexity) to ``options.model_dir``."""
    started = time.time()
    train_sentences = read_trees(options.train, options.input_format)
    dev_sentences = read_trees(options.dev, options.input_format) if options.dev else []
    model = TreeLSTM(options.arch, tree_vocabulary(train_sentences, options.min_count), options.dims, options.objective)
    record = new_record(options, objective=options.objective, min_count=options.min_count)
    print(
        f"training a {options.arch} ({options.objective}) on {len(train_sentences)} trees, "
        f"vocabulary {len(model.vocab)}, {model.model.parameter_count()} parameters",
        file=log,
    )
    hooks = TreeLSTMTraining(model, train_sentences, dev_sentences, options)
    return train_epochs(hooks, options, record, -math.inf, log, started)


class TreeLSTMTraining(TrainingHooks):
    """A TreeLSTM's part in the shared loop: SGD whose rate halves whenever dev perplexity does not improve."""

    loss_name = "loss_per_word"
    loss_digits = 3

    def __init__(
        self, model: TreeLSTM, sentences: list[Sentence], dev: list[Sentence], options: TreeLSTMOptions
    ) -> None:
        self.model, self.examples, self.dev, self.options = model, sentences, dev, options
        self.dev_seconds_guess = len(dev) / 200.0
        self.trainer = dy.SimpleSGDTrainer(model.model, learning_rate=options.learning_rate)
        self.trainer.set_clip_threshold(options.clip)
        self.halvings = 0

    def train_epoch(self, epoch: int, stop_at: float | None) -> dict:
        options = self.options
        self.model.set_dropout(options.dropout)
        run = run_epoch(
            summed(lambda s: self.model.training_loss(s.forms, s.heads, options.noise_samples)),
            self.trainer,
            shuffled_batches(self.examples, options.batch_size),
            stop_at,
            f"epoch {epoch + 1}",
            Updates(units=lambda batch: sum(map(len, batch)), mean=True),
        )
        self.model.set_dropout(0.0)
        return epoch_entry(
            epoch,
            run.examples,
            run.seconds,
            learning_rate=self.trainer.learning_rate,
            loss_per_word=run.loss / max(run.units, 1),
        )

    def evaluate(self) -> tuple[float, dict] | None:
        if not self.dev:
            return None
        perplexity = corpus_perplexity(tree_scores(self.model, self.dev))
        return -perplexity, {"dev_perplexity": round(perplexity, 2)}

    def untested_score(self, entry: dict) -> float | None:
        return -entry["loss_per_word"]  # words plus shape decisions: selects, is no perplexity

    def save(self, model_dir: str, record: dict) -> None:
        entry = record["epochs"][-1]
        if "dev_perplexity" in entry:
            record["best_dev_perplexity"] = entry["dev_perplexity"]
        else:  # without a dev set the model is chosen by its training loss, which is no perplexity
            record["best_training_loss_per_word"] = round(entry["loss_per_word"], 3)
        self.model.save(model_dir, training=record)

    def after_epoch(self, model_dir: str, record: dict, improved: bool) -> str | None:
        if improved:
            return None
        self.trainer.learning_rate /= 2
        self.halvings += 1
        return f"learning rate halved {MAX_HALVINGS} times; stopping" if self.halvings > MAX_HALVINGS else None

    def dev_report(self, entry: dict) -> str:
        return f"dev perplexity {entry['dev_perplexity']:.2f}"
