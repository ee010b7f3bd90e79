"""Parsing with several processes, output in input order (``lstmparse parse --jobs N``).

DyNet runs one graph at a time per process, so parsing scales with processes, not
threads.  Each worker is a fresh (spawned) interpreter that configures DyNet and
loads the model itself; the parent only reads sentences and writes results.  This
module imports no model code, so that the parent's DyNet settings are not fixed
by importing it.

Ctrl-C belongs to the parent alone, and any way out other than the end of the
input (an interrupt, an error, the caller dropping the results) terminates the
workers at once (:mod:`lstmparse.core.processes`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from lstmparse.core import backend
from lstmparse.core.processes import loaded, stop_now, submit, worker_pool
from lstmparse.errors import InputError, ModelError
from lstmparse.io.formats import Sentence

PARSER_LOADER = "lstmparse.stacklstm.api:Parser.load"  # the parser alone: the parent tokenizes and tags
CHUNK = 256  # sentences sent to a worker at a time (it batches them by length)
CHUNKS_IN_FLIGHT = 2  # per worker: enough to keep it busy, few enough to bound memory


def parse_in_processes(
    model_path: str | None,
    sentences: Iterable[Sentence],
    jobs: int,
    memory_mb: int = backend.DEFAULT_MEMORY_MB,
    loader: str = PARSER_LOADER,
    **search,
) -> Iterator[list[Sentence]]:
    """For each input sentence, in order, its list of parsed candidates (one when greedy).

    ``search`` is passed on to :meth:`Parser.candidates` (``beam``, ``kbest``, ``batch_size``, ``confidence``);
    ``loader`` (a ``"module:attribute"``) makes each worker's parser of ``model_path``.

    The input is read here, in the parent: when it turns out malformed, the
    sentences read before the bad one are still parsed and yielded, and then the
    :class:`InputError` is raised here, as without workers.  A worker that dies
    (killed, out of memory) is a :class:`ModelError` naming the model.
    """
    from lstmparse.core.batching import windows  # DyNet is configured by now (the caller loaded its model)

    executor = worker_pool(jobs, loaded, (model_path, memory_mb, loader))
    try:
        yield from _results_in_order(
            executor,
            windows(sentences, CHUNK),
            jobs,
            (model_path, memory_mb, loader, search),
        )
    except BrokenProcessPool:
        stop_now(executor)
        model = model_path or "the default model"
        raise ModelError(f"{model}: a parsing process was killed or ran out of memory") from None
    except BaseException:  # Ctrl-C, an input error, or the caller closing the generator
        stop_now(executor)
        raise
    executor.shutdown(wait=True)


def _results_in_order(
    executor: ProcessPoolExecutor, chunks: Iterator[list[Sentence]], jobs: int, options: tuple
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
                in_flight.append(submit(executor, _parse_chunk, chunk, *options))
        if not in_flight:
            break
        parsed, chunk_error = in_flight.popleft().result()
        yield from parsed
        if chunk_error is not None:  # the chunk's sentences before the error are out: stop here
            raise chunk_error
    if error is not None:
        raise error


def _parse_chunk(chunk: list[Sentence], model_path: str | None, memory_mb: int, loader: str, search: dict):
    """The chunk's parses, and the input error that stopped it (the parses before it are kept)."""
    results: list[list[Sentence]] = []
    try:
        results.extend(loaded(model_path, memory_mb, loader).candidates(chunk, **search))
    except InputError as error:
        return results, error
    return results, None
