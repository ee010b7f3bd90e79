"""``lstmparse render``: trees as a self-contained HTML page (or one SVG file per sentence)."""

from __future__ import annotations

import os

import click

from lstmparse.cli.common import EXISTING_FILE, clean_errors


@click.command()
@click.argument("input_file", default="-")
@click.option(
    "--input-format",
    type=click.Choice(["conllu", "conllx", "ptb"]),
    default="conllu",
    show_default=True,
    help="dependency trees (CoNLL-U, CoNLL-X) or bracketed constituency trees (ptb)",
)
@click.option("--gold", type=EXISTING_FILE, help="gold CoNLL-U: words whose head or label differs are marked red")
@click.option("--output", "output_file", default="-", show_default=True, help="HTML file, - for stdout")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["html", "svg"]),
    default="html",
    show_default=True,
    help="html: one page for all sentences; svg: one file per sentence in --output-dir",
)
@click.option("--output-dir", type=click.Path(file_okay=False), help="where --format svg writes 1.svg, 2.svg, ...")
@clean_errors
def render(input_file, input_format, gold, output_file, output_format, output_dir) -> None:
    """Draw the trees of INPUT_FILE (CoNLL-U or bracketed; - for stdin): arcs over words, or phrase trees.

    Open the page in any browser: it needs no network and runs no script.
    """
    from lstmparse.errors import ConfigurationError
    from lstmparse.io import render as drawing
    from lstmparse.io.outputs import open_output

    if output_format == "svg" and not output_dir:
        raise click.BadParameter("--format svg writes one file per sentence: give --output-dir", param_hint="--format")
    if gold and input_format == "ptb":
        raise ConfigurationError("--gold compares dependency trees (CoNLL-U)")
    svgs = list(_drawn(input_file, input_format, gold))
    if output_format == "svg":
        os.makedirs(output_dir, exist_ok=True)
        for number, (_, svg) in enumerate(svgs, start=1):
            with open_output(os.path.join(output_dir, f"{number}.svg"), (input_file,)) as out:
                out.write(svg + "\n")
        click.echo(f"rendered {len(svgs)} sentences into {output_dir}", err=True)
        return
    legend = drawing.gold_legend() if gold else ""
    with open_output(output_file, (input_file,)) as out:
        out.write(drawing.page(svgs, title=os.path.basename(input_file), legend=legend))


def _drawn(input_file: str, input_format: str, gold: str | None):
    """(caption, SVG) of each sentence or tree of the input."""
    from lstmparse.errors import InputError
    from lstmparse.io import render as drawing
    from lstmparse.io.formats import read_sentences
    from lstmparse.io.ptb import iter_ptb, to_bracketed

    if input_format == "ptb":
        for number, tree in enumerate(iter_ptb(input_file), start=1):
            yield f"{number}: {to_bracketed(tree)[:120]}", drawing.constituency_svg(tree)
        return
    golds = iter(read_sentences(gold)) if gold else None
    for number, sentence in enumerate(read_sentences(input_file, input_format), start=1):
        reference = next(golds, None) if golds is not None else None
        if golds is not None and (reference is None or reference.forms != sentence.forms):
            line = reference.first_line if reference is not None else None
            raise InputError(str(gold), line, f"sentence {number} has other words than in {input_file} (or is missing)")
        yield drawing.caption_of(sentence, number), drawing.dependency_svg(sentence, reference)
