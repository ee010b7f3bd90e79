"""Penn-Treebank bracketed constituency trees: reading, normalizing, writing.

A file holds trees one per line or spread over several lines; a tree ends where
its brackets balance.  ``(ROOT ...)``, ``(TOP ...)`` and the unlabelled ``( ...)``
of the original treebank are wrappers, not constituents: they are removed on
reading and written back as ``(ROOT ...)``.  Empty elements (``-NONE-``) and the
constituents left empty without them are removed, as every evaluation of
constituency parsers does.  Words are written with ``(`` and ``)`` escaped as
``-LRB-``/``-RRB-`` so that every written tree reads back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lstmparse.errors import InputError
from lstmparse.io.formats import numbered_lines, open_input

WRAPPERS = {"", "ROOT", "TOP", "VROOT"}
EMPTY_ELEMENT = "-NONE-"
_TOKEN = re.compile(r"\(|\)|[^\s()]+")


@dataclass
class Constituent:
    """A node: a preterminal (``word`` set, no children) or a phrase with children."""

    label: str
    children: list[Constituent] = field(default_factory=list)
    word: str | None = None

    @property
    def is_preterminal(self) -> bool:
        return self.word is not None

    def preterminals(self) -> Iterator[Constituent]:
        if self.is_preterminal:
            yield self
        for child in self.children:
            yield from child.preterminals()


@dataclass
class PTBTree:
    """The constituents under the wrapper (usually one), and where the tree was read."""

    children: list[Constituent]
    path: str = "<input>"
    line: int = 0

    def _repr_html_(self) -> str:
        """The tree drawn in a notebook (inline SVG)."""
        from lstmparse.io.render import constituency_svg

        return constituency_svg(self)

    @property
    def words(self) -> list[str]:
        return [leaf.word or "" for leaf in self.preterminals()]

    @property
    def tags(self) -> list[str]:
        return [leaf.label for leaf in self.preterminals()]

    def preterminals(self) -> Iterator[Constituent]:
        for child in self.children:
            yield from child.preterminals()

    def __len__(self) -> int:
        return sum(1 for _ in self.preterminals())


def base_label(label: str) -> str:
    """The label without function tags or indices: ``NP-SBJ-1`` and ``NP=2`` are ``NP``.

    Labels that start with a hyphen (``-LRB-``, ``-NONE-``) are names, not tagged.
    """
    if label.startswith("-"):
        return label
    return re.split(r"[-=]", label, maxsplit=1)[0] or label


def read_ptb(path: str | Path) -> list[PTBTree]:
    """Every tree of a bracketed file (``-`` = stdin), normalized (see the module docstring)."""
    return list(iter_ptb(path))


def iter_ptb(path: str | Path) -> Iterator[PTBTree]:
    """The trees of a bracketed file one by one, so that those before a malformed one can still be used."""
    path = str(path)
    name = "<stdin>" if path == "-" else path
    with open_input(path) as handle:
        yield from _trees(numbered_lines(handle, name), name)


def parse_ptb_text(text: str, path: str = "<input>") -> list[PTBTree]:
    """The trees of bracketed text (``path`` only names it in errors)."""
    return parse_ptb_lines(enumerate(text.splitlines(), 1), path)


def parse_ptb_lines(numbered: Iterable[tuple[int, str]], path: str) -> list[PTBTree]:
    """The trees of (line number, line) pairs."""
    return list(_trees(numbered, path))


def _trees(numbered: Iterable[tuple[int, str]], path: str) -> Iterator[PTBTree]:
    tokens, start_line = [], 0
    depth = 0
    for number, line in numbered:
        for token in _TOKEN.findall(line):
            if depth == 0:
                if token != "(":
                    raise InputError(path, number, f"text outside a tree: {token!r}")
                start_line = number
            depth += {"(": 1, ")": -1}.get(token, 0)
            tokens.append((token, number))
            if depth == 0:
                yield normalize(_build(tokens, path), path, start_line)
                tokens = []
    if depth:
        raise InputError(path, start_line, f"unbalanced brackets: {depth} left open at the end of the file")


def _build(tokens: list[tuple[str, int]], path: str) -> Constituent:
    """The node of one balanced token list ``( label children... )``."""
    stack: list[Constituent] = []
    root: Constituent | None = None
    index = 0
    while index < len(tokens):
        token, line = tokens[index]
        if token == "(":
            label = ""
            if index + 1 < len(tokens) and tokens[index + 1][0] not in "()":
                label = tokens[index + 1][0]
                index += 1
            node = Constituent(label)
            if stack:
                _attach(stack[-1], node, path, line)
            stack.append(node)
        elif token == ")":
            node = stack.pop()
            if not node.children and node.word is None:
                raise InputError(path, line, f"empty bracket ({node.label})")
            root = node
        else:
            parent = stack[-1]
            if parent.children or parent.word is not None:
                raise InputError(path, line, f"({parent.label} ...) mixes a word {token!r} with other children")
            parent.word = token
        index += 1
    if root is None:
        raise InputError(path, tokens[0][1] if tokens else None, "no bracketed tree")
    return root


def _attach(parent: Constituent, child: Constituent, path: str, line: int) -> None:
    if parent.word is not None:
        raise InputError(path, line, f"({parent.label} {parent.word} ...) has a word and a phrase")
    parent.children.append(child)


def normalize(root: Constituent, path: str, line: int) -> PTBTree:
    """Remove the wrapper, empty elements and the constituents they leave empty."""
    children = root.children if root.label in WRAPPERS and not root.is_preterminal else [root]
    kept = [pruned for child in children if (pruned := _without_empty_elements(child)) is not None]
    if not kept:
        raise InputError(path, line, "a tree without words")
    return PTBTree(kept, path, line)


def _without_empty_elements(node: Constituent) -> Constituent | None:
    if node.is_preterminal:
        return None if node.label == EMPTY_ELEMENT else node
    children = [pruned for child in node.children if (pruned := _without_empty_elements(child)) is not None]
    return Constituent(node.label, children) if children else None


def to_bracketed(tree: PTBTree | Sequence[Constituent]) -> str:
    """One line: ``(ROOT ...)`` around the tree's constituents."""
    children = tree.children if isinstance(tree, PTBTree) else tree
    return "(ROOT " + " ".join(_node_text(child) for child in children) + ")"


def _node_text(node: Constituent) -> str:
    if node.is_preterminal:
        return f"({node.label} {escape_word(node.word or '')})"
    return f"({node.label} " + " ".join(_node_text(child) for child in node.children) + ")"


def escape_word(word: str) -> str:
    """A word as a bracketed file can hold it: parentheses become ``-LRB-``/``-RRB-``."""
    return word.replace("(", "-LRB-").replace(")", "-RRB-")


def unescape_word(word: str) -> str:
    """A bracketed file's word as text has it: ``-LRB-``/``-RRB-`` become parentheses."""
    return word.replace("-LRB-", "(").replace("-RRB-", ")")
