"""Lemmas as edit scripts: what turns a form into its lemma, learned as one more tag (free of DyNet).

A lemma is rarely a new string: "dogs" -> "dog", "went" -> "go", "U.S." -> "U.S.".
As UDPipe 2 does (Straka 2018), the tagger predicts a *rule* that rewrites the
form: on the lower-cased form, cut a prefix and add one, cut a suffix and add one
(around the longest substring the form and lemma share), then case the result
(all lower, as the form, title, upper).  A lemma that shares no character with
its form ("went" -> "go") is stored whole: an absolute rule.  Rules generalize to
forms never seen in training ("blogged" -> cut "ged", add "" -> "blog"), and a
rule that cannot apply to a form (it cuts more than the form has) is never chosen
for it.

Forms seen in training are looked up first: ``LemmaLookup`` keeps each (form, UPOS)
pair's most frequent training lemma, which is right more often than any classifier
for the words it covers (measured on EWT dev, docs/experiments/lemmas.md).  It does not keep a
proper noun's lemma seen once whose rule no other training word shares: such
one-offs are annotators' quirks ("Vince" -> "VinceJKaminski@ECT", "Caroline" ->
"CarolineAbramo@ENRON" in EWT train) that copied to every later "Vince" are wrong;
the rules decide for those words instead.  Measured on the dev sets of five
treebanks (gold tokens): no lemma changes for proper nouns, where the same rule
for every part of speech costs Welsh 0.11 and Hungarian 0.07 points (rich
morphology has many rare rules that are right).

For a form the lookup misses, a rule whose lemma is one of the training lemmas
("kereskedelmet" -> "kereskedelem", seen as the lemma of other forms) may be
preferred to a likelier rule that makes an unknown string ("kereskedelom"):
:func:`preferred_lemma` adds a weight to the log-probability of such rules.  Training
chooses the weight on dev (0: the likeliest rule, as before); docs/experiments/lemmas.md has
the figures for every treebank.

The rule layer does not read the predicted UPOS, so it guesses a capitalized unseen
word's lemma casing from the word alone: EWT's "Firefox" (a proper noun) became
"firefox".  :class:`LemmaCasings` counts, for each UPOS and shape of the form, how
training lemmas are cased; with a weight chosen on dev, a rule whose lemma is cased
unusually for the word's predicted UPOS loses that much of its log-probability.
"""

from __future__ import annotations

import functools
import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from lstmparse.io.formats import BLANK_VALUES

ABSOLUTE = "="  # a rule that is the lemma itself
OTHER_CASING = "other"  # a lemma none of CASINGS gives (mixed case of its own: "McDonald" from "MCDONALD")
CASINGS = ("lower", "form", "title", "upper")  # tried in this order: the first that reproduces the lemma


@functools.lru_cache(maxsize=1 << 17)  # training asks for every word's rule every epoch
def lemma_rule(form: str, lemma: str) -> str:
    """The rule (a JSON string) that rewrites ``form`` into ``lemma``; absolute when no edit reproduces it."""
    low_form, low_lemma = form.lower(), lemma.lower()
    start, at, length = _longest_common_substring(low_form, low_lemma)
    if length:
        edit = [start, low_lemma[:at], len(low_form) - start - length, low_lemma[at + length :]]
        for casing in CASINGS:
            rule = json.dumps([casing, *edit], ensure_ascii=False)
            if apply_rule(rule, form) == lemma:
                return rule
    return json.dumps([ABSOLUTE, lemma], ensure_ascii=False)


def apply_rule(rule: str, form: str) -> str | None:
    """``form`` rewritten by ``rule``; None when the rule cannot apply (it cuts more than the form has)."""
    kind, *edit = json.loads(rule)
    if kind == ABSOLUTE:
        return edit[0]
    prefix_cut, prefix, suffix_cut, suffix = edit
    low_form = form.lower()
    if prefix_cut + suffix_cut >= len(low_form):
        return None
    stem = prefix + low_form[prefix_cut : len(low_form) - suffix_cut] + suffix
    return _cased(stem, kind, form)


def _cased(lemma: str, casing: str, form: str) -> str:
    if casing == "lower":
        return lemma
    if casing == "upper":
        return lemma.upper()
    if casing == "title":
        return lemma[:1].upper() + lemma[1:]
    # "form": each character upper-cased where the form's character at that place is
    return "".join(c.upper() if k < len(form) and form[k].isupper() else c for k, c in enumerate(lemma))


def _longest_common_substring(a: str, b: str) -> tuple[int, int, int]:
    """(start in a, start in b, length) of the longest common substring, the earliest in ``a`` on ties."""
    best = (0, 0, 0)
    previous = [0] * (len(b) + 1)
    for i in range(1, len(a) + 1):
        current = [0] * (len(b) + 1)
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                current[j] = previous[j - 1] + 1
                if current[j] > best[2]:
                    best = (i - current[j], j - current[j], current[j])
        previous = current
    return best


def lemma_casing(form: str, lemma: str) -> str:
    """The first of :data:`CASINGS` that casts the lower-cased ``lemma`` as it is, for this form (as rules do)."""
    low = lemma.lower()
    return next((casing for casing in CASINGS if _cased(low, casing, form) == lemma), OTHER_CASING)


def form_shape(form: str) -> str:
    """How a form is cased: "lower" (no capital), "upper" (no small letter), "title" (a capital, then small letters),
    or "mixed"."""
    if not any(c.isupper() for c in form):
        return "lower"
    if not any(c.islower() for c in form):
        return "upper"
    return "title" if form[:1].isupper() and not any(c.isupper() for c in form[1:]) else "mixed"


def preferred_lemma(
    form: str,
    scores: np.ndarray,
    rules: Sequence[str],
    known: frozenset[str],
    weight: float,
    casing_penalties: Mapping[str, float] | None = None,
) -> str:
    """The lemma of the rule with the best score plus ``weight`` if its lemma (lower-cased) is in ``known``,
    plus its casing's penalty (:meth:`LemmaCasings.penalties`, none where not given).

    ``scores``: the rules' log-probabilities for this word (or scores off from them by one
    constant; -inf where ruled out).  Rules that cannot apply are passed over; at weight 0
    and no penalties this is the best rule that applies (the form itself where none does).
    Rules are read best first and the reading stops where no later rule can win (penalties
    are never positive): a word costs a few rules.
    """
    best, best_value = form, -math.inf
    for r in np.argsort(-scores):
        score = float(scores[r])
        if score == -math.inf or score + weight <= best_value:
            break
        lemma = apply_rule(rules[r], form)
        if not lemma:
            continue
        value = score + weight if lemma.lower() in known else score
        if casing_penalties:
            value += casing_penalties.get(lemma_casing(form, lemma), 0.0)
        if value > best_value:
            best, best_value = lemma, value
    return best


class LemmaLookup:
    """Each (form, UPOS) pair's most frequent lemma in the training data."""

    def __init__(self, table: dict[str, dict[str, str]]) -> None:
        self.table = table  # form -> UPOS -> lemma

    @classmethod
    def from_pairs(cls, words: Iterable[tuple[str, str, str]], rules: Counter | None = None) -> LemmaLookup:
        """From (form, UPOS, lemma) triples; ties go to the lemma first seen.

        With ``rules`` (how often each rule occurs in the training data,
        :func:`training_rules`), a proper noun's lemma seen once whose rule occurs
        once is passed over: the pair's next lemma is kept, or none.
        """
        counts: dict[tuple[str, str], Counter] = {}
        for form, upos, lemma in words:
            counts.setdefault((form, upos), Counter())[lemma] += 1
        table: dict[str, dict[str, str]] = {}
        for (form, upos), lemmas in counts.items():
            trusted = [
                candidate
                for candidate, seen in lemmas.most_common()
                if seen > 1 or rules is None or upos != "PROPN" or rules[lemma_rule(form, candidate)] > 1
            ]
            if trusted:
                table.setdefault(form, {})[upos] = trusted[0]
        return cls(table)

    def get(self, form: str, upos: str) -> str | None:
        return self.table.get(form, {}).get(upos)

    @functools.cached_property
    def known_lemmas(self) -> frozenset[str]:
        """Every lemma of the table, lower-cased: what :func:`preferred_lemma` favours.

        Not ``_``: a treebank's blank lemma (Uyghur leaves 4,968 training words' blank) is no word to favour.
        """
        lemmas = (lemma.lower() for by_upos in self.table.values() for lemma in by_upos.values())
        return frozenset(lemma for lemma in lemmas if lemma not in BLANK_VALUES)

    def to_json(self) -> dict:
        return self.table

    @classmethod
    def from_json(cls, table: dict) -> LemmaLookup:
        return cls(table)


class LemmaCasings:
    """How the training lemmas of each UPOS and form shape are cased (:func:`lemma_casing`), counted.

    EWT's proper nouns keep their capitals ("Firefox"), its common nouns lose them
    ("Cats" -> "cat"): the counts say so for every UPOS, and for every treebank.
    """

    def __init__(self, counts: dict[str, dict[str, int]]) -> None:
        self.counts = counts  # "UPOS shape" -> casing -> training words
        self._penalties: dict[tuple[str, str, float], dict[str, float]] = {}

    @classmethod
    def from_words(cls, words: Iterable[tuple[str, str, str]]) -> LemmaCasings:
        """From (form, UPOS, lemma) triples; a blank lemma says nothing of casing."""
        counts: dict[str, dict[str, int]] = {}
        for form, upos, lemma in words:
            if lemma not in BLANK_VALUES:
                by_casing = counts.setdefault(f"{upos} {form_shape(form)}", {})
                casing = lemma_casing(form, lemma)
                by_casing[casing] = by_casing.get(casing, 0) + 1
        return cls(counts)

    def penalties(self, form: str, upos: str, weight: float) -> dict[str, float]:
        """``weight`` times each casing's log-probability less the likeliest one's, for a word of this UPOS and
        form (add-one smoothing): 0 for the usual casing, below 0 for the others."""
        key = (upos, form_shape(form), weight)
        if key not in self._penalties:
            seen = self.counts.get(f"{upos} {key[1]}", {})
            top = max(seen.values(), default=0)
            casings = (*CASINGS, OTHER_CASING)
            self._penalties[key] = {c: weight * math.log((seen.get(c, 0) + 1) / (top + 1)) for c in casings}
        return self._penalties[key]

    def to_json(self) -> dict:
        return self.counts

    @classmethod
    def from_json(cls, counts: dict) -> LemmaCasings:
        return cls(counts)


def training_rules(words: Sequence[tuple[str, str]]) -> Counter:
    """How often each rule turns the training data's forms into their lemmas ((form, lemma) pairs)."""
    return Counter(lemma_rule(form, lemma) for form, lemma in words)
