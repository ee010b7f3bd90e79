"""The analyses training gave each word: a seen word's FEATS chosen among those it had there.

The tagger predicts FEATS from the sentence bi-LSTM, for seen and unseen words alike,
and on a seen word it can pick a combination that word never had (Hungarian
``ellen``, a postposition, tagged with a case).  UDPipe 1 instead reads a seen word's
analyses from its training dictionary, and is ahead on UFeats on most of the shared
treebanks.  Here a word seen in training with the predicted UPOS takes the FEATS, among
those it had with that UPOS, that the network scores highest: the network still reads
the context, the dictionary only rules out what the word never was.  Training keeps
the dictionary where it raises dev's FEATS accuracy (:func:`choose_analyses` in
``tagger/training.py``); models without it tag as before.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable


class SeenAnalyses:
    """form -> UPOS -> the FEATS strings the form had with that UPOS in training, most frequent first."""

    def __init__(self, table: dict[str, dict[str, list[str]]]) -> None:
        self.table = table

    @classmethod
    def learn(cls, words: Iterable[tuple[str, str, str]]) -> SeenAnalyses:
        """From (form, UPOS, FEATS) triples of the training data."""
        counts: dict[tuple[str, str], Counter] = {}
        for form, upos, feats in words:
            counts.setdefault((form, upos), Counter())[feats] += 1
        table: dict[str, dict[str, list[str]]] = {}
        for (form, upos), seen in counts.items():
            table.setdefault(form, {})[upos] = [feats for feats, _ in seen.most_common()]
        return cls(table)

    def candidates(self, form: str, upos: str) -> list[str]:
        """The FEATS a form had with a UPOS in training (none: the network's choice stands)."""
        return self.table.get(form, {}).get(upos, [])

    def __len__(self) -> int:
        return len(self.table)

    def to_json(self) -> dict:
        return self.table

    @classmethod
    def from_json(cls, table: dict) -> SeenAnalyses:
        return cls({form: {upos: list(values) for upos, values in by_upos.items()} for form, by_upos in table.items()})
