"""Parsing with several processes, output in input order (``lstmparse parse --jobs N``).

DyNet runs one graph at a time per process, so parsing scales with processes, not
threads.  Each worker is a fresh (spawned) interpreter that configures DyNet and
loads the model itself; the parent only reads sentences and writes results.  This
module imports no model code, so that the parent's DyNet settings are not fixed
by importing it.

Ctrl-C belongs to the parent alone.  Workers are started with SIGINT blocked (a
signal mask survives ``exec``), so an interrupt that reaches the whole process
group while a worker is still importing DyNet neither kills it with a traceback
nor leaves the pool waiting for it.  On any way out other than the end of the
input (an interrupt, an error, the caller dropping the results) the workers are
terminated at once, not waited for.  ``concurrent.futures`` is used rather than
``multiprocessing.Pool`` because a worker that dies turns into an error there
(``BrokenProcessPool``), where the older pool waits for its result forever.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager

from lstmparse import backend
from lstmparse.errors import InputError, ModelError
from lstmparse.formats import Sentence

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

    The input is read here, in the parent: when it turns out malformed, the
    sentences read before the bad one are still parsed and yielded, and then the
    :class:`InputError` is raised here, as without workers.  A worker that dies
    (killed, out of memory) is a :class:`ModelError` naming the model.
    """
    from lstmparse.batching import windows  # DyNet is configured by now (the caller loaded its model)

    executor = ProcessPoolExecutor(
        jobs, mp_context=multiprocessing.get_context("spawn"), initializer=_load, initargs=(model_path, memory_mb)
    )
    try:
        yield from _results_in_order(executor, windows(sentences, CHUNK), jobs, (beam, kbest, batch_size))
    except BrokenProcessPool:
        _stop_now(executor)
        model = model_path or "the default model"
        raise ModelError(f"{model}: a parsing process was killed or ran out of memory") from None
    except BaseException:  # Ctrl-C, an input error, or the caller closing the generator
        _stop_now(executor)
        raise
    executor.shutdown(wait=True)


def _results_in_order(
    executor: ProcessPoolExecutor, chunks: Iterator[list[Sentence]], jobs: int, options: tuple[int, int, int]
) -> Iterator[list[Sentence]]:
    """Keep ``CHUNKS_IN_FLIGHT`` chunks per worker submitted; yield their results chunk by chunk, in order."""
    in_flight: deque[Future] = deque()
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
                with _sigint_blocked():  # a worker that submit() starts inherits the mask
                    in_flight.append(executor.submit(_parse_chunk, chunk, *options))
        if not in_flight:
            break
        parsed, chunk_error = in_flight.popleft().result()
        yield from parsed
        if chunk_error is not None:  # the chunk's sentences before the error are out: stop here
            raise chunk_error
    if error is not None:
        raise error


@contextmanager
def _sigint_blocked():
    """SIGINT held back in this thread; one that arrives meanwhile is delivered on leaving."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _stop_now(executor: ProcessPoolExecutor) -> None:
    """Drop the queued chunks and terminate the workers without waiting for the chunks they hold."""
    executor.shutdown(wait=False, cancel_futures=True)
    workers = list((getattr(executor, "_processes", None) or {}).values())
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.join()


def _load(model_path: str | None, memory_mb: int) -> None:
    global _parser
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C; no SIGINT is delivered here
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    backend.configure(seed=1, memory_mb=memory_mb)
    from lstmparse.stacklstm.api import Parser

    _parser = Parser.load(model_path)


def _parse_chunk(chunk: list[Sentence], beam: int, kbest: int, batch_size: int):
    """The chunk's parses, and the input error that stopped it (the parses before it are kept)."""
    results: list[list[Sentence]] = []
    try:
        if beam == 1:
            results.extend([sentence] for sentence in _parser.parse(chunk, batch_size))
        else:
            results.extend(_parser.parse_kbest(chunk, beam, kbest, batch_size))
    except InputError as error:
        return results, error
    return results, None
