"""Training the stack-LSTM parser (Dyer et al. 2015, section 6.1 settings).

Plain SGD with eta_t = eta0 / (1 + decay * t) after epoch t, gradients clipped to
norm 5, L2 through DyNet's weight decay (set by the caller before DyNet loads),
Glorot-uniform initialization (DyNet's default).  Each minibatch of sentences is
one computation graph whose losses are summed, so DyNet's autobatching can run the
sentences' operations together; one update per minibatch.  After every epoch the
parser is evaluated on dev and the model directory is replaced only when dev LAS
improves, so it always holds the best model so far.
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO, TypeVar

import click
import dynet as dy
import numpy as np

from .errors import ConfigurationError, InputError
from .evaluation import Scores, score_trees
from .formats import Sentence, read_treebank
from .model_io import load_directory
from .oracle import Example, oracle_examples, root_label_of, training_trees
from .parser import StackLSTMParser, revision_1_changes
from .systems import SYSTEMS, TransitionSystem, make_system
from .tokens import NO_FEATURE, Dimensions, read_word2vec, split_feats
from .vocab import Vocabulary

T = TypeVar("T")
CHECKPOINT = "checkpoint"
DEFAULT_FEATURES = ("words", "pos", "chars")
DEFAULT_BATCH_SIZE = 1  # sentences per update: larger batches need a retuned learning rate (see README)


@dataclass
class TrainingOptions:
    train: str
    model_dir: str
    dev: str | None = None
    features: Sequence[str] = DEFAULT_FEATURES
    system: str = "arc-standard"
    oracle: str = "static"  # or "dynamic" (systems that have one): training with exploration
    alpha: float = 0.75  # exploration samples from p(a)^alpha
    explore_p: float = 0.9  # probability of following a sampled action once exploring
    explore_after: int = 1  # epochs of oracle-following before exploration starts
    pseudo_projective: bool = False
    epochs: int = 30
    max_minutes: float | None = None
    batch_size: int = DEFAULT_BATCH_SIZE
    learning_rate: float = 0.1
    decay: float = 0.1
    dropout: float = 0.0  # not in the papers; see README for its measured effect
    clip: float = 5.0
    seed: int | None = 1
    pretrained: str | None = None
    input_format: str = "conllu"
    dims: Dimensions = field(default_factory=Dimensions)
    resume: bool = False  # continue from the model directory's last checkpoint


def build_vocabularies(sentences: Sequence[Sentence], pretrained_words: Sequence[str] = ()) -> dict[str, Vocabulary]:
    tokens = [t for s in sentences for t in s.tokens]
    feats = Counter(f for t in tokens for f in split_feats(t.feats))
    feats[NO_FEATURE] += 1
    return {
        "words": Vocabulary.from_counts(Counter(t.form for t in tokens)),
        "pos": Vocabulary.from_counts(Counter(t.upos for t in tokens)),
        "feats": Vocabulary.from_counts(feats),
        "chars": Vocabulary.from_counts(Counter(c for t in tokens for c in t.form)),
        "pretrained": Vocabulary(pretrained_words),
    }


def check_feature_columns(path: str, sentences: Sequence[Sentence], features: Sequence[str]) -> None:
    """Refuse to learn from a tag column that the training data leaves empty ('_' on every word)."""
    for feature, column, value in (("pos", "UPOS", lambda t: t.upos), ("feats", "FEATS", lambda t: t.feats)):
        if feature in features and all(value(t) in ("", "_") for s in sentences for t in s.tokens):
            raise InputError(
                path,
                None,
                f"the {column} column is empty on every word; drop '{feature}' from --features or train on tagged data",
            )


def example_loss(parser: StackLSTMParser, example: Example, options: TrainingOptions, epoch: int):
    """The loss of one sentence under the chosen oracle (None when nothing is to be learnt)."""
    if options.oracle == "dynamic":
        explore_p = options.explore_p if epoch >= options.explore_after else 0.0
        return parser.exploration_loss(example.sentence.tokens, example.gold, explore_p, options.alpha)
    return parser.loss(example.sentence.tokens, example.actions)


def evaluate_parser(parser: StackLSTMParser, sentences: Sequence[Sentence]) -> Scores:
    predictions = [parser.parse(s.tokens) for s in sentences]
    gold = [(s.heads, s.deprels, [t.upos for t in s.tokens]) for s in sentences]
    return score_trees(gold, predictions)


def prepare(options: TrainingOptions, log: TextIO) -> tuple[StackLSTMParser, list[Example], list[Sentence], dict]:
    """Read the data, build the system, the oracle examples and an untrained parser."""
    train_sentences = read_treebank(options.train, options.input_format)
    dev_sentences = read_treebank(options.dev, options.input_format) if options.dev else []
    pretrained_words, pretrained_vectors = read_word2vec(options.pretrained) if options.pretrained else ([], None)
    if "pretrained" in options.features and pretrained_vectors is None:
        raise ConfigurationError("the 'pretrained' feature needs --pretrained FILE")
    if pretrained_vectors is not None and "pretrained" not in options.features:
        raise ConfigurationError("--pretrained FILE is read only with the 'pretrained' feature (--features)")
    check_feature_columns(options.train, train_sentences, options.features)
    trees = training_trees(train_sentences, options.pseudo_projective)
    labels = {label for _, tree_labels in trees for label in tree_labels}
    system = make_system(options.system, labels, root_label_of(train_sentences))
    check_system_options(system, options)
    examples, skipped = oracle_examples(system, train_sentences, trees)
    for reason, count in skipped.items():
        print(f"skipped {count} of {len(train_sentences)} training trees: {reason}", file=log)
    if not examples:
        raise InputError(options.train, None, "no training tree can be built by the transition system")
    parser = StackLSTMParser(
        system,
        options.features,
        build_vocabularies(train_sentences, pretrained_words),
        options.dims,
        0 if pretrained_vectors is None else pretrained_vectors.shape[1],
        options.pseudo_projective,
    )
    if pretrained_vectors is not None:
        parser.tokens.set_pretrained(pretrained_vectors)
    parser.dropout = options.dropout
    record = {
        "train": options.train,
        "dev": options.dev,
        "system": system.name,
        "oracle": options.oracle,
        "pseudo_projective": options.pseudo_projective,
        "seed": options.seed,
        "batch_size": options.batch_size,
        "dropout": options.dropout,
        "skipped": dict(skipped),
        "epochs": [],
    }
    print(
        f"training on {len(examples)} trees, {len(system.actions)} actions, features {','.join(options.features)}, "
        f"{parser.model.parameter_count()} parameters",
        file=log,
    )
    return parser, examples, dev_sentences, record


def check_system_options(system: TransitionSystem, options: TrainingOptions) -> None:
    """Refuse an oracle the system lacks, and pseudo-projective encoding for a non-projective system."""
    if options.oracle not in system.oracles:
        having = ", ".join(name for name, kind in SYSTEMS.items() if kind.has_dynamic_oracle)
        raise ConfigurationError(f"{system.name} has no {options.oracle} oracle; systems that have one: {having}")
    if options.pseudo_projective and system.builds_non_projective:
        raise ConfigurationError(f"{system.name} builds non-projective trees itself: drop --pseudo-projective")


def train(options: TrainingOptions, log: TextIO = sys.stderr) -> dict:
    """Train a parser and write the best model to ``options.model_dir``; returns the training record.

    With ``max_minutes`` the whole run, dev evaluations included, stays within the
    budget: an epoch stops early when the time left is about what one dev pass takes.
    """
    started = time.time()
    deadline = started + 60 * options.max_minutes if options.max_minutes else None
    seed_epoch(options.seed, -1)  # the initial parameters too, even when a process trains twice
    parser, examples, dev_sentences, record = prepare(options, log)
    if options.resume:
        record = restore_checkpoint(parser, options.model_dir, log) or record
    first_epoch = len(record["epochs"])
    current_revision = record["epochs"][record.get("revision_1_epochs", 0) :]  # older scores measured another model
    best_las = max((e["dev_las"] for e in current_revision if "dev_las" in e), default=-1.0)
    trainer = dy.SimpleSGDTrainer(parser.model, learning_rate=options.learning_rate)
    trainer.set_clip_threshold(batch_clip_threshold(options.clip, options.batch_size))
    dev_seconds = len(dev_sentences) / 100.0  # estimate until the first evaluation is timed
    for epoch in range(first_epoch, options.epochs):
        seed_epoch(options.seed, epoch)
        trainer.learning_rate = options.learning_rate / (1 + options.decay * epoch)
        epoch_start = time.time()
        loss, actions, seen = run_epoch(
            lambda example, e=epoch: example_loss(parser, example, options, e),
            trainer,
            examples,
            options.batch_size,
            None if deadline is None else deadline - 1.2 * dev_seconds,
            f"epoch {epoch + 1}",
        )
        train_seconds = time.time() - epoch_start
        entry = {
            "epoch": epoch + 1,
            "sentences": seen,
            "loss_per_action": loss / max(actions, 1),
            "learning_rate": trainer.learning_rate,
            "train_seconds": round(train_seconds, 1),
            "sentences_per_second": round(seen / max(train_seconds, 1e-9), 1),
        }
        las = None
        if dev_sentences:
            eval_start = time.time()
            scores = evaluate_parser(parser, dev_sentences)
            dev_seconds = time.time() - eval_start
            las = scores.las
            entry.update(dev_uas=round(scores.uas, 2), dev_las=round(las, 2), dev_seconds=round(dev_seconds, 1))
        record["epochs"].append(entry)
        improved = las is None or las > best_las
        if improved:
            best_las = best_las if las is None else las
            record["best_epoch"] = epoch + 1
            parser.save(options.model_dir, training=record)
        parser.save(checkpoint_directory(options.model_dir), training=record)
        print(_epoch_line(entry, improved), file=log, flush=True)
        if seen < len(examples):
            print(f"time budget of {options.max_minutes} minutes reached", file=log)
            break
    record["total_seconds"] = round(time.time() - started, 1)
    record["best_dev_las"] = round(best_las, 2) if dev_sentences else None
    return record


def checkpoint_directory(model_dir: str) -> Path:
    """Where the model after the last finished epoch is kept, for ``--resume``."""
    return Path(model_dir) / CHECKPOINT


def seed_epoch(seed: int | None, epoch: int) -> None:
    """Seed every generator from (seed, epoch), so that a resumed run repeats the original."""
    if seed is not None:
        value = (seed * 1_000_003 + epoch) % 2**31 or 1
        random.seed(value)
        np.random.seed(value)
        dy.reset_random_seed(value)


def restore_checkpoint(parser: StackLSTMParser, model_dir: str, log: TextIO) -> dict | None:
    """Load the last checkpoint (or, lacking one, the best model) into ``parser``; its training record.

    The parser was built from the same training data and options, so its
    vocabularies must equal the saved ones; anything else is a different run.
    """
    source = checkpoint_directory(model_dir)
    if not (source / "config.json").is_file():
        source = Path(model_dir)
        if not (source / "config.json").is_file():
            print(f"--resume: nothing to resume in {model_dir}; starting afresh", file=log)
            return None
    config, vocab, params = load_directory(source)
    ours = {name: v.to_json() for name, v in parser.vocabs.items()}
    if vocab != ours or config.get("features") != list(parser.features) or config.get("system") != parser.system.name:
        raise ConfigurationError(f"--resume: {source} was trained with other data or options")
    parser.set_parameter_values(params)
    record = config.get("training", {})
    if source == Path(model_dir):  # the best model: forget the epochs after it
        record["epochs"] = record.get("epochs", [])[: record.get("best_epoch", 0)]
    changes = revision_1_changes(config, parser.system)
    if changes:  # trained so far under the old computation: training goes on under the corrected one
        record.setdefault("revision_1_epochs", len(record["epochs"]))
        print(
            f"--resume: {source} is a revision-1 model; training goes on under revision 2 ({'; '.join(changes)}), "
            "and only dev scores of revision 2 count for choosing the best model",
            file=log,
        )
    print(f"resuming from {source} after epoch {len(record['epochs'])}", file=log)
    return record


def batch_clip_threshold(clip: float, batch_size: int) -> float:
    """The gradient-norm limit for a minibatch's summed loss: ``clip`` times sqrt(batch size).

    The papers clip each sentence's update at norm 5.  A batch's gradient is the sum
    of its sentences' gradients; clipping that sum at 5 shrinks every large batch's
    step to one sentence's worth (400 EWT sentences, batch 8: dev LAS 31 after 8
    epochs against 68 at batch 1), while clipping at 5 x 16 lets batches of 16
    diverge at learning rate 0.1.  Summed independent gradients grow with the square
    root of their number, and so does this limit (2,000 EWT sentences, 5 epochs:
    dev LAS 72.1 at batch 16, 73.8 at batch 8, 75.8 at batch 1, each epoch taking
    about half the time of batch 1's).
    """
    return clip * batch_size**0.5


def run_epoch(
    loss_of: Callable[[T], dy.Expression | None],
    trainer: dy.Trainer,
    examples: Sequence[T],
    batch_size: int,
    stop_at: float | None,
    label: str,
    units: Callable[[T], int] = lambda example: len(example.actions),
    mean: bool = False,
    autobatching: bool = True,
) -> tuple[float, int, int]:
    """One pass over shuffled examples: (summed loss, units, sentences seen).

    ``units`` counts what the loss is per (actions for the parser, words for a
    language model); with ``mean`` the update follows the loss per unit rather
    than the batch's sum, as language models trained with learning rate 1 need.
    Examples that are already dense batches (``autobatching=False``) skip the
    autobatcher's analysis of the graph.
    """
    order = list(examples)
    random.shuffle(order)
    total_loss, total_actions, seen = 0.0, 0, 0
    with click.progressbar(length=len(order), label=label, file=sys.stderr) as bar:
        for start in range(0, len(order), batch_size):
            if stop_at is not None and time.time() > stop_at:
                break
            batch = order[start : start + batch_size]
            dy.renew_cg(autobatching=autobatching)  # batches the sentences' independent operations
            losses = [loss for example in batch if (loss := loss_of(example)) is not None]
            batch_units = sum(units(example) for example in batch)
            if losses:
                batch_loss = dy.esum(losses)
                total_loss += batch_loss.value()
                (batch_loss / max(batch_units, 1) if mean else batch_loss).backward()
                trainer.update()
            total_actions += batch_units
            seen += len(batch)
            bar.update(len(batch))
    return total_loss, total_actions, seen


def _epoch_line(entry: dict, improved: bool) -> str:
    line = (
        f"epoch {entry['epoch']}: loss/action {entry['loss_per_action']:.4f}  lr {entry['learning_rate']:.4f}  "
        f"{entry['train_seconds']:.0f} s ({entry['sentences_per_second']:.0f} sent/s)"
    )
    if "dev_las" in entry:
        line += f"  dev UAS {entry['dev_uas']:.2f} LAS {entry['dev_las']:.2f} ({entry['dev_seconds']:.0f} s)"
    return line + ("  saved" if improved else "")
