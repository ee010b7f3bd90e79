"""Attachment scores as the CoNLL 2018 UD shared-task scorer computes them.

On gold tokenization every syntactic word is aligned with itself, so UAS and LAS
are the share of words with the right head (and right universal relation: subtypes
after ``:`` are ignored, as the scorer does).  CLAS is an F1 over content words: a
word counts on the gold side when its gold relation is a content relation, on the
system side when its predicted relation is one, and is correct when it counts on
the gold side and head and relation match.  The papers' figures that exclude
punctuation are reported as well (words whose gold UPOS is PUNCT left out).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lstmparse.errors import InputError
from lstmparse.io.formats import Sentence, read_treebank
from lstmparse.io.tree import non_projective_arcs, tree_problem

# The content relations of the CoNLL 2018 scorer (conll18_ud_eval.py).
CONTENT_DEPRELS = frozenset(
    "nsubj obj iobj csubj ccomp xcomp obl vocative expl dislocated advcl advmod discourse nmod appos "
    "nummod acl amod conj fixed flat compound list parataxis orphan goeswith reparandum root dep".split()
)


def universal(deprel: str | None) -> str:
    """The universal part of a relation (``nmod:poss`` -> ``nmod``)."""
    return (deprel or "_").split(":")[0]


@dataclass
class Scores:
    words: int = 0
    head_correct: int = 0
    labelled_correct: int = 0
    content_gold: int = 0
    content_system: int = 0
    content_correct: int = 0
    words_no_punct: int = 0
    head_correct_no_punct: int = 0
    labelled_correct_no_punct: int = 0
    non_projective: int = 0  # gold arcs that cross another gold arc
    non_projective_head_correct: int = 0

    @staticmethod
    def _percent(part: int, whole: int) -> float:
        return 100.0 * part / whole if whole else 0.0

    @property
    def uas(self) -> float:
        return self._percent(self.head_correct, self.words)

    @property
    def las(self) -> float:
        return self._percent(self.labelled_correct, self.words)

    @property
    def clas(self) -> float:
        return self._percent(2 * self.content_correct, self.content_gold + self.content_system)

    @property
    def uas_no_punct(self) -> float:
        return self._percent(self.head_correct_no_punct, self.words_no_punct)

    @property
    def las_no_punct(self) -> float:
        return self._percent(self.labelled_correct_no_punct, self.words_no_punct)

    @property
    def non_projective_recall(self) -> float:
        """Share of gold non-projective arcs whose head the parser found."""
        return self._percent(self.non_projective_head_correct, self.non_projective)

    def as_dict(self) -> dict[str, float]:
        return {
            "UAS": self.uas,
            "LAS": self.las,
            "CLAS": self.clas,
            "UAS_no_punct": self.uas_no_punct,
            "LAS_no_punct": self.las_no_punct,
            "non_projective_recall": self.non_projective_recall,
            "non_projective_arcs": self.non_projective,
            "words": self.words,
        }

    def report(self) -> str:
        return "\n".join(
            [
                f"UAS            {self.uas:6.2f}",
                f"LAS            {self.las:6.2f}",
                f"CLAS           {self.clas:6.2f}",
                f"UAS (no punct) {self.uas_no_punct:6.2f}",
                f"LAS (no punct) {self.las_no_punct:6.2f}",
                f"NP recall      {self.non_projective_recall:6.2f}  ({self.non_projective} non-projective gold arcs)",
                f"words          {self.words:6d}",
            ]
        )


def score_trees(
    gold: Sequence[tuple[Sequence[int], Sequence[str], Sequence[str]]],
    system: Sequence[tuple[Sequence[int], Sequence[str]]],
) -> Scores:
    """Scores of system trees (heads, deprels) against gold (heads, deprels, upos)."""
    scores = Scores()
    for (gold_heads, gold_rels, upos), (sys_heads, sys_rels) in zip(gold, system, strict=True):
        crossing = non_projective_arcs(gold_heads)
        scores.non_projective += len(crossing)
        scores.non_projective_head_correct += sum(gold_heads[d - 1] == sys_heads[d - 1] for d in crossing)
        for gh, gr, tag, sh, sr in zip(gold_heads, gold_rels, upos, sys_heads, sys_rels, strict=True):
            gr, sr = universal(gr), universal(sr)
            head_ok = gh == sh
            label_ok = head_ok and gr == sr
            scores.words += 1
            scores.head_correct += head_ok
            scores.labelled_correct += label_ok
            scores.content_gold += gr in CONTENT_DEPRELS
            scores.content_system += sr in CONTENT_DEPRELS
            scores.content_correct += label_ok and gr in CONTENT_DEPRELS
            if tag != "PUNCT":
                scores.words_no_punct += 1
                scores.head_correct_no_punct += head_ok
                scores.labelled_correct_no_punct += label_ok
    return scores


def score_sentences(gold: Sequence[Sentence], system: Sequence[Sentence], system_path: str = "<system>") -> Scores:
    """Scores of parsed sentences against gold ones; both must have the same words."""
    if len(gold) != len(system):
        raise InputError(system_path, None, f"{len(system)} sentences, but the gold file has {len(gold)}")
    for g, s in zip(gold, system, strict=True):
        if g.forms != s.forms:
            raise InputError(s.path, s.first_line, f"words differ from the gold sentence at {g.path}:{g.first_line}")
    check_tree_shapes(gold, "gold file's")
    check_tree_shapes(system, "system's")
    return score_trees(
        [(g.gold_heads, g.gold_deprels, [t.upos for t in g.tokens]) for g in gold],
        [(s.gold_heads, s.gold_deprels) for s in system],
    )


def check_tree_shapes(sentences: Sequence[Sentence], whose: str) -> None:
    """Refuse, as the CoNLL 2018 scorer does, a sentence whose HEADs are not one single-rooted tree.

    A sentence without HEADs (``_``) is left to the checks of what reads it.
    """
    for sentence in sentences:
        if any(head is None for head in sentence.heads):
            continue
        problem = tree_problem(sentence.gold_heads)
        if problem:
            raise InputError(sentence.path, sentence.first_line, f"the {whose} HEADs are not a tree: {problem}")


def same_words(gold: Sequence[Sentence], system: Sequence[Sentence]) -> bool:
    """Whether two files' sentences have the same words (gold tokenization)."""
    return len(gold) == len(system) and all(g.forms == s.forms for g, s in zip(gold, system, strict=True))


def evaluate_files(gold_path: str, system_path: str) -> Scores:
    return score_sentences(read_treebank(gold_path), read_treebank(system_path), system_path)
