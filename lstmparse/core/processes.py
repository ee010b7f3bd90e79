"""Worker processes that leave Ctrl-C to their parent and stop at once when told (``--jobs``, ``parse-corpus``).

Workers are spawned (fresh interpreters that configure DyNet themselves) with
SIGINT blocked: a signal mask survives ``exec``, so an interrupt that reaches the
whole process group while a worker is still importing DyNet neither kills it with
a traceback nor leaves the parent waiting for it.  The worker's initializer then
ignores SIGINT and unblocks it.  ``concurrent.futures`` is used rather than
``multiprocessing.Pool`` because a worker that dies turns into an error there
(``BrokenProcessPool``), where the older pool waits for its result forever.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager

from lstmparse.core import backend
from lstmparse.core.families import resolve

_models: dict[tuple, object] = {}  # the models this process has loaded


def worker_pool(workers: int, initializer: Callable | None = None, initargs: tuple = ()) -> ProcessPoolExecutor:
    """A pool of spawned workers that ignore SIGINT, then run ``initializer(*initargs)``."""
    return ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_start_worker,
        initargs=(initializer, initargs),
    )


def submit(executor: ProcessPoolExecutor, function: Callable, *args) -> Future:
    """``executor.submit`` with SIGINT blocked, so that a worker it starts inherits the mask."""
    with sigint_blocked():
        return executor.submit(function, *args)


@contextmanager
def sigint_blocked() -> Iterator[None]:
    """SIGINT held back in this thread; one that arrives meanwhile is delivered on leaving."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


MANAGER_EXIT_SECONDS = 10  # how long stop_now waits for the pool's manager thread (it ends at once)


def stop_now(executor: ProcessPoolExecutor) -> None:
    """Drop the queued work and terminate the workers without waiting for what they hold.

    Then wait for the pool's manager thread to end: a process that exits while that
    thread is still closing a broken pool's wake-up pipe gets, after its own one-line
    error, a traceback from the standard library's exit handler writing to the closed
    pipe (``OSError: [Errno 9] Bad file descriptor``; one run in about eight under load).
    """
    workers = list((getattr(executor, "_processes", None) or {}).values())  # before shutdown() forgets them
    manager = getattr(executor, "_executor_manager_thread", None)
    executor.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.join()
    if manager is not None:
        manager.join(MANAGER_EXIT_SECONDS)


def loaded(model: str | None, memory_mb: int, loader: str):
    """``loader(model)`` (a ``"module:attribute"`` reference, such as ``"lstmparse.stacklstm.api:Parser.load"``),
    loaded once per process.

    The first call configures DyNet for this process; the loader's module, and DyNet
    with it, is imported only then (:func:`lstmparse.core.families.resolve`).
    """
    key = (loader, model, memory_mb)
    if key not in _models:
        backend.configure(seed=1, memory_mb=memory_mb, if_loaded="keep")
        _models[key] = resolve(loader)(model)
    return _models[key]


def _start_worker(initializer: Callable | None, initargs: tuple) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C; no SIGINT is delivered here
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if initializer is not None:
        initializer(*initargs)
