"""``lstmparse release``: ship a farm run's remade models, write the catalogue, print results tables."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from lstmparse.app.release import DEV_TOLERANCE
from lstmparse.cli.common import EXISTING_FILE, clean_errors

CHECKOUT = Path(__file__).resolve().parents[2]
MODELS = CHECKOUT / "models"  # the checkout's: releases are made from one
DATA = CHECKOUT.parent / "shared" / "data"  # the shared data beside the checkout
DIRECTORY = click.Path(exists=True, file_okay=False, path_type=Path)


@click.group()
def release() -> None:
    """Release tools: the models a farm run remade shipped into models/, their catalogue, results tables.

    lstmparse farm models/remake.toml --work-dir W remakes the pipelines; release ship W
    puts them into models/ with their cards and rewrites models/README.md.
    """


@release.command()
@click.argument("work_dir", type=DIRECTORY)
@click.option("--plan", type=EXISTING_FILE, default=str(MODELS / "remake.toml"), show_default=True)
@click.option("--models-dir", type=DIRECTORY, default=MODELS, show_default=True)
@click.option(
    "--dev-tolerance",
    type=click.FloatRange(min=0),
    default=DEV_TOLERANCE,
    show_default=True,
    help="LAS points (dev, raw text) a remade pipeline may be below the shipped one and still replace it",
)
@clean_errors
def ship(work_dir: Path, plan: str, models_dir: Path, dev_tolerance: float) -> None:
    """Ship the pipelines a farm run of --plan evaluated (in WORK_DIR) into --models-dir, and write its catalogue.

    A shipped pipeline stays where the remade one is worse on dev by more than --dev-tolerance.
    """
    from lstmparse.app.release.shipping import ship as ship_models

    names = ship_models(work_dir, Path(plan), models_dir, sys.stderr, dev_tolerance)
    write_catalogue(models_dir)
    click.echo(f"lstmparse: shipped {len(names)} model(s); {models_dir / 'README.md'} rewritten", err=True)


@release.command()
@click.argument("names", nargs=-1, required=True)
@click.option(
    "--work-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=CHECKOUT / "runs" / "make",
    show_default=True,
    help="where the models are trained and their logs kept (run again to continue)",
)
@click.option("--models-dir", type=DIRECTORY, default=MODELS, show_default=True)
@click.option(
    "--data",
    "data_dir",
    type=DIRECTORY,
    default=DATA,
    show_default=True,
    help="the shared data: ud/TREEBANK and const/TREEBANK folders",
)
@clean_errors
def make(names: tuple[str, ...], work_dir: Path, models_dir: Path, data_dir: Path) -> None:
    """Remake each model NAME of --models-dir that is not a language pipeline from its recipe, score it on its
    treebank's dev and test files, and ship it with its card (an ensemble first makes the models it reuses).

    A language pipeline is remade by lstmparse farm models/remake.toml and shipped by release ship.
    """
    from lstmparse.app.release.making import make as make_models

    shipped = make_models(list(names), models_dir, data_dir, work_dir, sys.stderr)
    write_catalogue(models_dir)
    click.echo(f"lstmparse: shipped {', '.join(shipped)}; {models_dir / 'README.md'} rewritten", err=True)


@release.command()
@click.option("--models-dir", type=DIRECTORY, default=MODELS, show_default=True)
@click.option("--check", is_flag=True, help="write nothing; exit 1 if the page is not what the models make")
@clean_errors
def catalogue(models_dir: Path, check: bool) -> None:
    """Write --models-dir/README.md from the models' cards, recipes and results, and the languages tables of the
    README and bench/RESULTS.md beside it (between their markers)."""
    if check:
        for path, made in made_pages(models_dir).items():
            if (path.read_text(encoding="utf-8") if path.is_file() else "") != made:
                click.echo(f"lstmparse: {path} is not what the models make: run catalogue", err=True)
                sys.exit(1)
        return
    write_catalogue(models_dir)


@release.command()
@click.argument("results", type=EXISTING_FILE)
@click.option("--source", type=click.Choice(["raw", "tokens"]), default="raw", show_default=True)
@click.option("--measures", default="LAS", show_default=True, help="comma-separated CoNLL 2018 measures")
@click.option("--side-by-side", is_flag=True, help="every measure, a row per treebank and setting")
@clean_errors
def table(results: str, source: str, measures: str, side_by_side: bool) -> None:
    """Print a farm's RESULTS (results.json) as Markdown tables: test (dev) per treebank and setting."""
    from lstmparse.app.release import tables

    records = json.loads(Path(results).read_text(encoding="utf-8"))
    if side_by_side:
        click.echo(tables.side_by_side(records, source))
        return
    for measure in measures.split(","):
        click.echo(f"{measure}, test (dev), from {'raw text' if source == 'raw' else 'gold tokens'}:\n")
        click.echo(tables.table(records, source, measure) + "\n")


def made_pages(models_dir: Path) -> dict[Path, str]:
    """What the models make: the catalogue, and the project's pages beside --models-dir with their tables."""
    from lstmparse.app.release.catalogue import PAGES_WITH_TABLES
    from lstmparse.app.release.catalogue import catalogue as page

    pages = {models_dir / "README.md": page(models_dir)}
    for relative, with_tables in PAGES_WITH_TABLES.items():
        path = models_dir.parent / relative
        if path.is_file():
            pages[path] = with_tables(path.read_text(encoding="utf-8"), models_dir)
    return pages


def write_catalogue(models_dir: Path) -> None:
    from lstmparse.core.model_io import atomic_write

    for path, text in made_pages(models_dir).items():
        atomic_write(path, lambda handle, text=text: handle.write(text.encode("utf-8")))
