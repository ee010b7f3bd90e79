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
from dataclasses import dataclass, field
from typing import TextIO

import dynet as dy

from .errors import InputError
from .formats import Sentence, read_treebank
from .training import run_epoch
from .tree import tree_problem
from .treelstm import ROOT_WORD, TreeLSTM, TreeLSTMDimensions, TreeScore
from .vocab import UNK, Vocabulary

MAX_HALVINGS = 8  # stop once the learning rate has been halved this often


@dataclass
class TreeLSTMOptions:
    train: str
    model_dir: str
    dev: str | None = None
    arch: str = "treelstm"
    objective: str = "nll"  # or "nce" for large vocabularies
    min_count: int = 1  # words seen at most this often become UNK
    epochs: int = 30
    max_minutes: float | None = None
    batch_size: int = 32
    learning_rate: float = 1.0
    dropout: float = 0.2
    clip: float = 5.0
    noise_samples: int = 20
    seed: int | None = 1
    input_format: str = "conllu"
    dims: TreeLSTMDimensions = field(default_factory=TreeLSTMDimensions)


def read_trees(path: str, fmt: str = "conllu") -> list[Sentence]:
    """A treebank whose every sentence is one well-formed tree (else ``file:line:`` error)."""
    sentences = read_treebank(path, fmt)
    for sentence in sentences:
        problem = tree_problem(sentence.heads)
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


def score_sentences(model: TreeLSTM, sentences: Sequence[Sentence]) -> list[TreeScore]:
    """log P(S|T) of each sentence's tree."""
    return model.score_trees([(s.forms, s.heads) for s in sentences])


def corpus_perplexity(scores: Sequence[TreeScore]) -> float:
    words = sum(s.words for s in scores)
    return math.exp(-sum(s.log_prob for s in scores) / max(words, 1))


def train_treelstm(options: TreeLSTMOptions, log: TextIO = sys.stderr) -> dict:
    """Train a TreeLSTM and write the best model (dev perplexity) to ``options.model_dir``."""
    started = time.time()
    deadline = started + 60 * options.max_minutes if options.max_minutes else None
    train_sentences = read_trees(options.train, options.input_format)
    dev_sentences = read_trees(options.dev, options.input_format) if options.dev else []
    model = TreeLSTM(options.arch, tree_vocabulary(train_sentences, options.min_count), options.dims, options.objective)
    record = {
        "train": options.train,
        "dev": options.dev,
        "objective": options.objective,
        "min_count": options.min_count,
        "batch_size": options.batch_size,
        "dropout": options.dropout,
        "seed": options.seed,
        "epochs": [],
    }
    print(
        f"training a {options.arch} ({options.objective}) on {len(train_sentences)} trees, "
        f"vocabulary {len(model.vocab)}, {model.model.parameter_count()} parameters",
        file=log,
    )
    trainer = dy.SimpleSGDTrainer(model.model, learning_rate=options.learning_rate)
    trainer.set_clip_threshold(options.clip)
    best, halvings, dev_seconds = math.inf, 0, len(dev_sentences) / 200.0
    for epoch in range(options.epochs):
        entry, seen = _train_one_epoch(model, trainer, train_sentences, options, epoch, deadline, dev_seconds)
        if dev_sentences:
            eval_start = time.time()
            perplexity = corpus_perplexity(score_sentences(model, dev_sentences))
            dev_seconds = time.time() - eval_start
            entry.update(dev_perplexity=round(perplexity, 2), dev_seconds=round(dev_seconds, 1))
        else:
            perplexity = entry["loss_per_word"]  # words plus shape decisions: selects, is no perplexity
        record["epochs"].append(entry)
        improved = perplexity < best
        if improved:
            best = perplexity
            record.update(best_epoch=epoch + 1, best_dev_perplexity=round(best, 2))
            model.save(options.model_dir, training=record)
        else:
            trainer.learning_rate /= 2
            halvings += 1
        print(_epoch_line(entry, improved), file=log, flush=True)
        if seen < len(train_sentences):
            print(f"time budget of {options.max_minutes} minutes reached", file=log)
            break
        if halvings > MAX_HALVINGS:
            print(f"learning rate halved {MAX_HALVINGS} times; stopping", file=log)
            break
    record["total_seconds"] = round(time.time() - started, 1)
    return record


def _train_one_epoch(model, trainer, sentences, options, epoch, deadline, dev_seconds) -> tuple[dict, int]:
    model.set_dropout(options.dropout)
    epoch_start = time.time()
    loss, words, seen = run_epoch(
        lambda s: model.training_loss(s.forms, s.heads, options.noise_samples),
        trainer,
        sentences,
        options.batch_size,
        None if deadline is None else deadline - 1.2 * dev_seconds,
        f"epoch {epoch + 1}",
        units=len,
        mean=True,
    )
    model.set_dropout(0.0)
    seconds = time.time() - epoch_start
    entry = {
        "epoch": epoch + 1,
        "sentences": seen,
        "learning_rate": trainer.learning_rate,
        "train_seconds": round(seconds, 1),
        "sentences_per_second": round(seen / max(seconds, 1e-9), 1),
        "loss_per_word": loss / max(words, 1),
    }
    return entry, seen


def _epoch_line(entry: dict, improved: bool) -> str:
    line = (
        f"epoch {entry['epoch']}: loss/word {entry['loss_per_word']:.3f}  lr {entry['learning_rate']:.4f}  "
        f"{entry['train_seconds']:.0f} s ({entry['sentences_per_second']:.0f} sent/s)"
    )
    if "dev_perplexity" in entry:
        line += f"  dev perplexity {entry['dev_perplexity']:.2f} ({entry['dev_seconds']:.0f} s)"
    return line + ("  saved" if improved else "")
