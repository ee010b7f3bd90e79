"""A language's pipelines by its code (``--model hu``, ``lstmparse.load("fr")``), and which one the code picks.

Where a language has several pipelines (a fast one, and one that reads the encoder),
the code picks the most accurate where it parses at least half as fast as the fastest:
accuracy is worth a slower parse, up to a point a user would not expect from a name.
"""

from __future__ import annotations

from lstmparse.core.model_io import CONFIG, model_arch, model_search_path, read_card
from lstmparse.errors import ModelError


def pipelines_of_language(language: str | None) -> list[str]:
    """The names of the pipeline models of ``language`` (their cards say so) found by name, first match wins;
    the one a language code picks first (:func:`by_language_rule`)."""
    if not language:
        return []
    found: dict[str, dict | None] = {}
    for directory in model_search_path():
        if not directory.is_dir():
            continue
        for candidate in sorted(directory.iterdir()):
            if candidate.name in found or not (candidate / CONFIG).is_file():
                continue
            try:
                is_pipeline = model_arch(candidate) == "pipeline"
            except ModelError:
                is_pipeline = False
            card = read_card(candidate)
            found[candidate.name] = card if is_pipeline and card.get("language") == language else None
    return by_language_rule({name: card for name, card in found.items() if card is not None})


def card_las_and_speed(card: dict) -> tuple[float, float] | None:
    """A card's raw-text test LAS and parsing speed (sentences/s, one core), where it records both."""
    las = card.get("test", {}).get("raw", {}).get("LAS")
    speed = card.get("speed", {}).get("sentences_per_second")
    return (float(las), float(speed)) if las is not None and speed else None


def by_language_rule(cards: dict[str, dict]) -> list[str]:
    """The names, the one a language code picks first: the most accurate pipeline (raw-text test LAS) where it
    parses at least half as fast as the fastest, else the fastest; pipelines whose cards lack either figure
    follow in name order (and are picked only where none has both)."""
    measured = {name: figures for name, card in cards.items() if (figures := card_las_and_speed(card))}
    if not measured:
        return list(cards)
    fastest = max(measured, key=lambda name: measured[name][1])
    accurate = max(measured, key=lambda name: measured[name][0])
    pick = accurate if measured[accurate][1] >= measured[fastest][1] / 2 else fastest
    return [pick, *(name for name in cards if name != pick)]
