"""Several taggers trained on one treebank, tagging as one: every output is the mean of their distributions.

Taggers trained alone (other seeds) make partly different mistakes, most of all on a
small treebank, where one run's tags move with its seed.  Averaging their
probabilities of each UPOS, XPOS, FEATS string, feature value and lemma rule, word by
word, gives one tagger that is usually more accurate than any member (docs/experiments/tagger-ensembles.md
has the figures) and about as slow as all of them together.  The members share their
output vocabularies (the same training data gives the same ones); each reads the
words through its own vectors and bi-LSTM, in one DyNet graph.  The first member's
dictionaries (the lemma lookup, the seen analyses) and its settings decide what is
done with the mean, so everything one tagger does (feature outputs, lemmas,
pictographs) an ensemble does, and a word's tags never depend on the other
sentences of its group.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lstmparse.core.ensembles import TagDistribution, checked_members, member_directories
from lstmparse.core.records import ModelRecord
from lstmparse.tagger.model import Tagger
from lstmparse.tagger.outputs import GroupOutputs


class TaggerEnsemble:
    """Member taggers with one set of outputs, used where one tagger is (``tag_all``, ``POSTagger``)."""

    def __init__(self, members: Sequence[Tagger]) -> None:
        mismatch = "an ensemble's taggers share their tags, features and lemma rules (one training file)"
        self.members = checked_members(members, _outputs, mismatch)
        first = self.members[0]
        self.columns, self.vocabs, self.outputs = first.columns, first.vocabs, first.outputs

    @classmethod
    def load(cls, directory: str | Path | ModelRecord) -> TaggerEnsemble:
        return cls([Tagger.load(str(member)) for member in member_directories(directory)])

    def prepare(self, forms: Sequence[Sequence[str]]) -> None:
        """The members' encoder vectors of sentences about to be tagged (:meth:`Tagger.prepare`)."""
        for member in self.members:
            member.prepare(forms)

    def predict(
        self,
        group: Sequence[Sequence[str]],
        upos: Sequence[Sequence[str]] | None = None,
        others: Sequence[TagDistribution | None] | None = None,
    ) -> list[dict[str, list[str]]]:
        """Each sentence's tags by column for a group of one length: the first member's decoding of the mean."""
        return self.members[0].predict(group, upos, others, GroupOutputs(self.members, group))


def _outputs(tagger: Tagger) -> tuple:
    """What members must share: the values whose probabilities are averaged, in one order."""
    names = (*tagger.columns, *tagger.features)
    return names, tuple(tuple(tagger.vocabs[name].strings) for name in names)
