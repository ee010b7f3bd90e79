"""Words of pictographs (emoji, ©, ✓) the tagger never saw: SYM, as UD annotates them."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence

from lstmparse.core.vocab import Vocabulary
from lstmparse.io.formats import BLANK_VALUES

PICTOGRAPH_PARTS = {"\u200d", "\ufe0e", "\ufe0f"}  # the joiner and variation selectors inside emoji sequences


def pictographic(form: str) -> bool:
    """Whether a form is only pictographs (emoji, ©, ✓: Unicode's "other symbols"), their modifiers and joiners."""
    categories = [unicodedata.category(c) for c in form]
    return "So" in categories and all(
        category in ("So", "Sk") or c in PICTOGRAPH_PARTS for c, category in zip(form, categories, strict=True)
    )


def unknown_pictographs_as_symbols(
    vocabs: Mapping[str, Vocabulary],
    group: Sequence[Sequence[str]],
    predicted: list,
    upos: Sequence[Sequence[str]] | None,
) -> None:
    """A word of pictographs training never saw (an emoji, in most treebanks) is SYM, with no features.

    UD annotates emoji as SYM, but most treebanks have none, so the network cannot
    learn them: it read an emoji as an unknown noun.  Its XPOS stays the network's,
    and a UPOS the caller gave stays.
    """
    if "SYM" not in vocabs["upos"]:
        return
    words = vocabs["words"]
    for k, (forms, tags) in enumerate(zip(group, predicted, strict=True)):
        for j, form in enumerate(forms):
            if upos is not None and upos[k][j] not in BLANK_VALUES:
                continue
            if form not in words and pictographic(form):
                tags["upos"][j], tags["feats"][j] = "SYM", "_"
