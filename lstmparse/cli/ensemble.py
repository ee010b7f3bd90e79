"""``lstmparse ensemble``: seq2seq, stack-LSTM or tagger models used as one (the mean of their distributions)."""

from __future__ import annotations

from pathlib import Path

import click

from lstmparse.cli.common import MODEL, clean_errors


@click.command()
@click.argument("models", nargs=-1, required=True, type=MODEL)
@click.option("--output", required=True, type=click.Path(file_okay=False), help="where the manifest is written")
@click.option("--overwrite", is_flag=True, help="replace a model already in --output")
@clean_errors
def ensemble(models, output, overwrite) -> None:
    """Write an ensemble of MODELS to --output: seq2seq constituency models, stack-LSTM dependency parsers
    or taggers, trained on one treebank (e.g. with other seeds; parsers with one transition system).

    The output directory holds a manifest naming the members (relative paths; they
    may be inside it), and parses or tags like a model: lstmparse parse --model OUTPUT
    (greedy, --beam, --kbest, --jobs; a pipeline's manifest may name it as its parser
    or its tagger). Each step follows the mean of the members' next-token or
    next-action distributions, and a tagger ensemble each word's mean distribution
    over tags, features and lemma rules: more accurate than each member, and as slow
    as all of them together.
    """
    from lstmparse.core.ensembles import write_ensemble
    from lstmparse.core.model_io import CONFIG
    from lstmparse.errors import ConfigurationError

    if (Path(output) / CONFIG).exists() and not overwrite:  # members may live inside it; a model may not
        raise ConfigurationError(f"{output} already holds a model: --overwrite replaces it, or choose another --output")
    write_ensemble(list(models), output)
    click.echo(f"wrote an ensemble of {len(models)} models to {output}", err=True)
