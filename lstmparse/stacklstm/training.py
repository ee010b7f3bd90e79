"""Training the stack-LSTM parser (Dyer et al. 2015, section 6.1 settings, and minibatches).

The papers train one sentence at a time with plain SGD, eta_t = eta0 / (1 + decay * t)
after epoch t, gradients clipped to norm 5, L2 through DyNet's weight decay (set by the
caller before DyNet loads) and Glorot-uniform initialization (DyNet's default).  Here a
minibatch's loss is the sum of its sentences' losses, computed in lock-step
(:mod:`~lstmparse.stacklstm.batch_loss`: the sentences parsed together, each step one
batched operation) or as one graph per sentence batched by DyNet's autobatching; both
give the same loss and gradients.  One update per minibatch, SGD or Adam, with the
gradient clipped at 5 x sqrt(batch size).  The oracle (:mod:`~lstmparse.stacklstm.oracles`)
decides what is correct and which path a sentence follows; each sentence draws its
random choices from a stream of its own (seed, epoch, sentence), so its path does not
depend on its batch.  After every epoch the parser is evaluated on dev and the model
directory is replaced only when dev LAS improves, so it always holds the best model so far.
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

import dynet as dy

from lstmparse.core.model_io import load_directory
from lstmparse.core.training import (
    TrainingHooks,
    Updates,
    epoch_entry,
    new_record,
    run_epoch,
    seed_epoch,
    shuffled_batches,
    summed,
    train_epochs,
)
from lstmparse.core.vocab import Vocabulary
from lstmparse.errors import ConfigurationError, InputError
from lstmparse.io.formats import BLANK_VALUES, Sentence, read_treebank
from lstmparse.layers.embeddings import read_word2vec
from lstmparse.scoring.evaluation import Scores, score_trees
from lstmparse.stacklstm.batch_loss import lockstep_loss
from lstmparse.stacklstm.examples import Example, oracle_examples, root_label_of, sentence_rng, training_trees
from lstmparse.stacklstm.model import StackLSTMParser, revision_1_changes
from lstmparse.stacklstm.options import StackLSTMOptions
from lstmparse.stacklstm.oracles import Exploration, Oracle, make_oracle
from lstmparse.stacklstm.systems import SYSTEMS, TransitionSystem, make_system
from lstmparse.stacklstm.tokens import NO_FEATURE, split_feats

CHECKPOINT = "checkpoint"


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
        if feature in features and all(value(t) in BLANK_VALUES for s in sentences for t in s.tokens):
            raise InputError(
                path,
                None,
                f"the {column} column is empty on every word; drop '{feature}' from --features or train on tagged data",
            )


def epoch_oracle(system: TransitionSystem, options: StackLSTMOptions, epoch: int) -> Oracle:
    """The oracle an epoch (0-based) trains with: exploration starts after ``explore_after`` epochs."""
    explore_p = options.explore_p if epoch >= options.explore_after else 0.0
    return make_oracle(system, options.oracle, Exploration(explore_p, options.alpha))


def batch_loss_function(
    parser: StackLSTMParser, oracle: Oracle, options: StackLSTMOptions, epoch: int
) -> Callable[[list[Example]], dy.Expression | None]:
    """The loss of a minibatch: lock-step (one batched graph) or summed one-sentence graphs (autobatched)."""

    def rng(example: Example) -> random.Random:
        return sentence_rng(options.seed, epoch, example)

    if options.batching == "lockstep":
        return lambda batch: lockstep_loss(parser, batch, oracle, [rng(example) for example in batch])
    return summed(lambda example: parser.oracle_loss(example, oracle, rng(example)))


def sentence_length(example: Example) -> int:
    return len(example.sentence)


def batch_actions(batch: list[Example]) -> int:
    return sum(len(example.actions) for example in batch)


def evaluate_parser(parser: StackLSTMParser, sentences: Sequence[Sentence]) -> Scores:
    predictions = [parser.parse(s.tokens) for s in sentences]
    gold = [(s.gold_heads, s.gold_deprels, [t.upos for t in s.tokens]) for s in sentences]
    return score_trees(gold, predictions)


def joint_upos_accuracy(parser: StackLSTMParser, sentences: Sequence[Sentence]) -> float:
    """The percentage of words whose UPOS the parser's own tag layer gets right (``joint_upos``)."""
    right = words = 0
    for sentence, tags in zip(sentences, parser.predict_upos([s.tokens for s in sentences]), strict=True):
        right += sum(tag == token.upos for tag, token in zip(tags, sentence.tokens, strict=True))
        words += len(tags)
    return round(100.0 * right / max(words, 1), 2)


def prepare(
    options: StackLSTMOptions, log: TextIO
) -> tuple[StackLSTMParser, list[Example], list[Sentence], dict, StackLSTMOptions]:
    """Read the data, build the system, the oracle examples and an untrained parser; the options with the
    batch size (and learning rate) chosen for the training set where they were left to it."""
    train_sentences = read_treebank(options.train, options.input_format)
    dev_sentences = read_treebank(options.dev, options.input_format) if options.dev else []
    pretrained_words, pretrained_vectors = read_word2vec(options.pretrained) if options.pretrained else ([], None)
    if "pretrained" in options.features and pretrained_vectors is None:
        raise ConfigurationError("the 'pretrained' feature needs --pretrained FILE")
    if pretrained_vectors is not None and "pretrained" not in options.features:
        raise ConfigurationError("--pretrained FILE is read only with the 'pretrained' feature (--features)")
    check_feature_columns(options.train, train_sentences, options.features)
    check_joint_upos(options)
    options = options.for_training_set(len(train_sentences))
    trees = training_trees(train_sentences, options.pseudo_projective)
    labels = {label for _, tree_labels in trees for label in tree_labels}
    system = make_system(options.system, labels, root_label_of(train_sentences))
    check_system_options(system, options)
    examples, skipped = oracle_examples(system, train_sentences, trees)
    for reason, count in skipped.items():
        hint = ""
        if "non-projective" in reason:
            hint = "; --system arc-swap builds every tree, --pseudo-projective makes them buildable"
        print(f"skipped {count} of {len(train_sentences)} training trees: {reason}{hint}", file=log)
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
    if parser.tokens.context_vectors is not None:
        parser.tokens.context_vectors.keep_for_training([s.forms for s in (*train_sentences, *dev_sentences)], log)
    parser.set_dropout(options.dropout)
    record = new_record(
        options,
        system=system.name,
        oracle=options.oracle,
        pseudo_projective=options.pseudo_projective,
        batching=options.batching,
        optimizer=options.optimizer,
        skipped=dict(skipped),
    )
    print(
        f"training on {len(examples)} trees, {len(system.actions)} actions, features {','.join(options.features)}, "
        f"{parser.model.parameter_count()} parameters; batches of {options.batch_size}, "
        f"learning rate {options.learning_rate:g}",
        file=log,
    )
    return parser, examples, dev_sentences, record, options


def check_joint_upos(options: StackLSTMOptions) -> None:
    """Joint tagging reads the context layers' output, and a parser that reads the gold UPOS has nothing to learn."""
    if not options.dims.joint_upos:
        return
    if not options.dims.context_layers:
        raise ConfigurationError("--joint-upos predicts UPOS from the context bi-LSTM: give --context-layers 1 or more")
    if "pos" in options.features:
        raise ConfigurationError("--joint-upos predicts UPOS: drop 'pos' from --features, which reads it")


def check_system_options(system: TransitionSystem, options: StackLSTMOptions) -> None:
    """Refuse an oracle the system lacks, and pseudo-projective encoding for a non-projective system."""
    if options.oracle not in system.oracles:
        having = ", ".join(name for name, kind in SYSTEMS.items() if kind.has_oracle(options.oracle))
        raise ConfigurationError(f"{system.name} has no {options.oracle} oracle; systems that have one: {having}")
    if options.pseudo_projective and system.builds_non_projective:
        raise ConfigurationError(f"{system.name} builds non-projective trees itself: drop --pseudo-projective")


class StackLSTMTraining(TrainingHooks):
    """The stack-LSTM parser's part in the shared loop: SGD with decay, dev LAS, a checkpoint per epoch."""

    loss_name = "loss_per_action"
    loss_digits = 4

    def __init__(self, parser: StackLSTMParser, examples: list[Example], dev: list[Sentence], options) -> None:
        self.parser, self.examples, self.dev, self.options = parser, examples, dev, options
        self.dev_seconds_guess = len(dev) / 100.0
        self.trainer = new_trainer(parser.model, options)

    def train_epoch(self, epoch: int, stop_at: float | None) -> dict:
        options = self.options
        self.trainer.learning_rate = options.learning_rate / (1 + options.decay * epoch)
        oracle = epoch_oracle(self.parser.system, options, epoch)
        run = run_epoch(
            batch_loss_function(self.parser, oracle, options, epoch),
            self.trainer,
            shuffled_batches(self.examples, options.batch_size, sentence_length if options.length_batches else None),
            stop_at,
            f"epoch {epoch + 1}",
            Updates(units=batch_actions, autobatching=options.batching != "lockstep"),
        )
        return epoch_entry(
            epoch,
            run.examples,
            run.seconds,
            loss_per_action=run.loss / max(run.units, 1),
            learning_rate=self.trainer.learning_rate,
        )

    def evaluate(self) -> tuple[float, dict] | None:
        if not self.dev:
            return None
        scores = evaluate_parser(self.parser, self.dev)
        entry = {"dev_uas": round(scores.uas, 2), "dev_las": round(scores.las, 2)}
        if self.parser.upos_head is not None:
            entry["dev_joint_upos"] = joint_upos_accuracy(self.parser, self.dev)
        return scores.las, entry

    def untested_score(self, entry: dict) -> float | None:
        return None  # without dev scores every epoch's model is kept

    def save(self, model_dir: str, record: dict) -> None:
        self.parser.save(model_dir, training=record)

    def after_epoch(self, model_dir: str, record: dict, improved: bool) -> str | None:
        self.parser.save(str(checkpoint_directory(model_dir)), training=record)
        return None

    def dev_report(self, entry: dict) -> str:
        joint = f" UPOS {entry['dev_joint_upos']:.2f}" if "dev_joint_upos" in entry else ""
        return f"dev UAS {entry['dev_uas']:.2f} LAS {entry['dev_las']:.2f}{joint}"


def train(options: StackLSTMOptions, log: TextIO = sys.stderr) -> dict:
    """Train a parser and write the best model to ``options.model_dir``; returns the training record.

    With ``max_minutes`` the whole run, dev evaluations included, stays within the
    budget: an epoch stops early when the time left is about what one dev pass takes.
    """
    started = time.time()
    seed_epoch(options.seed, -1)  # the initial parameters too, even when a process trains twice
    parser, examples, dev_sentences, record, options = prepare(options, log)
    if options.resume:
        record = restore_checkpoint(parser, options.model_dir, log) or record
    hooks = StackLSTMTraining(parser, examples, dev_sentences, options)
    best_las = _best_dev_las(record)
    record = train_epochs(hooks, options, record, best_las, log, started)
    record["best_dev_las"] = round(_best_dev_las(record), 2) if dev_sentences else None
    return record


def _best_dev_las(record: dict) -> float:
    """The best dev LAS of the current model revision (scores of revision-1 epochs measured another model)."""
    current_revision = record["epochs"][record.get("revision_1_epochs", 0) :]
    return max((e["dev_las"] for e in current_revision if "dev_las" in e), default=-1.0)


def checkpoint_directory(model_dir: str) -> Path:
    """Where the model after the last finished epoch is kept, for ``--resume``."""
    return Path(model_dir) / CHECKPOINT


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
    parser.set_parameter_values(params, config["format_version"])
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


def new_trainer(model: dy.ParameterCollection, options: StackLSTMOptions) -> dy.Trainer:
    """SGD (the papers') or Adam, on summed minibatch losses, clipped at :func:`batch_clip_threshold`."""
    if options.optimizer == "adam":
        trainer = dy.AdamTrainer(model, alpha=options.learning_rate)
    else:
        trainer = dy.SimpleSGDTrainer(model, learning_rate=options.learning_rate)
    trainer.set_clip_threshold(batch_clip_threshold(options.clip, options.batch_size))
    return trainer


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
