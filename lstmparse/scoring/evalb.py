"""Labelled bracket scores as EVALB computes them with COLLINS.prm.

The conventions, each as in EVALB:

* words whose gold POS tag is punctuation (``, : `` '' .``) are deleted before spans
  are counted.  EVALB deletes them by each tree's own tags and stops with "Length
  unmatch" when a system tree tags a comma XX; the tags are therefore taken from
  the gold tree for both, which gives EVALB's figures whenever the system tree
  carries the gold tags;
* a label is cut at its first ``-`` or ``=`` (function tags, indices);
  ``ADVP`` and ``PRT`` are the same label;
* preterminals are not brackets, nor are the ROOT/TOP wrapper and constituents
  that cover only deleted words;
* brackets are matched as a multiset of (label, start, end): two identical
  brackets (a unary chain X over X) need two in the other tree;
* the length cut-off (40) counts every word, punctuation included.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from lstmparse.errors import InputError
from lstmparse.io.ptb import Constituent, PTBTree, read_ptb

PUNCTUATION_TAGS = frozenset({",", ":", "``", "''", "."})
DELETED_LABELS = frozenset({"TOP", "ROOT", "-NONE-"}) | PUNCTUATION_TAGS
EQUIVALENT_LABELS = {"PRT": "ADVP"}
CUTOFF_LENGTH = 40


def evalb_label(label: str) -> str:
    """EVALB's view of a label: cut at the first ``-``/``=``, PRT read as ADVP."""
    for position, char in enumerate(label):
        if char in "-=":
            label = label[:position]
            break
    return EQUIVALENT_LABELS.get(label, label)


def brackets(tree: PTBTree, gold_tags: Sequence[str]) -> Counter:
    """The multiset of (label, start, end) brackets, spans over non-punctuation words."""
    kept_before = [0]  # kept_before[i]: words before leaf i that are not punctuation
    for tag in gold_tags:
        kept_before.append(kept_before[-1] + (tag not in PUNCTUATION_TAGS))
    found: Counter = Counter()
    position = 0
    for child in tree.children:
        position = _collect(child, kept_before, position, found)
    return found


def _collect(node: Constituent, kept_before: list[int], leaf_index: int, found: Counter) -> int:
    """Add ``node``'s brackets; the index of the next leaf after it."""
    if node.is_preterminal:
        return leaf_index + 1
    start_leaf = leaf_index
    for child in node.children:
        leaf_index = _collect(child, kept_before, leaf_index, found)
    start, end = kept_before[start_leaf], kept_before[leaf_index]
    label = evalb_label(node.label)
    if end > start and label not in DELETED_LABELS:
        found[(label, start, end)] += 1
    return leaf_index


@dataclass
class SentenceScore:
    length: int  # every word, punctuation included (EVALB's length for the cut-off)
    scored_words: int  # words left after deleting punctuation; none: EVALB skips the sentence
    gold: int
    system: int
    matched: int


@dataclass
class BracketScores:
    sentences: list[SentenceScore] = field(default_factory=list)

    def subset(self, low: int, high: int | None = None) -> BracketScores:
        """Sentences of ``low`` to ``high`` words (inclusive; no upper bound if None)."""
        return BracketScores([s for s in self.sentences if s.length >= low and (high is None or s.length <= high)])

    @property
    def recall(self) -> float:
        gold = sum(s.gold for s in self.sentences)
        return 100.0 * sum(s.matched for s in self.sentences) / gold if gold else 0.0

    @property
    def precision(self) -> float:
        system = sum(s.system for s in self.sentences)
        return 100.0 * sum(s.matched for s in self.sentences) / system if system else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def complete_match(self) -> float:
        valid = [s for s in self.sentences if s.scored_words]
        complete = sum(s.gold == s.system == s.matched for s in valid)
        return 100.0 * complete / len(valid) if valid else 0.0

    def as_dict(self) -> dict:
        return {
            "sentences": len(self.sentences),
            "skipped_sentences": sum(not s.scored_words for s in self.sentences),
            "recall": round(self.recall, 2),
            "precision": round(self.precision, 2),
            "f1": round(self.f1, 2),
            "complete_match": round(self.complete_match, 2),
            "gold_brackets": sum(s.gold for s in self.sentences),
            "system_brackets": sum(s.system for s in self.sentences),
            "matched_brackets": sum(s.matched for s in self.sentences),
        }

    def report(self) -> str:
        lines = []
        for title, scores in (("All", self), (f"len<={CUTOFF_LENGTH}", self.subset(0, CUTOFF_LENGTH))):
            values = scores.as_dict()
            lines += [
                f"-- {title} --",
                f"Number of sentence        = {values['sentences']:6d}",
                f"Number of Skip  sentence  = {values['skipped_sentences']:6d}",
                f"Bracketing Recall         = {values['recall']:6.2f}",
                f"Bracketing Precision      = {values['precision']:6.2f}",
                f"Bracketing FMeasure       = {values['f1']:6.2f}",
                f"Complete match            = {values['complete_match']:6.2f}",
                "",
            ]
        return "\n".join(lines).rstrip("\n")


def score_sentence(gold: PTBTree, system: PTBTree) -> SentenceScore:
    """One sentence's bracket counts; the two trees must have the same words."""
    if gold.words != system.words:
        where = f"{system.path}:{system.line}"
        raise InputError(gold.path, gold.line, f"words differ from the system tree at {where}")
    tags = gold.tags
    gold_brackets, system_brackets = brackets(gold, tags), brackets(system, tags)
    matched = sum((gold_brackets & system_brackets).values())
    scored_words = sum(tag not in PUNCTUATION_TAGS for tag in tags)
    return SentenceScore(len(tags), scored_words, sum(gold_brackets.values()), sum(system_brackets.values()), matched)


def score_bracketings(gold: Sequence[PTBTree], system: Sequence[PTBTree]) -> BracketScores:
    if len(gold) != len(system):
        path = system[0].path if system else "system"
        raise InputError(path, None, f"{len(system)} trees for {len(gold)} gold trees")
    return BracketScores([score_sentence(g, s) for g, s in zip(gold, system, strict=True)])


def evaluate_ptb_files(gold_path: str, system_path: str) -> BracketScores:
    return score_bracketings(read_ptb(gold_path), read_ptb(system_path))
