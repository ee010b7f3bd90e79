"""``lstmparse vectors``: a table of word vectors from a pretrained encoder, for ``train --pretrained``."""

from __future__ import annotations

from pathlib import Path

import click

from lstmparse.cli.common import EXISTING_FILE, clean_errors

WORDS_PER_STEP = 2000  # words embedded between progress lines


@click.command()
@click.option("--treebank", "treebanks", multiple=True, type=EXISTING_FILE, help="a CoNLL-U file whose forms to embed")
@click.option("--words", "word_lists", multiple=True, type=EXISTING_FILE, help="a word list, one word a line")
@click.option(
    "--encoder",
    default="e5-static:12",
    show_default=True,
    help="the encoder and its layers (e5-static:LAYERS: each word alone, the mean of those layers)",
)
@click.option("--output", required=True, type=click.Path(dir_okay=False), help="the word2vec text file written")
@clean_errors
def vectors(treebanks, word_lists, encoder, output) -> None:
    """Write each word of the treebanks and word lists, embedded alone by an encoder, as a word2vec text table."""
    import numpy as np

    from lstmparse.core.model_io import atomic_write
    from lstmparse.io.formats import read_sentences
    from lstmparse.io.glove import write_word2vec
    from lstmparse.layers.encoders import word_encoder

    words = [form for path in treebanks for s in read_sentences(path) for form in s.forms]
    for path in word_lists:
        with open(path, encoding="utf-8") as handle:
            words.extend(line.strip() for line in handle)
    distinct = [w for w in dict.fromkeys(words) if w and " " not in w]  # word2vec's format has no room for spaces
    if not distinct:
        raise click.UsageError("give the words: --treebank FILE or --words FILE")
    model = word_encoder(encoder)
    rows: list[np.ndarray] = []
    for start in range(0, len(distinct), WORDS_PER_STEP):
        chunk = distinct[start : start + WORDS_PER_STEP]
        rows.extend(v[0] for v in model.word_vectors([[w] for w in chunk]))
        click.echo(f"{start + len(chunk)} of {len(distinct)} words", err=True)
    table = np.array(rows, np.float32)

    def write(handle) -> None:  # noqa: ANN001 - a binary file
        import io

        text = io.StringIO()
        write_word2vec(distinct, table, text)
        handle.write(text.getvalue().encode("utf-8"))

    atomic_write(Path(output), write)
    click.echo(f"{len(distinct)} words of {model.dim} dimensions ({model.spec}) in {output}", err=True)
