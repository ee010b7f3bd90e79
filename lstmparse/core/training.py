"""The one training loop every model family runs, with the family's hooks.

The loop owns what all families share: seeding each epoch from (seed, epoch) so
that a resumed run repeats the original, the wall-clock budget (an epoch stops
early when the time left is about what one dev pass takes), the training record,
saving the model whenever the dev score improves, and the epoch lines on stderr.
A family supplies how an epoch is trained, how the dev set is scored, how the
model is saved and what its epoch line says (:class:`TrainingHooks`).
"""

from __future__ import annotations

import copy
import random
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO, TypeVar

import click
import dynet as dy
import numpy as np

from lstmparse.core.options import RunOptions
from lstmparse.core.records import mark_training
from lstmparse.errors import ConfigurationError

T = TypeVar("T")
EPOCHS_DIRECTORY = "epochs"  # under the model directory: each epoch's model, with --keep-epochs
DEV_MARGIN = 1.2  # an epoch under a time budget stops this many dev passes before the deadline


class TrainingHooks(ABC):
    """What a model family contributes to :func:`train_epochs`."""

    examples: Sequence  # the training examples of one epoch
    dev_seconds_guess: float = 0.0  # a dev pass's duration until the first one is timed
    loss_name: str = "loss"  # the entry's loss field, ``loss_per_<unit>``
    loss_digits: int = 4
    speed: tuple[str, str] = ("sentences_per_second", "sent/s")  # the entry's speed field and its unit

    @abstractmethod
    def train_epoch(self, epoch: int, stop_at: float | None) -> dict:
        """Train one epoch (0-based), stopping at the time ``stop_at``; its record entry (with ``sentences``)."""

    @abstractmethod
    def evaluate(self) -> tuple[float, dict] | None:
        """(score, entry fields) on the dev set, higher scores being better; None without a dev set."""

    @abstractmethod
    def untested_score(self, entry: dict) -> float | None:
        """The score that chooses the model when there is no dev set (None: every epoch is kept)."""

    @abstractmethod
    def save(self, model_dir: str, record: dict) -> None:
        """Write the model with its training record."""

    @abstractmethod
    def dev_report(self, entry: dict) -> str:
        """The dev part of an epoch's line ('dev UAS 80.12 LAS 76.01')."""

    def epoch_line(self, entry: dict, improved: bool) -> str:
        """The line that reports an epoch on stderr: loss, learning rate, time, speed, dev scores."""
        loss = entry[self.loss_name]
        line = f"epoch {entry['epoch']}: {self.loss_name.replace('_per_', '/')} {loss:.{self.loss_digits}f}  "
        if "learning_rate" in entry:
            line += f"lr {entry['learning_rate']:.4f}  "
        field, unit = self.speed
        line += f"{entry['train_seconds']:.0f} s ({entry[field]:.0f} {unit})"
        if "dev_seconds" in entry:
            line += f"  {self.dev_report(entry)} ({entry['dev_seconds']:.0f} s)"
        return line + ("  saved" if improved else "")

    def after_epoch(self, model_dir: str, record: dict, improved: bool) -> str | None:
        """Anything a family does once an epoch is recorded; a reason to stop training, or None."""
        return None


def train_epochs(
    hooks: TrainingHooks,
    options: RunOptions,
    record: dict,
    best: float = -float("inf"),
    log: TextIO = sys.stderr,
    started: float | None = None,
) -> dict:
    """Train from the epoch after ``record``'s last up to ``options.epochs``; the record, with ``total_seconds``.

    ``options`` is the family's options (a :class:`RunOptions`).  ``best`` is the score to beat (a
    resumed run's best so far).  The model is saved whenever an epoch beats it, so
    ``model_dir`` always holds the best model; with ``options.keep_epochs`` every
    epoch's model is also kept, in ``model_dir/epochs/N``, for checkpoint averaging
    (:func:`lstmparse.core.model_io.average_directories`); with ``options.average_best``
    the model is, at the end, the mean of the best kept epochs.  ``started``: when the run
    began, data reading included, for the time budget.
    """
    model_dir, max_minutes = options.model_dir, options.max_minutes
    started = time.time() if started is None else started
    deadline = started + 60 * max_minutes - spent_seconds(record) if max_minutes else None
    dev_seconds = hooks.dev_seconds_guess
    mark_training(model_dir, options.train, options.dev, ended=False)
    for epoch in range(len(record["epochs"]), options.epochs):
        seed_epoch(options.seed, epoch)
        entry = hooks.train_epoch(epoch, epoch_stop(deadline, dev_seconds, record))
        if entry["sentences"] == 0:  # the budget ran out before the epoch began: nothing new to score or keep
            print(f"time budget of {max_minutes} minutes reached", file=log)
            break
        eval_start = time.time()
        evaluation = hooks.evaluate()
        if evaluation is None:
            score = hooks.untested_score(entry)
        else:
            dev_seconds = time.time() - eval_start
            score, fields = evaluation
            entry.update(fields, dev_seconds=round(dev_seconds, 1))
        if score is not None:
            entry["score"] = round(score, 6)  # what it was chosen by, whatever the family (--average-best)
        record["epochs"].append(entry)
        improved = score is None or score > best
        if improved:
            best = best if score is None else score
            record["best_epoch"] = epoch + 1
            hooks.save(model_dir, record)
        if options.keep_epochs or options.average_best:
            hooks.save(str(Path(model_dir) / EPOCHS_DIRECTORY / str(epoch + 1)), copy.deepcopy(record))
        stop = hooks.after_epoch(model_dir, record, improved)
        print(hooks.epoch_line(entry, improved), file=log, flush=True)
        if entry["sentences"] < len(hooks.examples):
            print(f"time budget of {max_minutes} minutes reached", file=log)
            break
        if stop:
            print(stop, file=log)
            break
    record["total_seconds"] = round(time.time() - started, 1)
    if options.average_best:
        average_best_epochs(model_dir, record, options.average_best, log)
    mark_training(model_dir, options.train, options.dev, ended=True)
    return record


def epoch_stop(deadline: float | None, dev_seconds: float, record: dict) -> float | None:
    """When the next epoch must stop to leave time for its dev pass before ``deadline``: never for a run's first
    epoch, so that a budget too small for one epoch (data reading took it, or a busy machine) still leaves a model,
    trained on the whole training set once, rather than none."""
    if deadline is None or not record["epochs"]:
        return None
    return deadline - DEV_MARGIN * dev_seconds


def average_best_epochs(model_dir: str, record: dict, count: int, log: TextIO) -> None:
    """Replace the best epoch's model in ``model_dir`` by the mean of the ``count`` best kept epochs'."""
    from lstmparse.core.model_io import average_directories

    epochs = best_kept_epochs(model_dir, record, count)
    record["averaged_epochs"] = epochs
    sources: list[str | Path] = [Path(model_dir) / EPOCHS_DIRECTORY / str(epoch) for epoch in epochs]
    average_directories(sources, model_dir, training=record)
    print(f"the model is the mean of epochs {', '.join(map(str, epochs))} (--average-best {count})", file=log)


def best_kept_epochs(model_dir: str | Path, record: dict, count: int) -> list[int]:
    """The ``count`` epochs kept in ``model_dir/epochs`` (``--keep-epochs``) that scored best, in epoch order.

    Checkpoint averaging of the best epochs on dev (``--average-best``) rather than the
    last ones: a run whose learning rate was lowered may still peak before its end.
    """
    kept = [
        entry
        for entry in record["epochs"]
        if "score" in entry and (Path(model_dir) / EPOCHS_DIRECTORY / str(entry["epoch"])).is_dir()
    ]
    if len(kept) < count:
        raise ConfigurationError(
            f"--average-best {count}: {model_dir} keeps {len(kept)} scored epochs of this run (--keep-epochs)"
        )
    best = sorted(kept, key=lambda entry: (-entry["score"], entry["epoch"]))[:count]
    return sorted(entry["epoch"] for entry in best)


def spent_seconds(record: dict) -> float:
    """The training and dev time of the epochs a resumed run already has: ``--max-minutes`` is the whole run's.

    So an interrupted run continued with ``--resume`` (by hand or by the farm) stops
    when the uninterrupted run would have, not a whole budget later.
    """
    return sum(entry.get("train_seconds", 0.0) + entry.get("dev_seconds", 0.0) for entry in record["epochs"])


def new_record(options: RunOptions, **fields) -> dict:
    """A run's training record before its first epoch: the data and settings every family shares, and ``fields``."""
    return {
        "train": options.train,
        "dev": options.dev,
        "batch_size": options.batch_size,
        "learning_rate": options.learning_rate,
        "dropout": options.dropout,
        "seed": options.seed,
        **fields,
        "epochs": [],
    }


def adam_trainer(model: dy.ParameterCollection, options: RunOptions) -> dy.Trainer:
    """Adam with the run's learning rate as alpha and its gradient-norm limit."""
    trainer = dy.AdamTrainer(model, alpha=options.learning_rate)
    trainer.set_clip_threshold(options.clip)
    return trainer


def epoch_entry(epoch: int, sentences: int, seconds: float, **fields: float) -> dict:
    """The record entry every family writes for an epoch (0-based ``epoch``): sentences, time, speed, losses."""
    return {
        "epoch": epoch + 1,
        "sentences": sentences,
        **fields,
        "train_seconds": round(seconds, 1),
        "sentences_per_second": round(sentences / max(seconds, 1e-9), 1),
    }


def seed_epoch(seed: int | None, epoch: int) -> None:
    """Seed every generator from (seed, epoch), so that a resumed run repeats the original."""
    if seed is not None:
        value = (seed * 1_000_003 + epoch) % 2**31 or 1
        random.seed(value)
        np.random.seed(value)
        dy.reset_random_seed(value)


@dataclass(frozen=True)
class Updates:
    """How a family's losses become updates.

    ``units`` counts what a batch's loss is per (actions for the parser, words for a
    language model); with ``mean`` the update follows the loss per unit rather
    than the batch's sum, as language models trained with learning rate 1 need.
    Batches that are already dense graphs (``autobatching=False``) skip the
    autobatcher's analysis of the graph.
    """

    units: Callable[[list], int] = len
    mean: bool = False
    autobatching: bool = True


@dataclass(frozen=True)
class EpochRun:
    """What one epoch over minibatches did: summed loss, units, batches and examples seen, seconds."""

    loss: float
    units: int
    batches: int
    examples: int
    seconds: float


def minibatch_epoch(
    batch_loss: Callable[[list], dy.Expression],
    trainer: dy.Trainer,
    batches: list[list],
    units: Callable[[list], int],
    stop_at: float | None,
    epoch: int,
    unit: str = "sent",
) -> EpochRun:
    """One epoch of updates on each dense minibatch's loss per unit (``units`` counts a batch's).

    The families whose batches are one dense graph (seq2seq, tagger, tokenizer) train this
    way; the batches are taken in random order and the epoch stops at ``stop_at``.
    """
    order = list(batches)
    random.shuffle(order)
    updates = Updates(units=units, mean=True, autobatching=False)
    return run_epoch(batch_loss, trainer, order, stop_at, f"epoch {epoch + 1}", updates, unit)


def shuffled_batches(examples: Sequence[T], batch_size: int, length: Callable[[T], int] | None = None) -> list[list[T]]:
    """The examples cut into minibatches of ``batch_size`` (the last may be smaller), in a random order.

    With ``length``, a minibatch holds examples of similar length (lock-step batches
    take as many steps as their longest member): the examples are sorted by length,
    ties in random order, cut into minibatches, and the minibatches shuffled.
    """
    order = list(examples)
    random.shuffle(order)
    if length is not None:
        order.sort(key=length)  # stable: equal lengths keep their random order
    batches = [order[start : start + batch_size] for start in range(0, len(order), batch_size)]
    if length is not None:
        random.shuffle(batches)
    return batches


def summed(loss_of: Callable[[T], dy.Expression | None]) -> Callable[[list[T]], dy.Expression | None]:
    """A batch's loss as the sum of its examples' losses, each its own graph fragment (None: nothing to learn)."""

    def batch_loss(batch: list[T]) -> dy.Expression | None:
        losses = [loss for example in batch if (loss := loss_of(example)) is not None]
        return dy.esum(losses) if losses else None

    return batch_loss


def run_epoch(
    batch_loss: Callable[[list[T]], dy.Expression | None],
    trainer: dy.Trainer,
    batches: Sequence[list[T]],
    stop_at: float | None,
    label: str,
    updates: Updates = Updates(),
    unit: str = "sent",
) -> EpochRun:
    """One update per batch, in the given order, until ``stop_at``.

    A progress bar on stderr shows the examples done (``unit``: what an example is),
    their rate and the running loss per unit of the loss.
    """
    total_loss, total_units, seen, done = 0.0, 0, 0, 0
    started = time.time()
    with click.progressbar(
        length=sum(len(batch) for batch in batches),
        label=label,
        file=sys.stderr,
        show_pos=True,
        item_show_func=_shown,
    ) as bar:
        for batch in batches:
            if stop_at is not None and time.time() > stop_at:
                break
            dy.renew_cg(autobatching=updates.autobatching)
            loss = batch_loss(batch)
            batch_units = updates.units(batch)
            if loss is not None:
                total_loss += loss.value()
                (loss / max(batch_units, 1) if updates.mean else loss).backward()
                trainer.update()
            total_units += batch_units
            seen += len(batch)
            done += 1
            rate = seen / max(time.time() - started, 1e-9)
            bar.update(len(batch), f"{rate:.0f} {unit}/s, loss {total_loss / max(total_units, 1):.4f}")
    return EpochRun(total_loss, total_units, done, seen, time.time() - started)


def _shown(status: str | None) -> str | None:
    """What the progress bar prints after the bar: the status the loop passed to ``update``."""
    return status
