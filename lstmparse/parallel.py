"""Parsing with several processes, output in input order (``lstmparse parse --jobs N``).

DyNet runs one graph at a time per process, so parsing scales with processes, not
threads.  Each worker is a fresh (spawned) interpreter that configures DyNet and
loads the model itself; the parent only reads sentences and writes results.  This
module imports no model code, so that the parent's DyNet settings are not fixed
by importing it.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections import deque
from collections.abc import Iterable, Iterator

from . import backend
from .errors import InputError
from .formats import Sentence

CHUNK = 256  # sentences sent to a worker at a time (it batches them by length)
CHUNKS_IN_FLIGHT = 2  # per worker: enough to keep it busy, few enough to bound memory

_parser = None  # the model loaded in a worker process


def parse_in_processes(
    model_path: str | None,
    sentences: Iterable[Sentence],
    jobs: int,
    beam: int = 1,
    kbest: int = 1,
    memory_mb: int = backend.DEFAULT_MEMORY_MB,
    batch_size: int = 32,
) -> Iterator[list[Sentence]]:
    """For each input sentence, in order, its list of parsed candidates (one when greedy).

    The input is read here, in the parent, never inside the pool's own task thread:
    when it turns out malformed, the sentences read before the bad one are still
    parsed and yielded, and then the :class:`InputError` is raised here, as without
    workers.  Workers ignore Ctrl-C; the parent's interrupt ends the pool.
    """
    from .api import _windows  # DyNet is configured by now (the caller loaded its model)

    context = multiprocessing.get_context("spawn")
    with context.Pool(jobs, initializer=_load, initargs=(model_path, memory_mb)) as pool:
        chunks = _windows(sentences, CHUNK)
        in_flight: deque = deque()
        error, exhausted = None, False
        while True:
            while not exhausted and len(in_flight) < CHUNKS_IN_FLIGHT * jobs:
                try:
                    chunk = next(chunks)
                except StopIteration:
                    exhausted = True
                except InputError as found:
                    error, exhausted = found, True
                else:
                    in_flight.append(pool.apply_async(_parse_chunk, ((chunk, beam, kbest, batch_size),)))
            if not in_flight:
                break
            parsed, chunk_error = in_flight.popleft().get()
            yield from parsed
            if chunk_error is not None:  # the chunk's sentences before the error are out: stop here
                raise chunk_error
    if error is not None:
        raise error


def _load(model_path: str | None, memory_mb: int) -> None:
    global _parser
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and ends the pool
    backend.configure(seed=1, memory_mb=memory_mb)
    from .api import Parser

    _parser = Parser.load(model_path)


def _parse_chunk(task: tuple[list[Sentence], int, int, int]) -> tuple[list[list[Sentence]], InputError | None]:
    """The chunk's parses, and the input error that stopped it (the parses before it are kept)."""
    chunk, beam, kbest, batch_size = task
    results: list[list[Sentence]] = []
    try:
        if beam == 1:
            results.extend([sentence] for sentence in _parser.parse(chunk, batch_size))
        else:
            results.extend(_parser.parse_kbest(chunk, beam, kbest, batch_size))
    except InputError as error:
        return results, error
    return results, None
