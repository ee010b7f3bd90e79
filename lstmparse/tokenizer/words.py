"""Splitting a multi-word token into its syntactic words, as the training treebank did.

A dictionary-plus-copy model: a token seen as a multi-word token in training gets
its most frequent split; where those words spell the token (English ``don't`` ->
``do n't``, ``Bush's`` -> ``Bush 's``) the token's own characters are cut at the
same places, so its spelling and capitals are kept exactly.  An unseen token is
cut before the longest final word that ended such tokens at least twice in
training (``'s``, ``n't``, ``'ll``); failing that, by the rewrite rule of its
longest known ending (learned from two-word tokens whose words do not spell them,
as in Tamil: a token ending ``க்கும்`` is words ending ``க்கு`` and ``உம்``);
failing that, known first words of tokens that their words spell are split off
from the front, one after another.  Where a third or more of the training tokens
are three words or more (Coptic bound groups: ``ⲉⲣϣⲁⲛ`` + ``ⲧ`` + ``ⲃⲁϣⲟⲣ``), an
unseen token is first cut by a model of such groups learned from training's
(:mod:`lstmparse.tokenizer.bound_groups`; tokenizers trained before 2026-11-27 cut it into the
most probable sequence of words seen in such tokens, a unigram model of their
frequencies).  A token that no rule splits stays one word.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable

from lstmparse.tokenizer.bound_groups import BoundGroupSegmenter

MIN_ENDING_COUNT = 2  # an ending must have closed this many training tokens to split unseen ones
MIN_STEM = 2  # characters a rule must leave of a token before what it rewrites or splits off
BOUND_GROUPS = 1 / 3  # share of training tokens of three words or more above which unseen ones are segmented first
LONGEST_WORD = 30  # characters: the longest word the segmentation considers
LOOKUP_ENDING = 8  # characters: the longest token ending the multi-word lookup counts
LOOKUP_TOKENS = 5  # training tokens an ending must have closed for the lookup to read it
DECISIVE = 0.75  # share of multi-word (or of one-word) tokens with which an ending decides


class MultiwordSplitter:
    """The splits of multi-word tokens seen in training, and the word endings that split unseen ones."""

    def __init__(
        self,
        splits: dict[str, list[str]],
        endings: list[str],
        rewrites: list[tuple[str, str, str]] | None = None,
        leaders: list[str] | None = None,
        words: dict[str, int] | None = None,
        lookup: MultiwordLookup | None = None,
        bound_groups: BoundGroupSegmenter | None = None,
    ) -> None:
        self.lookup = lookup  # the training tokens' own decisions (see the class)
        self.use_lookup = True  # whether they decide: chosen on dev (the tokenizer's training, a pipeline's choices)
        self.splits = splits  # lower-cased token -> its most frequent words (lower-cased)
        self.endings = sorted(endings, key=len, reverse=True)  # longest first
        # (token ending, first word's ending, second word): the most frequent rule of each token ending
        self.rewrites = sorted(rewrites or [], key=lambda rule: len(rule[0]), reverse=True)
        self.leaders = sorted(leaders or [], key=len, reverse=True)  # first words of tokens their words spell
        self.bound_groups = bound_groups  # bound-group treebanks: how to cut an unseen group
        self.words = dict(words or {})  # the same, in older models: the words of groups, with their counts
        total = sum(self.words.values())
        self.log_probs = {word: math.log(count / total) for word, count in self.words.items()} if total else {}

    @classmethod
    def learn(cls, tokens: Iterable[tuple[str, list[str]]]) -> MultiwordSplitter:
        """From (token form, its words) pairs of multi-word tokens."""
        seen: dict[str, Counter] = defaultdict(Counter)
        endings: Counter = Counter()
        rewrites: dict[str, Counter] = defaultdict(Counter)
        leaders: Counter = Counter()
        spelled_groups: list[tuple[str, list[str]]] = []
        groups = several = 0
        for form, words in tokens:
            lowered = [word.lower() for word in words]
            token = form.lower()
            seen[token][tuple(lowered)] += 1
            spelled = "".join(lowered) == token
            if spelled and len(words) == 2:
                endings[lowered[-1]] += 1
            if spelled and len(words) >= 2:
                leaders[lowered[0]] += 1
                spelled_groups.append((token, lowered))
            groups += 1
            several += len(words) >= 3
            if not spelled and len(words) == 2:
                shared = _common_prefix(token, lowered[0])
                if shared >= MIN_STEM:
                    rewrites[token[shared:]][(lowered[0][shared:], lowered[1])] += 1
        splits = {form: list(counter.most_common(1)[0][0]) for form, counter in seen.items()}
        rules = [
            (ending, *counter.most_common(1)[0][0])
            for ending, counter in rewrites.items()
            if counter.most_common(1)[0][1] >= MIN_ENDING_COUNT
        ]
        common = [word for word, count in leaders.items() if count >= MIN_ENDING_COUNT]
        bound = None
        if groups and several / groups >= BOUND_GROUPS:
            bound = BoundGroupSegmenter.learn(spelled_groups)
        kept = [ending for ending, count in endings.items() if count >= MIN_ENDING_COUNT]
        return cls(splits, kept, rules, common, bound_groups=bound)

    def is_multiword(self, form: str, marked: bool) -> bool:
        """Whether a token is a multi-word token: as the tokenizer ``marked`` it, unless the lookup decides."""
        return marked if self.lookup is None or not self.use_lookup else self.lookup.decide(form, marked)

    def split(self, form: str) -> list[str]:
        """The syntactic words of a token that the tokenizer marked as a multi-word token."""
        lowered = form.lower()
        words = self.splits.get(lowered)
        if words is None:
            words = self._unseen(lowered)
            if words is None:
                return [form]
        if "".join(words) == lowered:
            return _cut(form, [len(word) for word in words])
        return _cased(words, form)

    def _unseen(self, lowered: str) -> list[str] | None:
        """The words of a token not seen in training, by the first rule that applies (None: none does)."""
        segmented = None
        if self.bound_groups is not None:
            segmented = self.bound_groups.segment(lowered)
        elif self.log_probs:
            segmented = self._segmented(lowered)
        if segmented is not None and len(segmented) > 1:
            return segmented
        ending = next((e for e in self.endings if lowered.endswith(e) and len(lowered) > len(e)), None)
        if ending is not None:
            return [lowered[: -len(ending)], ending]
        rule = next((r for r in self.rewrites if lowered.endswith(r[0]) and len(lowered) - len(r[0]) >= MIN_STEM), None)
        if rule is not None:
            token_ending, first_ending, second = rule
            return [lowered[: len(lowered) - len(token_ending)] + first_ending, second]
        words, rest = [], lowered
        while True:
            leader = next((w for w in self.leaders if rest.startswith(w) and len(rest) - len(w) >= MIN_STEM), None)
            if leader is None:
                break
            words.append(leader)
            rest = rest[len(leader) :]
        return [*words, rest] if words else None

    def _segmented(self, lowered: str) -> list[str] | None:
        """The most probable cut of a token into known words (Viterbi over a unigram model), or None.

        Tokenizers trained before 2026-11-27 cut unseen bound groups so (newer ones: :attr:`bound_groups`).
        """
        scores = [0.0] + [-math.inf] * len(lowered)  # the best log-probability of each prefix
        starts = [0] * (len(lowered) + 1)  # where the last word of that best prefix starts
        for end in range(1, len(lowered) + 1):
            for start in range(max(0, end - LONGEST_WORD), end):
                score = self.log_probs.get(lowered[start:end])
                if score is not None and scores[start] + score > scores[end]:
                    scores[end], starts[end] = scores[start] + score, start
        if scores[-1] == -math.inf:
            return None
        words, end = [], len(lowered)
        while end > 0:
            words.append(lowered[starts[end] : end])
            end = starts[end]
        return words[::-1]

    def to_json(self) -> dict:
        data: dict = {"splits": self.splits, "endings": self.endings}
        if self.rewrites or self.leaders:  # models of 0.7 and before have neither (their output is unchanged)
            data |= {"rewrites": [list(rule) for rule in self.rewrites], "leaders": self.leaders}
        if self.words:
            data["words"] = self.words
        if self.bound_groups is not None:
            data["bound_groups"] = self.bound_groups.to_json()
        if self.lookup is not None:
            data["lookup"] = self.lookup.to_json()
            data["use_lookup"] = self.use_lookup
        return data

    @classmethod
    def from_json(cls, data: dict) -> MultiwordSplitter:
        rewrites = [(str(a), str(b), str(c)) for a, b, c in data.get("rewrites", [])]
        leaders, words = list(data.get("leaders", [])), dict(data.get("words", {}))
        lookup = MultiwordLookup.from_json(data["lookup"]) if "lookup" in data else None
        bound = BoundGroupSegmenter.from_json(data["bound_groups"]) if "bound_groups" in data else None
        splitter = cls(dict(data["splits"]), list(data["endings"]), rewrites, leaders, words, lookup, bound)
        splitter.use_lookup = bool(data.get("use_lookup", True))  # models before it stored a lookup only if used
        return splitter


class MultiwordLookup:
    """Which tokens the training treebank wrote as multi-word tokens: by form, else by ending.

    The tokenizer marks multi-word tokens from a window of characters, and on a small
    treebank of a language whose clitics and case endings make them (Tamil TTB: 400
    sentences, a tenth of the tokens) it misses many: dev token F1 99.1, words 93.1.
    The treebank itself tells most of them: a token seen in training is what it was
    there most often; an unseen one follows its longest ending that closed at least
    ``LOOKUP_TOKENS`` training tokens, if at least ``DECISIVE`` of those went one way
    (Tamil ``-வும்``: ``and``, a word of its own), else the tokenizer's mark stands.
    UDPipe 1 decides from the same two sources.  The tokenizer's training keeps the
    lookup only where it raises dev's multi-word token F1 (:func:`choose_lookup` in
    ``tokenizer/training.py``), so a language whose context decides better is unchanged.
    """

    def __init__(self, forms: dict[str, bool], endings: dict[str, bool | None]) -> None:
        self.forms = forms  # lower-cased training token -> whether it was most often a multi-word token
        self.endings = endings  # ending -> the decision of its training tokens, None where they disagree

    @classmethod
    def learn(cls, tokens: Iterable[tuple[str, bool]]) -> MultiwordLookup:
        """From (token form, whether it is a multi-word token) pairs of the training treebank."""
        by_form: dict[str, Counter] = defaultdict(Counter)
        for form, multiword in tokens:
            by_form[form.lower()][multiword] += 1
        by_ending: dict[str, Counter] = defaultdict(Counter)
        for form, counts in by_form.items():
            for length in range(1, min(LOOKUP_ENDING, len(form) - 1) + 1):
                by_ending[form[-length:]].update(counts)
        read = {ending: _decision(counts) for ending, counts in by_ending.items() if counts.total() >= LOOKUP_TOKENS}
        lookup = cls({}, {})
        for ending in sorted(read, key=len):  # shortest first: a longer ending falls back on the shorter ones kept
            if read[ending] != lookup._by_ending(ending):
                lookup.endings[ending] = read[ending]
        for form, counts in by_form.items():  # only the forms that their endings would decide otherwise
            if (counts[True] > counts[False]) != lookup._by_ending(form):
                lookup.forms[form] = counts[True] > counts[False]
        return lookup

    def _by_ending(self, lowered: str) -> bool | None:
        """The decision of the longest ending kept (None: undecided, the tokenizer's mark stands)."""
        for length in range(min(LOOKUP_ENDING, len(lowered) - 1), 0, -1):
            if lowered[-length:] in self.endings:
                return self.endings[lowered[-length:]]
        return None

    def decide(self, form: str, marked: bool) -> bool:
        lowered = form.lower()
        if lowered in self.forms:
            return self.forms[lowered]
        decision = self._by_ending(lowered)
        return marked if decision is None else decision

    def to_json(self) -> dict:
        return {"forms": self.forms, "endings": self.endings}

    @classmethod
    def from_json(cls, data: dict) -> MultiwordLookup:
        return cls(dict(data["forms"]), dict(data["endings"]))


def _decision(counts: Counter) -> bool | None:
    """True or False where a share of at least DECISIVE of the tokens went that way, else None."""
    share = counts[True] / counts.total()
    return True if share >= DECISIVE else False if share <= 1 - DECISIVE else None


def _cut(form: str, lengths: list[int]) -> list[str]:
    """``form`` cut into pieces of the given lengths."""
    pieces, start = [], 0
    for length in lengths:
        pieces.append(form[start : start + length])
        start += length
    return pieces


def _cased(words: list[str], form: str) -> list[str]:
    """Words that do not spell the token, given its case: all capitals, or a capital first letter."""
    if form.isupper() and len(form) > 1:
        return [word.upper() for word in words]
    if form[:1].isupper():
        return [words[0][:1].upper() + words[0][1:], *words[1:]]
    return list(words)


def _common_prefix(a: str, b: str) -> int:
    """How many first characters ``a`` and ``b`` share."""
    shared = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        shared += 1
    return shared
