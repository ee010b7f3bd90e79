"""Training the tagger: Adam on batches of sentences of one length, the best dev UPOS accuracy kept.

Batches of equal-length sentences are dense graphs (no autobatching, no padding);
words seen once are replaced by the unknown word half the time, and dropout
(0.33, as Plank et al. 2016 and Stanza use) applies to the bi-LSTM's inputs and
inside it.  Dev is tagged after every epoch; the model directory keeps the epoch
with the best UPOS accuracy, the column a tag-reading parser depends on.  At the
end, a treebank with features tries the dictionary of seen analyses on dev
(:func:`choose_analyses`), and a treebank with lemmas chooses how much a lemma rule
that makes a training lemma is favoured and a lemma cased unusually for its UPOS
disfavoured (:func:`choose_lemma_weights`).
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections.abc import Sequence
from typing import TextIO

from lstmparse.core.batching import length_batches
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
from lstmparse.core.vocab import Vocabulary
from lstmparse.errors import InputError
from lstmparse.io.formats import BLANK_VALUES, Sentence, read_sentences
from lstmparse.layers.embeddings import read_word2vec
from lstmparse.tagger.analyses import SeenAnalyses
from lstmparse.tagger.grouping import tag_all
from lstmparse.tagger.model import KNOWN_LEMMA_WEIGHT, LEMMA_CASING_WEIGHT, SEEN_ANALYSES, USE_SEEN_ANALYSES, Tagger
from lstmparse.tagger.options import COLUMNS, LEMMA, TaggerOptions


def _words(batch: list[Sentence]) -> int:
    return sum(len(sentence) for sentence in batch)


def read_tagged(path: str) -> list[Sentence]:
    """Sentences whose UPOS column is filled: the tagger learns from them."""
    sentences = list(read_sentences(path))
    for sentence in sentences:
        blank = next((i for i, t in enumerate(sentence.tokens) if t.upos in BLANK_VALUES), None)
        if blank is not None:
            raise InputError(sentence.path, sentence.line_of(blank), "a training word without UPOS")
    return sentences


def accuracies(tagger: Tagger, sentences: Sequence[Sentence]) -> dict[str, float]:
    """Per-column accuracy (percent) on gold-tokenized sentences, and AllTags (UPOS, XPOS and FEATS right)."""
    predicted = tag_all(tagger, [s.forms for s in sentences])
    right = dict.fromkeys((*tagger.columns, "all_tags"), 0)
    words = 0
    for sentence, tags in zip(sentences, predicted, strict=True):
        for j, token in enumerate(sentence.tokens):
            for column in tagger.columns:
                right[column] += tags[column][j] == getattr(token, column)
            right["all_tags"] += all(tags[column][j] == getattr(token, column) for column in COLUMNS)
            words += 1
    return {name: round(100.0 * count / max(words, 1), 2) for name, count in right.items()}


ANALYSES_MARGIN = 0.2  # dev FEATS points the dictionary of seen analyses must add to be kept (below: noise)


def choose_analyses(tagger: Tagger, train: Sequence[Sentence], dev: Sequence[Sentence]) -> dict:
    """Learn the dictionary of the training words' analyses; let it decide FEATS if it raises dev's FEATS accuracy.

    Measured on the shipped taggers' dev sets (gold tokens): +0.35 to +0.40 FEATS on
    Hungarian, Welsh and Tamil, where many words are seen once or twice; -0.1 to -0.7
    on English, Greek, Wolof, Uyghur and Coptic, whose dev words often take analyses they
    never had in training.  So dev decides, with a margin of ``ANALYSES_MARGIN``; the
    dictionary is kept either way, for a pipeline to choose again as it ships
    (:mod:`lstmparse.pipeline.choices`).
    """
    tagger.analyses = SeenAnalyses.learn((t.form, t.upos, t.feats) for s in train for t in s.tokens)
    tagger.use_analyses = False
    without = accuracies(tagger, dev)["feats"]
    tagger.use_analyses = True
    with_analyses = accuracies(tagger, dev)["feats"]
    tagger.use_analyses = with_analyses >= without + ANALYSES_MARGIN
    return {"dev_feats": without, "dev_feats_seen_analyses": with_analyses, "kept": tagger.use_analyses}


def keep_analyses_if_better(
    model_dir: str, train: Sequence[Sentence], dev: Sequence[Sentence], log: TextIO = sys.stderr
) -> dict:
    """The trained tagger in ``model_dir`` stores the dictionary of seen analyses, used if dev says so (vocabulary
    rewritten).

    Only the vocabulary and the training record change: the parameters are written back
    as they are stored (a half-precision model stays one).
    """
    tagger = Tagger.load(model_dir)
    figures = choose_analyses(tagger, train, dev)
    print(
        f"FEATS on dev: {figures['dev_feats']:.2f} as the network picks them, "
        f"{figures['dev_feats_seen_analyses']:.2f} among a seen word's analyses: "
        f"{'kept' if figures['kept'] else 'not kept'}",
        file=log,
    )
    assert tagger.analyses is not None
    stored = {SEEN_ANALYSES: tagger.analyses.to_json(), USE_SEEN_ANALYSES: tagger.use_analyses}
    update_vocab(model_dir, stored, {"seen_analyses": figures}, drop=[SEEN_ANALYSES, USE_SEEN_ANALYSES])
    return figures


LEMMA_WEIGHTS = {  # what training tries on dev, in this order, for each weight of the lemma choice
    KNOWN_LEMMA_WEIGHT: (0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0),  # the best of eleven treebanks: 2 to 5
    LEMMA_CASING_WEIGHT: (0.0, 0.5, 1.0, 2.0, 4.0),  # EWT: 1
}
LEMMA_WEIGHT_MARGIN = 0.1  # dev lemma points a weight must add over 0 to be kept
LEMMA_WEIGHT_NAMES = {
    KNOWN_LEMMA_WEIGHT: "the weight of rules making a training lemma",
    LEMMA_CASING_WEIGHT: "the weight of a lemma's casing for its UPOS",
}


def choose_lemma_weights(tagger: Tagger, dev: Sequence[Sentence]) -> dict[str, dict]:
    """Set each weight of :data:`LEMMA_WEIGHTS` on ``tagger`` (in turn) to the value with the best dev lemmas.

    Favouring rules that make a lemma seen in training mends unseen inflected forms
    where the lemma is known from other forms (Hungarian, Greek, Tamil: +0.8 to +2 dev
    points), and matters little where most unseen words are names (English: +0.04).
    Disfavouring a lemma cased unusually for the word's UPOS mends English proper nouns
    (+0.19) and costs Greek and Hungarian a little.  How much each may outweigh the
    network's own preference differs by treebank, so dev decides, the smaller weight on
    ties, 0 unless another gains ``LEMMA_WEIGHT_MARGIN``.  This is the tagger's own choice,
    tagging alone; in a pipeline the choice is made again on the pipeline as it ships
    (:mod:`lstmparse.pipeline.choices`).
    """

    def lemma_accuracy() -> float:
        return accuracies(tagger, dev)["lemma"]

    figures = {}
    for name, weights in LEMMA_WEIGHTS.items():
        by_weight = {}
        for weight in weights:
            setattr(tagger, name, weight)
            by_weight[weight] = lemma_accuracy()
        best = max(weights, key=lambda weight: (by_weight[weight], -weight))
        setattr(tagger, name, best if by_weight[best] >= by_weight[0.0] + LEMMA_WEIGHT_MARGIN else 0.0)
        figures[name] = {
            "dev_lemma": {f"{weight:g}": value for weight, value in by_weight.items()},
            "kept": getattr(tagger, name),
        }
    return figures


def keep_lemma_weights_if_better(model_dir: str, dev: Sequence[Sentence], log: TextIO = sys.stderr) -> dict[str, dict]:
    """The trained tagger in ``model_dir`` takes the lemma weights dev chooses (vocabulary rewritten)."""
    tagger = Tagger.load(model_dir)
    figures = choose_lemma_weights(tagger, dev)
    for name, chosen in figures.items():
        tried = ", ".join(f"{weight} {value:.2f}" for weight, value in chosen["dev_lemma"].items())
        print(f"lemmas on dev by {LEMMA_WEIGHT_NAMES[name]}: {tried}; kept {chosen['kept']:g}", file=log)
    kept = {name: getattr(tagger, name) for name in figures if getattr(tagger, name)}
    update_vocab(model_dir, kept, figures, drop=list(figures))
    return figures


def has_lemmas(sentences: Sequence[Sentence]) -> bool:
    """Whether the training data has a lemma column to learn (most words' LEMMA filled)."""
    words = [t for s in sentences for t in s.tokens]
    return sum(t.lemma not in BLANK_VALUES for t in words) > len(words) / 2


def has_features(sentences: Sequence[Sentence]) -> bool:
    """Whether any training word has morphological features (Maltese's treebank has none)."""
    return any(t.feats not in BLANK_VALUES for s in sentences for t in s.tokens)


def train_tagger(options: TaggerOptions, log: TextIO = sys.stderr) -> dict:
    """Train and write the best tagger (dev UPOS accuracy) to ``options.model_dir``."""
    started = time.time()
    seed_epoch(options.seed, -1)
    train = read_tagged(options.train)
    dev = read_tagged(options.dev) if options.dev else []
    dims = options.dims
    dims.lemmas = has_lemmas(train)
    dims.factored_feats = dims.factored_feats or (options.factored_feats and has_features(train))
    if options.pretrained:
        vector_words, vectors = read_word2vec(options.pretrained)
        dims.pretrained = vectors.shape[1]
        tagger = Tagger.from_sentences(train, dims, Vocabulary(vector_words))
        tagger.set_pretrained(vectors)
    else:
        tagger = Tagger.from_sentences(train, dims)
    record = new_record(options, pretrained=options.pretrained)
    if tagger.context_vectors is not None:
        tagger.context_vectors.keep_for_training([s.forms for s in (*train, *dev)], log)
    print(
        f"training a tagger on {len(train)} sentences, {sum(len(s) for s in train)} words "
        f"({len(tagger.vocabs['words'])} distinct), "
        + ", ".join(f"{len(tagger.vocabs[c]) - 1} {c.upper()}" for c in COLUMNS)
        + (f", {len(tagger.vocabs[LEMMA]) - 1} lemma rules" if dims.lemmas else "")
        + f", {tagger.model.parameter_count()} parameters",
        file=log,
    )
    record = train_epochs(TaggerTraining(tagger, train, dev, options), options, record, -math.inf, log, started)
    if dev and has_features(train):
        record["seen_analyses"] = keep_analyses_if_better(options.model_dir, train, dev, log)
    if dev and dims.lemmas:
        record |= keep_lemma_weights_if_better(options.model_dir, dev, log)
    return record


class TaggerTraining(TrainingHooks):
    """The tagger's part in the shared loop."""

    loss_name = "loss_per_word"

    def __init__(self, tagger: Tagger, train: list[Sentence], dev: list[Sentence], options: TaggerOptions) -> None:
        self.tagger, self.examples, self.dev, self.options = tagger, train, dev, options
        self.dev_seconds_guess = len(dev) / 500.0
        self.trainer = adam_trainer(tagger.model, options)

    def train_epoch(self, epoch: int, stop_at: float | None) -> dict:
        batches = length_batches(random.sample(self.examples, len(self.examples)), len, self.options.batch_size)
        self.tagger.set_dropout(self.options.dropout)
        run = minibatch_epoch(self.tagger.group_loss, self.trainer, batches, _words, stop_at, epoch)
        self.tagger.set_dropout(0.0)
        return epoch_entry(epoch, run.examples, run.seconds, loss_per_word=run.loss / max(run.units, 1))

    def evaluate(self) -> tuple[float, dict] | None:
        if not self.dev:
            return None
        scores = accuracies(self.tagger, self.dev)
        return scores["upos"], {f"dev_{name}": value for name, value in scores.items()}

    def untested_score(self, entry: dict) -> float | None:
        return -entry["loss_per_word"]

    def save(self, model_dir: str, record: dict) -> None:
        record["best_dev_upos"] = record["epochs"][-1].get("dev_upos")
        self.tagger.save(model_dir, training=record)

    def dev_report(self, entry: dict) -> str:
        return "dev " + "  ".join(f"{c.upper()} {entry[f'dev_{c}']:.2f}" for c in (*self.tagger.columns, "all_tags"))
