"""Scores of a system file against gold whatever its tokenization, as the CoNLL 2018 UD scorer computes them.

The CoNLL 2018 shared task's ``conll18_ud_eval.py`` is the reference: both files'
token forms (white space removed) must spell the same characters; tokens,
sentences and syntactic words are compared by their character spans; words inside
multi-word tokens are aligned by the longest common subsequence of their
lower-cased forms within the stretch of overlapping multi-word tokens.  Every
measure is an F1: correct / gold words and correct / system words.  UPOS, XPOS,
UFeats and AllTags count aligned words whose tags match; UAS and LAS count aligned
words whose heads are aligned to each other (and whose universal relations match);
CLAS only words with content relations.  On gold tokenization every measure
equals the accuracy that :mod:`lstmparse.scoring.evaluation` reports.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from lstmparse.errors import InputError
from lstmparse.io.formats import BLANK_VALUES, Sentence, read_sentences
from lstmparse.scoring.evaluation import CONTENT_DEPRELS, universal

MEASURES = (
    *("Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas"),
    *("UAS", "LAS", "CLAS", "MLAS", "BLEX"),
)
# the scorer's UFeats, MLAS and AllTags read only these features (a treebank's own, e.g. Number[psor], are not)
UNIVERSAL_FEATURES = frozenset(
    "PronType NumType Poss Reflex Foreign Abbr Gender Animacy Number Case Definite Degree "
    "VerbForm Mood Tense Aspect Voice Evident Polarity Person Polite".split()
)
FUNCTIONAL_DEPRELS = frozenset({"aux", "cop", "mark", "det", "clf", "case", "cc"})  # MLAS checks them with the word


@dataclass(eq=False)
class Word:
    """A syntactic word: its columns, its span in the text, its multi-word token, its head word.

    ``deprel`` is the universal relation (subtype cut) and ``feats`` the universal
    features, sorted: what every measure compares.
    """

    form: str
    lemma: str
    upos: str
    xpos: str
    feats: str
    deprel: str
    start: int
    end: int
    multiword: bool
    head: Word | None = None  # None: the root
    functional_children: list[Word] = field(default_factory=list)


def _universal_features(feats: str) -> str:
    return "|".join(sorted(f for f in feats.split("|") if f.split("=", 1)[0] in UNIVERSAL_FEATURES))


def _word(columns: Sequence[str], start: int, end: int, multiword: bool) -> Word:
    feats, deprel = _universal_features(columns[5]), universal(columns[7])
    return Word(columns[1], columns[2], columns[3], columns[4], feats, deprel, start, end, multiword)


@dataclass
class Document:
    """A file's characters (without white space), tokens, sentences and words."""

    characters: list[str] = field(default_factory=list)
    tokens: list[tuple[int, int]] = field(default_factory=list)
    sentences: list[tuple[int, int]] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)


def _no_space(form: str) -> str:
    return "".join(c for c in form if unicodedata.category(c) != "Zs")


def document(sentences: Sequence[Sentence]) -> Document:
    """The spans of every token, sentence and word of a file's sentences."""
    doc = Document()
    for sentence in sentences:
        sentence_start = len(doc.characters)
        words: list[Word] = []
        heads: list[int | None] = []
        multiword_end, multiword_span = 0, (0, 0)
        for line in sentence.to_conllu().split("\n"):  # the lines with the sentence's own tree
            if not line or line.startswith("#"):
                continue
            columns = line.split("\t")
            ident = columns[0]
            if "." in ident:
                continue
            if "-" in ident:
                start = len(doc.characters)
                doc.characters.extend(_no_space(columns[1]))
                multiword_span = (start, len(doc.characters))
                multiword_end = int(ident.split("-")[1])
                doc.tokens.append(multiword_span)
                continue
            if int(ident) <= multiword_end:
                start, end, multiword = *multiword_span, True
            else:
                start = len(doc.characters)
                doc.characters.extend(_no_space(columns[1]))
                end, multiword = len(doc.characters), False
                doc.tokens.append((start, end))
            words.append(_word(columns, start, end, multiword))
            heads.append(None if columns[6] in ("_", "0") else int(columns[6]))
        for word, head in zip(words, heads, strict=True):
            word.head = None if head is None or not 0 < head <= len(words) else words[head - 1]
            if word.head is not None and word.deprel in FUNCTIONAL_DEPRELS:
                word.head.functional_children.append(word)
        doc.words.extend(words)
        doc.sentences.append((sentence_start, len(doc.characters)))
    return doc


def _beyond_end(words: Sequence[Word], i: int, end: int) -> bool:
    if i >= len(words):
        return True
    return words[i].start >= end if words[i].multiword else words[i].end > end


def _extended_end(word: Word, end: int) -> int:
    return word.end if word.multiword and word.end > end else end


def _multiword_span(gold: Sequence[Word], system: Sequence[Word], gi: int, si: int) -> tuple[int, int, int, int]:
    """The smallest stretch, from (gi, si), that covers the overlapping multi-word tokens on both sides."""
    if gold[gi].multiword:
        end = gold[gi].end
        if not system[si].multiword and system[si].start < gold[gi].start:
            si += 1
    else:
        end = system[si].end
        if not gold[gi].multiword and gold[gi].start < system[si].start:
            gi += 1
    gs, ss = gi, si
    while not _beyond_end(gold, gi, end) or not _beyond_end(system, si, end):
        if gi < len(gold) and (si >= len(system) or gold[gi].start <= system[si].start):
            end = _extended_end(gold[gi], end)
            gi += 1
        else:
            end = _extended_end(system[si], end)
            si += 1
    return gs, ss, gi, si


def _lcs_pairs(gold: Sequence[Word], system: Sequence[Word]) -> list[tuple[Word, Word]]:
    """Words paired by the longest common subsequence of lower-cased forms (the scorer's tie-breaking)."""
    n, m = len(gold), len(system)
    lcs = [[0] * (m + 1) for _ in range(n + 1)]
    for g in reversed(range(n)):
        for s in reversed(range(m)):
            if gold[g].form.lower() == system[s].form.lower():
                lcs[g][s] = 1 + lcs[g + 1][s + 1]
            lcs[g][s] = max(lcs[g][s], lcs[g + 1][s], lcs[g][s + 1])
    pairs, g, s = [], 0, 0
    while g < n and s < m:
        if gold[g].form.lower() == system[s].form.lower():
            pairs.append((gold[g], system[s]))
            g, s = g + 1, s + 1
        elif lcs[g][s] == lcs[g + 1][s]:
            g += 1
        else:
            s += 1
    return pairs


def align_words(gold: Sequence[Word], system: Sequence[Word]) -> list[tuple[Word, Word]]:
    """Gold and system words that are the same word: equal spans, or LCS-matched within multi-word tokens."""
    pairs: list[tuple[Word, Word]] = []
    gi = si = 0
    while gi < len(gold) and si < len(system):
        if gold[gi].multiword or system[si].multiword:
            gs, ss, gi, si = _multiword_span(gold, system, gi, si)
            if gi > gs and si > ss:
                pairs.extend(_lcs_pairs(gold[gs:gi], system[ss:si]))
        elif (gold[gi].start, gold[gi].end) == (system[si].start, system[si].end):
            pairs.append((gold[gi], system[si]))
            gi, si = gi + 1, si + 1
        elif gold[gi].start <= system[si].start:
            gi += 1
        else:
            si += 1
    return pairs


@dataclass
class Score:
    gold: int
    system: int
    correct: int

    @property
    def f1(self) -> float:
        return 200.0 * self.correct / (self.gold + self.system) if self.gold + self.system else 0.0


def _span_score(gold: list, system: list) -> Score:
    return Score(len(gold), len(system), len(set(gold) & set(system)))


def score_documents(gold: Document, system: Document, system_path: str = "<system>") -> dict[str, Score]:
    """Every measure of :data:`MEASURES`, the system's against the gold's."""
    _check_same_text(gold, system, system_path)
    pairs = align_words(gold.words, system.words)
    judge = _Judge(pairs)

    def count(test, content_only: bool = False) -> Score:
        kept = (lambda w: w.deprel in CONTENT_DEPRELS) if content_only else (lambda w: True)
        correct = sum(1 for g, s in pairs if kept(g) and test(g, s))
        return Score(sum(map(kept, gold.words)), sum(map(kept, system.words)), correct)

    return {
        "Tokens": _span_score(gold.tokens, system.tokens),
        "Sentences": _span_score(gold.sentences, system.sentences),
        "Words": count(lambda g, s: True),
        "UPOS": count(lambda g, s: g.upos == s.upos),
        "XPOS": count(lambda g, s: g.xpos == s.xpos),
        "UFeats": count(lambda g, s: g.feats == s.feats),
        "AllTags": count(lambda g, s: (g.upos, g.xpos, g.feats) == (s.upos, s.xpos, s.feats)),
        "Lemmas": count(_same_lemma),
        "UAS": count(judge.same_head),
        "LAS": count(judge.labelled),
        "CLAS": count(judge.labelled, content_only=True),
        "MLAS": count(judge.morphologically_labelled, content_only=True),
        "BLEX": count(lambda g, s: judge.labelled(g, s) and _same_lemma(g, s), content_only=True),
    }


def _check_same_text(gold: Document, system: Document, system_path: str) -> None:
    """The scorer compares spans of one text: a system that spells another text is an error naming it."""
    if gold.characters == system.characters:
        return
    position = next(
        (i for i, (a, b) in enumerate(zip(gold.characters, system.characters, strict=False)) if a != b),
        min(len(gold.characters), len(system.characters)),
    )
    context = "".join(gold.characters[max(0, position - 10) : position + 10])
    raise InputError(
        system_path,
        None,
        f"its tokens do not spell the gold text (first difference at character {position + 1}, near {context!r})",
    )


def _same_lemma(g: Word, s: Word) -> bool:
    return g.lemma == "_" or g.lemma == s.lemma  # gold without a lemma: any lemma is right


def _same_morphology(g: Word, s: Word) -> bool:
    return (g.upos, g.feats) == (s.upos, s.feats)


class _Judge:
    """The tests that read heads through the alignment (a system word's head must be its gold word's head)."""

    def __init__(self, pairs: list[tuple[Word, Word]]) -> None:
        self.aligned = {id(s): g for g, s in pairs}

    def same_head(self, g: Word, s: Word) -> bool:
        if s.head is None:
            return g.head is None
        return g.head is not None and self.aligned.get(id(s.head)) is g.head

    def labelled(self, g: Word, s: Word) -> bool:
        return self.same_head(g, s) and g.deprel == s.deprel

    def morphologically_labelled(self, g: Word, s: Word) -> bool:
        """MLAS: labelled, the same UPOS and features, and the same function words attached, each alike."""
        if not (self.labelled(g, s) and _same_morphology(g, s)):
            return False
        if len(g.functional_children) != len(s.functional_children):
            return False
        return all(
            self.aligned.get(id(sc)) is gc and gc.deprel == sc.deprel and _same_morphology(gc, sc)
            for gc, sc in zip(g.functional_children, s.functional_children, strict=True)
        )


def evaluate_conll18(gold_path: str, system_path: str) -> dict[str, Score]:
    """The CoNLL 2018 measures of a system file against a gold file."""
    gold = document(list(read_sentences(gold_path)))
    system = document(list(read_sentences(system_path)))
    return score_documents(gold, system, system_path)


# the measures that need a column, by the Token field that holds it
MEASURES_OF_COLUMN = {
    "upos": ("UPOS", "AllTags", "MLAS"),
    "xpos": ("XPOS", "AllTags"),
    "feats": ("UFeats", "AllTags", "MLAS"),
    "lemma": ("Lemmas", "BLEX"),
}


def unannotated_measures(gold: Sequence[Sentence]) -> dict[str, str]:
    """The measures a gold file cannot judge, because it leaves a column they need blank (``_``) on every word.

    A file without lemmas (UD Maltese) scores no Lemmas; one whose tags were left
    out scores no XPOS: a system would otherwise look wrong on every word.  Maps
    each measure to the column it lacks.
    """
    tokens = [token for sentence in gold for token in sentence.tokens]
    blank = [
        column for column in MEASURES_OF_COLUMN if tokens and all(getattr(t, column) in BLANK_VALUES for t in tokens)
    ]
    return {measure: column.upper() for column in blank for measure in MEASURES_OF_COLUMN[column]}


def report(scores: dict[str, Score], unannotated: dict[str, str] | None = None) -> str:
    """The scorer's table: each measure's precision, recall and F1 (a measure the gold file cannot judge: left out)."""
    lines = ["Metric     | Precision |    Recall |  F1 Score", "-----------+-----------+-----------+-----------"]
    unannotated = unannotated or {}
    for name, score in scores.items():
        if name in unannotated:
            continue
        precision = 100.0 * score.correct / score.system if score.system else 0.0
        recall = 100.0 * score.correct / score.gold if score.gold else 0.0
        lines.append(f"{name:<11}|{precision:10.2f} |{recall:10.2f} |{score.f1:10.2f}")
    if unannotated:
        columns = sorted(set(unannotated.values()))
        lines.append(f"(not scored: {', '.join(unannotated)}; the gold file leaves {', '.join(columns)} blank)")
    return "\n".join(lines)
