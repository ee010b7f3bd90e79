"""Constituency parses in and out of files: inputs read in any format, trees written as the user asked.

``ptb`` output is one bracketed tree per line (k-best: blocks of ``rank<TAB>log
probability<TAB>tree``).  ``conllu`` and ``json`` keep the input sentence whole (its
ids, text, tokens and columns) and add the tree as a ``# constituency = ...`` comment,
as Stanza writes it, so that raw text keeps its sentence ids and text.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable, Iterator

from lstmparse.errors import ModelError
from lstmparse.io.document import sentence_json
from lstmparse.io.formats import RAW_FORMATS, Sentence, read_sentences
from lstmparse.io.ptb import PTBTree, iter_ptb, unescape_word
from lstmparse.seq2seq.api import ParsedTree
from lstmparse.tokenizer.api import Tokenizer

OUTPUT_FORMATS = ("ptb", "conllu", "json")


def read_inputs(path: str, input_format: str, tokenizer: Tokenizer | None = None) -> Iterator[PTBTree | Sentence]:
    """The sentences of a file to parse: bracketed trees, raw or presegmented text (split by ``tokenizer``),
    tokenized text or CoNLL-U."""
    if input_format == "ptb":
        return iter_ptb(path)
    if input_format in RAW_FORMATS:
        if tokenizer is None:
            raise ModelError(f"--input-format {input_format} needs a tokenizer")
        return tokenizer.tokenize_file(path, input_format == "presegmented")
    return read_sentences(path, input_format)


def with_inputs(
    parse_kbest: Callable[..., Iterator[list[ParsedTree]]], inputs: Iterable, *search
) -> Iterator[tuple[PTBTree | Sentence, list[ParsedTree]]]:
    """(input sentence, its candidate trees) pairs: the parser yields one list per input, in order."""
    pending: collections.deque = collections.deque()

    def recorded():
        for item in inputs:
            pending.append(item)
            yield item

    for candidates in parse_kbest(recorded(), *search):
        yield pending.popleft(), candidates


def constituency_text(
    item: PTBTree | Sentence, candidates: list[ParsedTree], output_format: str, kbest: bool = False
) -> str:
    """One input's candidate trees as ``output_format`` writes them (``kbest``: ranked, with their scores)."""
    if output_format == "ptb":
        return bracketed_lines(candidates, kbest)
    sentences = annotated_sentences(item, candidates, kbest)
    return "".join(sentence_json(s) if output_format == "json" else s.to_conllu() for s in sentences)


def bracketed_lines(candidates: list[ParsedTree], kbest: bool) -> str:
    """One tree per line; k-best, a block per sentence of ``rank<TAB>log-probability<TAB>tree`` lines."""
    if not kbest:
        return candidates[0].to_bracketed() + "\n"
    return "".join(f"{c.rank}\t{c.log_prob:.4f}\t{c.to_bracketed()}\n" for c in candidates) + "\n"


def annotated_sentences(item: PTBTree | Sentence, candidates: list[ParsedTree], kbest: bool) -> list[Sentence]:
    """The input sentence once per candidate, the tree in ``# constituency`` (k-best: with rank and score)."""
    sentence = Sentence.from_forms([unescape_word(w) for w in item.words]) if isinstance(item, PTBTree) else item
    annotated = []
    for candidate in candidates:
        extra = [f"# constituency = {candidate.to_bracketed()}"]
        if kbest:
            extra += [f"# kbest_rank = {candidate.rank}", f"# parser_score = {candidate.log_prob:.4f}"]
        annotated.append(sentence.with_comments(extra))
    return annotated
