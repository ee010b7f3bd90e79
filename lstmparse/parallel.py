"""Parsing with several processes, output in input order (``lstmparse parse --jobs N``).

DyNet runs one graph at a time per process, so parsing scales with processes, not
threads.  Each worker is a fresh (spawned) interpreter that configures DyNet and
loads the model itself; the parent only reads sentences and writes results.  This
module imports no model code, so that the parent's DyNet settings are not fixed
by importing it.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterable, Iterator

from . import backend
from .formats import Sentence

CHUNK = 256  # sentences sent to a worker at a time (it batches them by length)

_parser = None  # the model loaded in a worker process


def parse_in_processes(
    model_path: str | None, sentences: Iterable[Sentence], jobs: int, beam: int = 1, kbest: int = 1,
    memory_mb: int = backend.DEFAULT_MEMORY_MB, batch_size: int = 32,
) -> Iterator[list[Sentence]]:
    """For each input sentence, in order, its list of parsed candidates (one when greedy)."""
    from .api import _batches  # DyNet is configured by now (the caller loaded its model)

    context = multiprocessing.get_context("spawn")
    with context.Pool(jobs, initializer=_load, initargs=(model_path, memory_mb)) as pool:
        chunks = _batches(sentences, CHUNK)
        for parsed in pool.imap(_parse_chunk, ((chunk, beam, kbest, batch_size) for chunk in chunks)):
            yield from parsed


def _load(model_path: str | None, memory_mb: int) -> None:
    global _parser
    backend.configure(seed=1, memory_mb=memory_mb)
    from .api import Parser

    _parser = Parser.load(model_path)


def _parse_chunk(task: tuple[list[Sentence], int, int, int]) -> list[list[Sentence]]:
    chunk, beam, kbest, batch_size = task
    if beam == 1:
        return [[sentence] for sentence in _parser.parse(chunk, batch_size)]
    return list(_parser.parse_kbest(chunk, beam, kbest, batch_size))
