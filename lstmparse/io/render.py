"""Trees drawn as inline SVG: dependency arcs over the words, constituency trees, gold differences marked.

One self-contained HTML page (no script, no network) holds one SVG per sentence,
each in a box that scrolls sideways, so a long sentence keeps readable word
spacing instead of being squeezed.  Dependency arcs are drawn above the words from
head to dependent (arrow at the dependent), each at a height that clears the arcs
inside its span, so non-projective arcs cross as they should.  Multi-word tokens are
a bracket over their words; a word whose head or label differs from ``gold`` is red,
with the gold attachment in its tooltip.  The output is well-formed XML (XHTML), so
tests and other tools can read it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any, Protocol


class Sentence(Protocol):
    """What a drawing reads of a sentence (a :class:`~lstmparse.io.formats.Sentence`): its words as views
    (``form``, ``upos``, ``head_id``, ``deprel``, ``confidence``, ``token``), forms, id and text.  This module
    imports nothing of the toolkit, so that the documents it draws can draw themselves (``_repr_html_``)."""

    @property
    def sent_id(self) -> str | None: ...
    @property
    def text(self) -> str: ...
    @property
    def forms(self) -> Sequence[str]: ...
    @property
    def words(self) -> Sequence[Any]: ...


class Constituent(Protocol):
    """What a drawing reads of a bracketed tree's node (:class:`~lstmparse.io.ptb.Constituent`)."""

    @property
    def label(self) -> str: ...
    @property
    def children(self) -> Sequence[Any]: ...
    @property
    def word(self) -> str | None: ...
    @property
    def is_preterminal(self) -> bool: ...


@dataclass
class _Root:
    """The drawn tree's top: the tree's constituents under one node."""

    label: str
    children: list[Any] = field(default_factory=list)
    word: str | None = None
    is_preterminal: bool = False


CHAR_WIDTH = 7.5  # px per character of the 13 px sans-serif text, a little generous
WORD_GAP = 18
LEVEL_HEIGHT = 22
MARGIN = 12
WRONG = "#c62828"
STYLE = """
body { font-family: sans-serif; margin: 1em; }
.sentence { margin: 0 0 1.5em 0; }
.sentence h2 { font-size: 14px; font-weight: normal; color: #444; margin: 0 0 4px 0; }
.scroll { overflow-x: auto; border: 1px solid #ddd; padding: 4px; }
svg text { font-size: 13px; }
svg .upos { fill: #666; font-size: 11px; }
svg .label { fill: #1a237e; font-size: 11px; paint-order: stroke; stroke: white; stroke-width: 3px; }
svg .arc { fill: none; stroke: #1a237e; stroke-width: 1.2; }
svg .wrong text.form, svg text.wrong { fill: #c62828; font-weight: bold; }
svg path.wrong { stroke: #c62828; stroke-width: 1.8; }
.legend { font-size: 13px; margin-bottom: 1em; }
.legend span { color: #c62828; font-weight: bold; }
"""


@dataclass(frozen=True)
class Arc:
    """One drawn dependency: head and dependent positions (0-based; head -1 is the root)."""

    head: int
    dependent: int
    label: str


def page(svgs: Iterable[tuple[str, str]], title: str = "lstmparse", legend: str = "") -> str:
    """An XHTML page of (caption, SVG) pairs."""
    body = "".join(
        f'<div class="sentence"><h2>{escape(caption)}</h2><div class="scroll">{svg}</div></div>\n'
        for caption, svg in svgs
    )
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml"><head><meta charset="utf-8"/>'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>\n"
        f"{legend}{body}</body></html>\n"
    )


def gold_legend() -> str:
    return '<p class="legend"><span>Red</span> words have another head or label in the gold file (tooltip: gold).</p>\n'


def caption_of(sentence: Sentence, number: int) -> str:
    """``sent_id: text`` (or the sentence's number)."""
    return f"{sentence.sent_id or number}: {sentence.text}"


def dependency_svg(sentence: Sentence, gold: Sentence | None = None) -> str:
    """The sentence's words, UPOS and arcs; with ``gold``, the words attached otherwise there are marked."""
    words = sentence.words
    widths = [max(len(w.form), len(w.upos or ""), 2) * CHAR_WIDTH for w in words]
    centres: list[float] = []
    x: float = MARGIN
    for width in widths:
        centres.append(x + width / 2)
        x += width + WORD_GAP
    arcs = [Arc((w.head_id or 0) - 1, k, w.deprel or "") for k, w in enumerate(words) if w.head_id is not None]
    confidence = [w.confidence for w in words]
    levels = arc_levels(arcs)
    top = (max(levels.values(), default=0) + 1) * LEVEL_HEIGHT + MARGIN
    baseline = top + 30
    wrong = wrong_words(sentence, gold) if gold is not None else {}
    parts = [_token_brackets(sentence, centres, widths, baseline)]
    for arc in arcs:
        parts.append(_arc(arc, centres, levels[arc], baseline, confidence[arc.dependent], arc.dependent in wrong))
    for k, word in enumerate(words):
        parts.append(_word(word.form, word.upos or "", centres[k], baseline, wrong.get(k)))
    width, height = x - WORD_GAP + MARGIN, baseline + 34
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}">'
        '<defs><marker id="arrow" markerWidth="8" markerHeight="8" refX="4" refY="4" orient="auto">'
        '<path d="M0,0 L8,4 L0,8 z" fill="#1a237e"/></marker></defs>' + "".join(parts) + "</svg>"
    )


def arc_levels(arcs: Sequence[Arc]) -> dict[Arc, int]:
    """Each arc's height level: one above the highest arc whose span lies inside its own (the root's is the top)."""
    spans = {arc: _span(arc) for arc in arcs}
    levels: dict[Arc, int] = {}
    for arc in sorted(arcs, key=lambda a: (a.head < 0, spans[a][1] - spans[a][0])):
        start, end = spans[arc]
        inside = [levels[other] for other in levels if start <= spans[other][0] and spans[other][1] <= end]
        levels[arc] = 1 + max(inside, default=0)
    return levels


def wrong_words(sentence: Sentence, gold: Sentence) -> dict[int, str]:
    """Positions whose head or label differs from gold, each with the gold attachment as text."""
    if gold.forms != sentence.forms:
        raise ValueError(f"the gold sentence has other words: {' '.join(gold.forms[:8])} ...")
    wrong = {}
    for k, (word, right) in enumerate(zip(sentence.words, gold.words, strict=True)):
        if (word.head_id, word.deprel) != (right.head_id, right.deprel):
            head = right.head.form if right.head else "ROOT"
            wrong[k] = f"gold: {right.deprel} of {head} ({right.head_id})"
    return wrong


def _span(arc: Arc) -> tuple[int, int]:
    if arc.head < 0:
        return (-1, 10**9)  # the root arc rises above everything
    return (min(arc.head, arc.dependent), max(arc.head, arc.dependent))


def _arc(arc: Arc, centres: list[float], level: int, baseline: float, confidence: float | None, wrong: bool) -> str:
    """The arc's path and label; a confidence shades it (faint: unsure) and is its tooltip."""
    end_x, end_y = centres[arc.dependent], baseline - 16
    css = "arc wrong" if wrong else "arc"
    label_css = "label wrong" if wrong else "label"
    shade = "" if confidence is None else f' stroke-opacity="{0.15 + 0.85 * confidence:.2f}"'
    tooltip = "" if confidence is None else f"<title>confidence {confidence:.2f}</title>"
    if arc.head < 0:
        return (
            f'<path class="{css}" d="M{end_x:.1f},{MARGIN:.1f} L{end_x:.1f},{end_y:.1f}" marker-end="url(#arrow)"'
            f"{shade}>{tooltip}</path>"
            f'<text class="{label_css}" x="{end_x + 4:.1f}" y="{MARGIN + 10:.1f}">{escape(arc.label)}</text>'
        )
    start_x = centres[arc.head] + (3 if arc.head < arc.dependent else -3)
    height = end_y - level * LEVEL_HEIGHT
    middle = (start_x + end_x) / 2
    path = f"M{start_x:.1f},{end_y:.1f} C{start_x:.1f},{height:.1f} {end_x:.1f},{height:.1f} {end_x:.1f},{end_y:.1f}"
    label_y = end_y - level * LEVEL_HEIGHT * 0.75 - 3
    return (
        f'<path class="{css}" d="{path}" marker-end="url(#arrow)"{shade}>{tooltip}</path>'
        f'<text class="{label_css}" x="{middle:.1f}" y="{label_y:.1f}" text-anchor="middle">{escape(arc.label)}</text>'
    )


def _word(form: str, upos: str, centre: float, baseline: float, wrong: str | None) -> str:
    tooltip = f"<title>{escape(wrong)}</title>" if wrong else ""
    css = ' class="wrong"' if wrong else ""
    return (
        f'<g{css}>{tooltip}<text class="form" x="{centre:.1f}" y="{baseline:.1f}" text-anchor="middle">'
        f'{escape(form)}</text><text class="upos" x="{centre:.1f}" y="{baseline + 15:.1f}" text-anchor="middle">'
        f"{escape(upos)}</text></g>"
    )


def _token_brackets(sentence: Sentence, centres: list[float], widths: list[float], baseline: float) -> str:
    """A bracket under each multi-word token's words, with the token's form."""
    parts = []
    for token in {w.token.id: w.token for w in sentence.words if w.token is not None}.values():
        first, last = token.word_ids[0] - 1, token.word_ids[-1] - 1
        left, right = centres[first] - widths[first] / 2, centres[last] + widths[last] / 2
        y = baseline + 21
        parts.append(
            f'<path d="M{left:.1f},{y - 3:.1f} L{left:.1f},{y:.1f} L{right:.1f},{y:.1f} L{right:.1f},{y - 3:.1f}" '
            f'fill="none" stroke="#888"/><text class="upos" x="{(left + right) / 2:.1f}" y="{y + 11:.1f}" '
            f'text-anchor="middle">{escape(token.form)}</text>'
        )
    return "".join(parts)


def constituency_svg(tree: Any) -> str:
    """A bracketed tree drawn top-down, each phrase above its parts and each tag under its phrase; the words
    in a row at the bottom."""
    leaves = [leaf for child in tree.children for leaf in child.preterminals()]
    widths = [max(len(leaf.word or ""), len(leaf.label), 2) * CHAR_WIDTH for leaf in leaves]
    centres: list[float] = []
    x: float = MARGIN
    for width in widths:
        centres.append(x + width / 2)
        x += width + WORD_GAP
    root = _Root("ROOT", list(tree.children))
    tags_y = MARGIN + 14 + (_depth(root) + 1) * PHRASE_HEIGHT
    layout = _Layout(iter(centres), tags_y, [])
    layout.draw(root, 0)
    width, height = x - WORD_GAP + MARGIN, tags_y + 24
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}">' + "".join(layout.parts) + "</svg>"
    )


PHRASE_HEIGHT = 36


def _depth(node: Constituent) -> int:
    """Levels below ``node`` down to its deepest preterminal (a preterminal: 0)."""
    return 0 if node.is_preterminal else 1 + max((_depth(child) for child in node.children), default=0)


@dataclass
class _Layout:
    """Where the next preterminal goes, the row of words, and the SVG drawn so far."""

    centres: Iterator[float]
    tags_y: float
    parts: list[str]

    def draw(self, node: Constituent, level: int) -> tuple[float, float]:
        """Draw ``node`` and its subtree; returns where its label is (x, y)."""
        y = MARGIN + 14 + level * PHRASE_HEIGHT
        if node.is_preterminal:  # its tag under its phrase, a dotted line down to the row of words
            x = next(self.centres)
            self.parts.append(
                f'<text class="upos" x="{x:.1f}" y="{y:.1f}" text-anchor="middle">{escape(node.label)}</text>'
                f'<line x1="{x:.1f}" y1="{y + 4:.1f}" x2="{x:.1f}" y2="{self.tags_y - 12:.1f}" stroke="#bbb" '
                f'stroke-dasharray="2,3"/><text x="{x:.1f}" y="{self.tags_y:.1f}" text-anchor="middle">'
                f"{escape(node.word or '')}</text>"
            )
            return x, y
        places = [self.draw(child, level + 1) for child in node.children]
        x = sum(px for px, _ in places) / len(places) if places else MARGIN
        for child_x, child_y in places:
            self.parts.append(
                f'<line x1="{x:.1f}" y1="{y + 4:.1f}" x2="{child_x:.1f}" y2="{child_y - 11:.1f}" stroke="#888"/>'
            )
        self.parts.append(
            f'<text class="label" x="{x:.1f}" y="{y:.1f}" text-anchor="middle">{escape(node.label)}</text>'
        )
        return x, y


NOTEBOOK_SENTENCES = 10  # a document shows this many sentences in a notebook, and says how many more it has
NOTEBOOK_STYLE = "".join(  # the page's rules for drawings, kept inside the output's own box (not the notebook's)
    f".lstmparse-notebook {line}\n" for line in STYLE.splitlines() if line.startswith("svg")
)


def notebook_html(sentences: Sequence[Sentence], total: int | None = None) -> str:
    """Sentences drawn for a notebook (``_repr_html_``): each caption and its tree as inline SVG; a long
    document shows its first :data:`NOTEBOOK_SENTENCES` and a note of how many more there are."""
    shown = list(sentences[:NOTEBOOK_SENTENCES])
    total = len(sentences) if total is None else total
    parts = [
        f'<div class="lstmparse-sentence"><div style="font:13px sans-serif;color:#555">{escape(caption_of(s, k))}'
        f"</div>{dependency_svg(s)}</div>"
        for k, s in enumerate(shown, start=1)
    ]
    if total > len(shown):
        parts.append(
            f'<p style="font:13px sans-serif;color:#555">… and {total - len(shown)} more sentences '
            f"({total} in all; to_conllu() or lstmparse render has every one)</p>"
        )
    return f'<div class="lstmparse-notebook"><style>{NOTEBOOK_STYLE}</style>' + "".join(parts) + "</div>"
