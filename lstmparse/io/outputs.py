"""Output files that appear whole or not at all, and never replace their own input.

A parse of a large file can fail half-way (malformed input, Ctrl-C, a full disk);
the user's existing output must survive that.  So a named output is written to a
temporary file next to it and renamed over it only when everything succeeded; the
rename is atomic on one file system.  ``-`` is standard output, streamed as it
comes, so a pipe still sees every sentence before an error.
"""

from __future__ import annotations

import errno
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO, cast

from lstmparse.errors import ConfigurationError

STDIO = "-"
WRITE_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)


def check_output_path(output: str, inputs: tuple[str, ...] = ()) -> None:
    """Refuse, before any work, an output that is a directory, lies in no directory, or is an input."""
    if output == STDIO:
        return
    path = Path(output)
    if path.is_dir():
        raise ConfigurationError(f"{output}: is a directory, not an output file")
    if not path.parent.is_dir():
        raise ConfigurationError(f"{output}: no such directory {str(path.parent)!r}")
    for source in inputs:
        if source != STDIO and path.exists() and Path(source).exists() and path.samefile(source):
            raise ConfigurationError(f"{output}: the output would replace the input {source}; choose another file")


def file_mode() -> int:
    """The mode an ordinary new file gets: 0666 less the umask (read without changing it)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextmanager
def open_output(output: str, inputs: tuple[str, ...] = ()) -> Iterator[TextIO]:
    """A text stream for ``output``: stdout for ``-``, else a temporary file renamed over it on success."""
    check_output_path(output, inputs)
    if output == STDIO:
        yield sys.stdout
        sys.stdout.flush()
        return
    path = Path(output)
    with _named_write_errors(path):
        if path.exists() and not path.is_file():  # a device or a pipe: written in place, never replaced
            with open(path, "w", encoding="utf-8") as stream:
                yield stream
        else:
            yield from _replacing(path)


@contextmanager
def _named_write_errors(path: Path) -> Iterator[None]:
    """Write errors (a full disk) name the output file; the OS leaves them nameless."""
    try:
        yield
    except OSError as error:
        if error.filename is None and error.errno in WRITE_ERRORS:
            raise OSError(error.errno, error.strerror, str(path)) from None
        raise


def _replacing(path: Path) -> Iterator[TextIO]:
    handle = tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", dir=path.parent, prefix=f".{path.name}.", suffix=".part", delete=False
    )
    try:
        with handle:
            yield cast(TextIO, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, file_mode())
        os.replace(handle.name, path)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
