"""The tagger's network: word vectors, a sentence bi-LSTM and one output layer per tag column.

Sentences are encoded in groups of equal length, each group one dense batched
graph (no padding, so a sentence's tags never depend on what else is in the
batch); training and tagging run the same code.  With lemmas, one more output
layer picks each word's lemma rule (``tagger/lemmas.py``); a form seen in
training with the predicted UPOS takes its training lemma instead.  Where training
kept the dictionary of seen analyses (``tagger/analyses.py``), such a form also takes
the best-scored of the FEATS it had with that UPOS.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

import dynet as dy
import numpy as np

from lstmparse.core.ensembles import TagDistribution, log_softmax_columns
from lstmparse.core.model_io import assign_values, birnn_parameters, load_model, model_contents, save_model
from lstmparse.core.records import ModelRecord, directory_of
from lstmparse.core.vocab import Vocabulary
from lstmparse.io.formats import Sentence
from lstmparse.layers import transduce
from lstmparse.layers.chars import CharacterLSTM
from lstmparse.layers.embeddings import pretrained_ids, word_ids
from lstmparse.layers.encoders import SentenceVectors, batched_columns
from lstmparse.layers.lstms import vanilla_lstm
from lstmparse.layers.tables import table_rows, word_table
from lstmparse.tagger.analyses import SeenAnalyses
from lstmparse.tagger.companions import UPOS_COMPANIONS, UposCompanions
from lstmparse.tagger.features import (
    ABSENT,
    PREFIX,
    feature_vocabularies,
    features_by_upos,
    joined_features,
    split_features,
)
from lstmparse.tagger.grouping import keep_given_upos, mix_upos
from lstmparse.tagger.lemmas import LemmaCasings, LemmaLookup, lemma_rule, preferred_lemma, training_rules
from lstmparse.tagger.options import COLUMNS, LEMMA, TaggerDimensions
from lstmparse.tagger.outputs import GroupOutputs
from lstmparse.tagger.symbols import unknown_pictographs_as_symbols

ARCH = "tagger"
LEMMA_LOOKUP = "lemma_lookup"  # the vocabulary file's entry for the (form, UPOS) -> lemma table
FEATURES_BY_UPOS = "features_by_upos"  # the vocabulary file's entry for the feature names each UPOS takes
SEEN_ANALYSES = "seen_analyses"  # the vocabulary file's entry for the form -> UPOS -> FEATS dictionary
USE_SEEN_ANALYSES = "use_seen_analyses"  # and whether it decides FEATS (absent: it does, as before it was stored)
USE_UPOS_COMPANIONS = "use_upos_companions"  # whether the companions mend XPOS and FEATS (absent: they do)
KNOWN_LEMMA_WEIGHT = "known_lemma_weight"  # the vocabulary file's entry: how much a rule making a training lemma gains
LEMMA_CASINGS = "lemma_casings"  # the vocabulary file's entry: how training lemmas are cased, by UPOS and form shape
LEMMA_CASING_WEIGHT = "lemma_casing_weight"  # the vocabulary file's entry: how much an unusual casing costs a rule
FEATS_FROM = ("string", "features", "likelier")  # what fills FEATS in a tagger with per-feature outputs
FEATS_FROM_DEFAULT = "likelier"  # measured: docs/experiments/feats.md


class Tagger:
    """Word vectors, the sentence bi-LSTM and the UPOS, XPOS and FEATS output layers."""

    def __init__(
        self,
        vocabs: dict[str, Vocabulary],
        dims: TaggerDimensions,
        lemma_lookup: LemmaLookup | None = None,
        frozen: Mapping[str, np.ndarray] | None = None,
        allowed_features: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        """``frozen``: a model file's arrays, for a tagger loaded to tag (its word tables stay arrays, not DyNet's, and
        its LSTMs run fused operations, :mod:`lstmparse.layers.lstms`);
        ``allowed_features``: with ``dims.factored_feats``, the feature names each UPOS takes."""
        self.vocabs, self.dims = vocabs, dims
        self.columns = (*COLUMNS, LEMMA) if dims.lemmas else COLUMNS
        self.lemma_lookup = lemma_lookup or LemmaLookup({})
        self.features = [name for name in vocabs if name.startswith(PREFIX)] if dims.factored_feats else []
        self.allowed_features = {upos: set(names) for upos, names in (allowed_features or {}).items()}
        # per UPOS, which of self.features it takes (in their order): one lookup per word when tagging
        self.feature_masks = {
            upos: np.array([name[len(PREFIX) :] in names for name in self.features], dtype=bool)
            for upos, names in self.allowed_features.items()
        }
        # what fills FEATS: the whole-string output, the per-feature outputs, or for each word the likelier of the two
        self.feats_from = FEATS_FROM_DEFAULT if dims.factored_feats else "string"
        self.model = dy.ParameterCollection()
        model = self.model
        self.word_embeddings = word_table(model, "words", (len(vocabs["words"]), dims.word), frozen)
        fused = frozen is not None
        self.char_lstm = CharacterLSTM(model, vocabs["chars"], dims.char_embedding, dims.chars, fused)
        input_dim = dims.word + self.char_lstm.dim
        if dims.pretrained:
            shape = (len(vocabs["pretrained"]), dims.pretrained)
            self.pretrained_embeddings = word_table(model, "pretrained", shape, frozen)
            input_dim += dims.pretrained
        self.context_vectors = SentenceVectors.shared(dims.encoder) if dims.encoder else None
        if self.context_vectors is not None:
            input_dim += self.context_vectors.dim
        self.birnn = dy.BiRNNBuilder(dims.layers, input_dim, dims.hidden, model, vanilla_lstm(fused))
        self.outputs = {
            column: (
                model.add_parameters((len(vocabs[column]), self._output_input_dim(column))),
                model.add_parameters(len(vocabs[column])),
            )
            for column in (*self.columns, *self.features)
        }
        if dims.lemmas and dims.lemma_feats:
            self.lemma_feats = model.add_lookup_parameters((len(vocabs["feats"]), dims.lemma_feats))
        self.dropout = 0.0
        self.training_record: dict = {}
        self.analyses: SeenAnalyses | None = None  # the training words' analyses (tagger/analyses.py)
        self.use_analyses = True  # whether they decide a seen word's FEATS: chosen on dev by training (or a pipeline)
        self.companions: UposCompanions | None = None  # the XPOS and FEATS seen with each UPOS (tagger/companions.py)
        self.use_companions = True  # whether they mend a word's XPOS and FEATS (a pipeline may choose on dev)
        self.known_lemma_weight = 0.0  # chosen on dev by training (tagger/lemmas.py: preferred_lemma)
        self.lemma_casings = LemmaCasings({})  # counted from the training data (tagger/lemmas.py)
        self.lemma_casing_weight = 0.0  # chosen on dev by training, as known_lemma_weight

    def _output_input_dim(self, column: str) -> int:
        """The lemma layer also reads the word's own character vector: lemma rules are mostly about its ending
        (and, with ``lemma_feats``, the predicted FEATS)."""
        return self.dims.hidden + (self.char_lstm.dim + self.dims.lemma_feats if column == LEMMA else 0)

    @classmethod
    def from_sentences(
        cls, sentences: Sequence[Sentence], dims: TaggerDimensions, pretrained: Vocabulary | None = None
    ) -> Tagger:
        """An untrained tagger with the training data's words, characters and tags (and pretrained words)."""
        words = Counter(t.form for s in sentences for t in s.tokens)
        vocabs = {
            "words": Vocabulary.from_counts(words),
            "chars": Vocabulary.from_counts(Counter(c for form in words for c in form)),
        }
        for column in COLUMNS:
            vocabs[column] = Vocabulary.from_counts(Counter(getattr(t, column) for s in sentences for t in s.tokens))
        if pretrained is not None:
            vocabs["pretrained"] = pretrained
        allowed = None
        if dims.factored_feats:
            columns = [(t.upos, t.feats) for s in sentences for t in s.tokens]
            vocabs |= feature_vocabularies(columns)
            allowed = features_by_upos(columns)
        lookup, casings = None, LemmaCasings({})
        if dims.lemmas:
            lemmatized = [(t.form, t.upos, t.lemma) for s in sentences for t in s.tokens]
            rules = training_rules([(form, lemma) for form, _, lemma in lemmatized])
            vocabs[LEMMA] = Vocabulary.from_counts(rules)
            lookup, casings = LemmaLookup.from_pairs(lemmatized, rules), LemmaCasings.from_words(lemmatized)
        tagger = cls(vocabs, dims, lookup, allowed_features=allowed)
        tagger.companions = UposCompanions.learn((t.upos, t.xpos, t.feats) for s in sentences for t in s.tokens)
        tagger.lemma_casings = casings
        return tagger

    def gold_label(self, column: str, token) -> int:
        """The id of a training word's gold value in ``column`` (its lemma rule for the lemma, its value or ``_``
        for a feature's output)."""
        if column.startswith(PREFIX):
            return self.vocabs[column].get(split_features(token.feats).get(column[len(PREFIX) :], ABSENT))
        if column == LEMMA:
            return self.vocabs[LEMMA].get(lemma_rule(token.form, token.lemma))
        return self.vocabs[column].get(getattr(token, column))

    def set_dropout(self, rate: float) -> None:
        """The dropout rate on the bi-LSTM's inputs and inside it; 0 for tagging.

        Every family's models take their rate this way (``set_dropout``).
        """
        self.dropout = rate

    def named_parameters(self) -> dict:
        named = {"words": self.word_embeddings}
        named |= self.char_lstm.named_parameters("chars")
        if self.dims.pretrained:
            named["pretrained"] = self.pretrained_embeddings
        named |= birnn_parameters("birnn", self.birnn)
        for column, (weights, bias) in self.outputs.items():
            named |= {f"{column}/weights": weights, f"{column}/bias": bias}
        if self.dims.lemmas and self.dims.lemma_feats:
            named["lemma_feats"] = self.lemma_feats
        return named

    def set_pretrained(self, vectors: np.ndarray) -> None:
        """Copy fixed pretrained vectors into their table (row 0, the unknown word, stays zero)."""
        self.pretrained_embeddings.init_from_array(np.concatenate([np.zeros((1, vectors.shape[1])), vectors]))

    def scores(self, group: Sequence[Sequence[str]], train: bool = False) -> dict[str, dy.Expression]:
        """Each column's scores for a group of sentences of one length: (classes x 1), batch word-major.

        Batch element ``j * len(group) + b`` is word ``j`` of sentence ``b``.
        """
        hidden, lemma_input = self.encode(group, train)
        scores = {column: self.column_scores(column, hidden) for column in (*COLUMNS, *self.features)}
        if LEMMA in self.outputs:
            scores[LEMMA] = self.column_scores(LEMMA, lemma_input)
        return scores

    def column_scores(self, column: str, inputs: dy.Expression) -> dy.Expression:
        """A column's output layer over its inputs (the bi-LSTM's output; for lemmas, with the character vector)."""
        weights, bias = self.outputs[column]
        return dy.affine_transform([bias, weights, inputs])

    def encode(self, group: Sequence[Sequence[str]], train: bool = False) -> tuple[dy.Expression, dy.Expression]:
        """The bi-LSTM's output for every word of a length group, and the lemma layer's input ([output; chars]).

        Both batched word-major, as :meth:`scores` says.
        """
        size, length = len(group), len(group[0])
        if any(len(forms) != length for forms in group):
            raise ValueError("a group's sentences must have one length")
        by_position = [[forms[j] for forms in group] for j in range(length)]
        flat = [form for column in by_position for form in column]
        chars = self.char_lstm.encode(flat)
        words = table_rows(self.word_embeddings, word_ids(self.vocabs["words"], flat, train))
        pretrained = None
        if self.dims.pretrained:
            ids = pretrained_ids(self.vocabs["pretrained"], flat)
            pretrained = table_rows(self.pretrained_embeddings, ids, update=False)
        context = self._context_vectors(group)
        inputs = []
        for j in range(length):
            position = list(range(j * size, (j + 1) * size))
            parts = [dy.pick_batch_elems(words, position), dy.pick_batch_elems(chars, position)]
            if pretrained is not None:
                parts.append(dy.pick_batch_elems(pretrained, position))
            if context is not None:
                parts.append(context[j])
            vector = dy.concatenate(parts)
            inputs.append(dy.dropout(vector, self.dropout) if train and self.dropout else vector)
        hidden = dy.concatenate_to_batch(transduce(self.birnn, inputs, self.dropout if train else 0.0))
        parts = [hidden, chars]  # chars is laid out as hidden is
        if self.dims.lemmas and self.dims.lemma_feats:
            parts.append(self._predicted_feats(hidden))
        return hidden, dy.concatenate(parts)

    def prepare(self, forms: Sequence[Sequence[str]]) -> None:
        """Compute the encoder's vectors of sentences about to be tagged, in batches of any length (no encoder: no
        work)."""
        if self.context_vectors is not None:
            self.context_vectors.prepare(forms)

    def _context_vectors(self, group: Sequence[Sequence[str]]) -> list[dy.Expression] | None:
        """The encoder's vector of each word of a length group, one batched input per position (None: no encoder)."""
        if self.context_vectors is None:
            return None
        self.context_vectors.prepare(group)
        return batched_columns([self.context_vectors(forms) for forms in group])

    def _predicted_feats(self, hidden: dy.Expression) -> dy.Expression:
        """The embedding of each word's best FEATS string by the network itself (never gold, in training too)."""
        scores = self.column_scores("feats", hidden).npvalue().reshape(len(self.vocabs["feats"]), -1)
        scores[0] = -np.inf
        return dy.lookup_batch(self.lemma_feats, scores.argmax(axis=0).tolist(), update=True)

    def group_loss(self, group: Sequence[Sentence]) -> dy.Expression:
        """The summed negative log-likelihood of a length group's gold tags (all three columns)."""
        scores = self.scores([s.forms for s in group], train=True)
        losses = []
        for column, expression in scores.items():
            gold = [self.gold_label(column, s.tokens[j]) for j in range(len(group[0])) for s in group]
            losses.append(dy.sum_batches(dy.pickneglogsoftmax_batch(expression, gold)))
        return dy.esum(losses)

    def predict(
        self,
        group: Sequence[Sequence[str]],
        upos: Sequence[Sequence[str]] | None = None,
        others: Sequence[TagDistribution | None] | None = None,
        outputs: GroupOutputs | None = None,
    ) -> list[dict[str, list[str]]]:
        """Each sentence's predicted tags by column, for a group of sentences of one length.

        ``upos``: each sentence's known UPOS (blank where unknown), kept; ``others``: another
        model's UPOS distribution per sentence, averaged with the tagger's; XPOS, FEATS and the
        seen analyses then follow the UPOS (``tagger/grouping.py``).
        ``outputs``: where the scores come from, when not from this tagger alone (an
        ensemble's mean, ``tagger/ensemble.py``); this tagger's dictionaries (lemma
        lookup, seen analyses) and settings decide what is done with them.
        """
        size, length = len(group), len(group[0])
        outputs = outputs if outputs is not None else GroupOutputs([self], group)
        predicted = [{column: [""] * length for column in self.columns} for _ in group]
        scores = {}
        for column in COLUMNS:
            values = outputs.column(column)
            strings = self.vocabs[column].strings
            for k, best in enumerate(values.argmax(axis=0)):
                predicted[k % size][column][k // size] = strings[best]
            scores[column] = values
        if others is not None:
            mix_upos(predicted, scores["upos"], others, self.vocabs["upos"].strings)
        own_upos = [tags["upos"] for tags in predicted]  # what the lemma lookup reads: not a UPOS given as such
        if upos is not None:
            keep_given_upos(predicted, upos)
        string_log_probs = log_softmax_columns(scores["feats"])
        feature_log_probs = {}
        if self.features and self.feats_from != "string":
            feature_log_probs = self._predict_features(size, length, outputs, predicted, string_log_probs.max(axis=0))
        if self.analyses is not None and self.use_analyses:
            self._seen_analyses(group, predicted, string_log_probs, feature_log_probs)
        if self.companions is not None and self.use_companions:  # whole FEATS strings only: per-feature outputs
            # follow UPOS already
            mended = ["xpos", "feats"] if self.feats_from == "string" else ["xpos"]
            self.companions.mend(predicted, scores, self.vocabs, mended)
        unknown_pictographs_as_symbols(self.vocabs, group, predicted, upos)
        if LEMMA in self.outputs:
            self._predict_lemmas(group, outputs, predicted, own_upos)
        return predicted

    def _predict_features(
        self, size: int, length: int, outputs: GroupOutputs, predicted: list, string_log_probs: np.ndarray
    ) -> dict[str, np.ndarray]:
        """FEATS joined from each feature's best value, keeping the features the predicted UPOS takes.

        With ``feats_from`` "likelier", a word keeps the whole-string output's FEATS
        unless the features' joint log-probability (the sum of each feature's, ``_``
        for a feature the UPOS does not take) beats that string's.  Returns each
        feature output's (values x words) log-probabilities.
        """
        words = size * length
        none = np.zeros(len(self.features), dtype=bool)
        upos = [predicted[k % size]["upos"][k // size] for k in range(words)]
        taken = np.stack([self.feature_masks.get(tag, none) for tag in upos], axis=1)  # (features x words)
        best, joint, every = {}, np.zeros(words, dtype=np.float32), {}
        for name, takes in zip(self.features, taken, strict=True):
            values = outputs.column(name)
            chosen, feature = values.argmax(axis=0), name[len(PREFIX) :]
            log_probs = every[name] = log_softmax_columns(values)
            joint += np.where(takes, log_probs[chosen, np.arange(words)], log_probs[self.vocabs[name].get(ABSENT)])
            strings = self.vocabs[name].strings
            best[feature] = [strings[v] if kept else ABSENT for v, kept in zip(chosen, takes, strict=True)]
        for k in range(words):
            if self.feats_from == "likelier" and joint[k] <= string_log_probs[k]:
                continue
            predicted[k % size]["feats"][k // size] = joined_features({f: values[k] for f, values in best.items()})
        return every

    def _seen_analyses(
        self, group: Sequence[Sequence[str]], predicted: list, string_log_probs: np.ndarray, feature_log_probs: dict
    ) -> None:
        """A word seen in training with its predicted UPOS takes the best-scored of the FEATS it had with it."""
        assert self.analyses is not None
        size = len(group)
        for k in range(size * len(group[0])):
            tags, j = predicted[k % size], k // size
            candidates = self.analyses.candidates(group[k % size][j], tags["upos"][j])
            if candidates and candidates != [tags["feats"][j]]:
                tags["feats"][j] = max(
                    candidates, key=lambda feats: self._analysis_score(feats, k, string_log_probs, feature_log_probs)
                )

    def _analysis_score(self, feats: str, k: int, string_log_probs: np.ndarray, feature_log_probs: dict) -> float:
        """The network's log-probability of word ``k``'s FEATS being ``feats``, as ``feats_from`` reads FEATS."""
        string_id = self.vocabs["feats"].get(feats)
        string_score = float(string_log_probs[string_id, k]) if string_id else -np.inf
        if not feature_log_probs:
            return string_score
        values = split_features(feats)
        joint = 0.0
        for name in self.features:
            value_id = self.vocabs[name].get(values.get(name[len(PREFIX) :], ABSENT))
            joint += float(feature_log_probs[name][value_id, k]) if value_id else -np.inf
        return joint if self.feats_from == "features" else max(joint, string_score)

    def _predict_lemmas(
        self, group: Sequence[Sequence[str]], outputs: GroupOutputs, predicted: list, upos: list[list[str]]
    ) -> None:
        """Each word's training lemma for its form and the tagger's own UPOS (or its mixture with another model's;
        a joint parser's UPOS as such cost EWT dev lemmas 0.02), else its best rule that applies, rules that
        make a training lemma favoured by ``known_lemma_weight`` and lemmas cased unusually for the UPOS
        (``lemma_casings``) disfavoured by ``lemma_casing_weight``.

        The rule layer runs only for the words the lookup misses (about one in ten of
        running text), built after the tag layers so the graph computes nothing more.
        """
        size, length = len(group), len(group[0])
        missed = []
        for k in range(size * length):
            tags, j = predicted[k % size], k // size
            tags[LEMMA][j] = self.lemma_lookup.get(group[k % size][j], upos[k % size][j])
            if tags[LEMMA][j] is None:
                missed.append(k)
        if not missed:
            return
        values = outputs.lemma_rules(missed)
        rules, known, weight = self.vocabs[LEMMA].strings, self.lemma_lookup.known_lemmas, self.known_lemma_weight
        casing_weight = self.lemma_casing_weight
        for k, column in zip(missed, values.T, strict=True):
            form, word_upos = group[k % size][k // size], upos[k % size][k // size]
            casing = self.lemma_casings.penalties(form, word_upos, casing_weight) if casing_weight else None
            predicted[k % size][LEMMA][k // size] = preferred_lemma(form, column, rules, known, weight, casing)

    def save(self, directory: str, training: dict | None = None) -> None:
        vocab: dict[str, object] = {name: vocab.to_json() for name, vocab in self.vocabs.items()}
        if self.dims.lemmas:
            vocab[LEMMA_LOOKUP] = self.lemma_lookup.to_json()
        if self.dims.factored_feats:
            vocab[FEATURES_BY_UPOS] = {upos: sorted(names) for upos, names in self.allowed_features.items()}
        if self.analyses is not None:
            vocab[SEEN_ANALYSES] = self.analyses.to_json()
            vocab[USE_SEEN_ANALYSES] = self.use_analyses
        if self.companions is not None:
            vocab[UPOS_COMPANIONS] = self.companions.to_json()
            vocab[USE_UPOS_COMPANIONS] = self.use_companions
        if self.known_lemma_weight:
            vocab[KNOWN_LEMMA_WEIGHT] = self.known_lemma_weight
        if self.lemma_casings.counts:
            vocab[LEMMA_CASINGS] = self.lemma_casings.to_json()
        if self.lemma_casing_weight:
            vocab[LEMMA_CASING_WEIGHT] = self.lemma_casing_weight
        record = training if training is not None else self.training_record
        save_model(directory, ARCH, self.dims, record, vocab, self.model, self.named_parameters())

    @classmethod
    def load(cls, source: str | Path | ModelRecord) -> Tagger:
        """A tagger's directory (or its record, whose config is not read again)."""
        config, vocab, params = load_model(source, ARCH, "tagger")
        with model_contents(directory_of(source)):
            lookup = LemmaLookup.from_json(vocab.pop(LEMMA_LOOKUP, {}))
            allowed = vocab.pop(FEATURES_BY_UPOS, {})
            analyses, use_analyses = vocab.pop(SEEN_ANALYSES, None), vocab.pop(USE_SEEN_ANALYSES, True)
            companions, use_companions = vocab.pop(UPOS_COMPANIONS, None), vocab.pop(USE_UPOS_COMPANIONS, True)
            known_lemma_weight = vocab.pop(KNOWN_LEMMA_WEIGHT, 0.0)
            casings, casing_weight = vocab.pop(LEMMA_CASINGS, {}), vocab.pop(LEMMA_CASING_WEIGHT, 0.0)
            vocabs = {name: Vocabulary.from_json(v) for name, v in vocab.items()}
            frozen = params if config["format_version"] >= 2 else None  # format 1 names tables otherwise
            tagger = cls(vocabs, TaggerDimensions(**config["dims"]), lookup, frozen, allowed)
        assign_values(tagger.model, tagger.named_parameters(), params, config["format_version"])
        tagger.training_record = config.get("training", {})
        tagger.analyses = SeenAnalyses.from_json(analyses) if analyses is not None else None
        tagger.companions = UposCompanions.from_json(companions) if companions is not None else None
        tagger.use_analyses, tagger.use_companions = bool(use_analyses), bool(use_companions)
        tagger.known_lemma_weight = float(known_lemma_weight)
        tagger.lemma_casings, tagger.lemma_casing_weight = LemmaCasings.from_json(casings), float(casing_weight)
        return tagger
