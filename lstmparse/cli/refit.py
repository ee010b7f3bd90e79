"""``lstmparse refit``: a trained pipeline's choices made on dev again, as training makes them last."""

from __future__ import annotations

import click

from lstmparse.cli.common import EXISTING_FILE, MODEL, clean_errors


@click.command()
@click.argument("model", type=MODEL)
@click.option(
    "--treebank",
    type=click.Path(exists=True, file_okay=False),
    help="the UD treebank folder the pipeline was trained on: its dev file is what the choices are made on",
)
@click.option("--dev", "dev_file", type=EXISTING_FILE, help="the gold dev file to make the choices on (or --treebank)")
@click.option("--only", help="these choices, comma-separated (default: every choice that applies)")
@clean_errors
def refit(model, treebank, dev_file, only) -> None:
    """Make MODEL's choices on dev again (the beam, the lemma weights), on the pipeline as it ships, and store them
    in its manifest."""
    import sys

    from lstmparse.cli.common import configure_dynet
    from lstmparse.pipeline.choices import BY_NAME, choose_on_dev
    from lstmparse.pipeline.recipe import treebank_folder

    names = [name.strip() for name in only.split(",")] if only else None
    unknown = sorted(set(names or ()) - set(BY_NAME))
    if unknown:
        raise click.UsageError(f"--only {unknown[0]}: not a choice; choices: {', '.join(BY_NAME)}")
    if (treebank is None) == (dev_file is None):
        raise click.UsageError("give the dev set: --treebank DIR or --dev FILE")
    dev = dev_file if treebank is None else treebank_folder(treebank).dev
    if dev is None:
        raise click.UsageError(f"--treebank {treebank}: no dev file to make the choices on")
    configure_dynet(seed=1)
    from lstmparse.pipeline.api import Pipeline

    chosen = choose_on_dev(Pipeline.load(model), model, str(dev), names, sys.stderr)
    click.echo(f"{len(chosen)} choices stored in {model}", err=True)
