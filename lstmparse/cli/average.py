"""``lstmparse average``: checkpoint averaging of one run's epochs (``train --keep-epochs``)."""

from __future__ import annotations

import click

from lstmparse.cli.common import MODEL, clean_errors


@click.command()
@click.argument("models", nargs=-1, required=True, type=MODEL)
@click.option("--output", required=True, type=click.Path(file_okay=False), help="where the averaged model is written")
@click.option("--overwrite", is_flag=True, help="replace a model already in --output")
@clean_errors
def average(models, output, overwrite) -> None:
    """Write the model whose parameters are the mean of MODELS' (one run's checkpoints, e.g. its last epochs)."""
    from lstmparse.core.model_io import average_directories, check_training_directory

    check_training_directory(output, resume=False, overwrite=overwrite)
    average_directories(list(models), output)
    click.echo(f"averaged {len(models)} models into {output}", err=True)
