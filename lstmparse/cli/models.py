"""``lstmparse models``: the models reachable by name, with their language, size and task; one model in full."""

from __future__ import annotations

import json

import click

from lstmparse.cli.common import clean_errors

TABLE_WIDTH = 100  # the table fits a terminal of this many columns; details with NAME or --json


@click.command("models")
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True, help="one JSON object per model instead of a table")
@click.option("--package", metavar="MODEL", help="write MODEL's archive (with its files' SHA-256) to --output")
@click.option("--output", type=click.Path(dir_okay=False), help="with --package: the archive file (.tar.gz)")
@click.option(
    "--install",
    "install_source",
    metavar="SOURCE",
    help="install an archive from a path, an http(s) URL, or a --catalogue entry by name or language code",
)
@click.option("--sha256", help="with --install: the archive's expected SHA-256 (a catalogue entry gives its own)")
@click.option(
    "--catalogue", help="with --install NAME: the catalogue (JSON file or URL) [default: $LSTMPARSE_CATALOGUE]"
)
@click.option("--force", is_flag=True, help="with --install: replace an installed model of the same name")
@click.option(
    "--catalogue-of",
    type=click.Path(exists=True, file_okay=False),
    help="write DIR/catalogue.json listing the archives in DIR, to serve with them",
)
@clean_errors
def models(name, as_json, package, output, install_source, sha256, catalogue, force, catalogue_of) -> None:
    """List the models that --model and lstmparse.load() find by name; with NAME, everything about one.

    They are looked up in LSTMPARSE_MODELS (directories separated by ':'), the
    installed models (~/.local/share/lstmparse/models), the checkout's models/
    and the installed copy, in that order; a language code (--model fr) finds that
    language's pipeline. A model trained on data licensed for non-commercial use
    only is marked NC. --package, --install and --catalogue-of move models between
    machines: archives are checked (SHA-256 of the archive and of every file, no
    links, nothing outside the model's directory) before anything is written.
    """
    from lstmparse.app.catalog import available_models, model_info, resolve_model, search_path

    if package or install_source or catalogue_of:
        _move_models(package, output, install_source, sha256, catalogue, force, catalogue_of)
        return

    found = [model_info(resolve_model(name))] if name else available_models()
    if as_json:
        for info in found:
            click.echo(json.dumps(_record(info), ensure_ascii=False))
        return
    if name:
        for key, value in _record(found[0]).items():
            if key != "card" and value not in ("", None):
                click.echo(f"{key:<12} {value}")
        for key, value in found[0].card.items():
            if key not in ("language", "task", "figures", "licence"):
                click.echo(
                    f"{key:<12} {json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value}"
                )
        return
    click.echo(_table(found))
    click.echo(f"searched: {', '.join(str(d) for d in search_path())}; details: lstmparse models NAME", err=True)


def _record(info) -> dict:
    return {
        **info.__dict__,
        "path": str(info.path),
        "size_mb": round(info.size_mb, 1),
        "non_commercial": info.non_commercial,
    }


def _table(found) -> str:
    """Name, language, size, use and task, the task cut to fit :data:`TABLE_WIDTH` columns."""
    from lstmparse.app.catalog import language_roles

    roles = language_roles(found)
    rows = [("name", "lang", "MB", "use", "task")]
    for i in found:
        use = ", ".join(part for part in ("NC" if i.non_commercial else "", roles.get(i.name, "")) if part)
        rows.append((i.name, i.language, f"{i.size_mb:.1f}", use, i.task))
    widths = [max(len(row[k]) for row in rows) for k in range(4)]
    room = max(TABLE_WIDTH - sum(widths) - 2 * len(widths), 20)
    lines = []
    for row in rows:
        task = row[4] if len(row[4]) <= room else row[4][: room - 1] + "…"
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row[:4], widths, strict=True)) + "  " + task)
    return "\n".join(line.rstrip() for line in lines)


def _move_models(package, output, install_source, sha256, catalogue, force, catalogue_of) -> None:  # noqa: PLR0913
    """--package, --install or --catalogue-of: one at a time."""
    from pathlib import Path

    from lstmparse.app import install

    if sum(bool(x) for x in (package, install_source, catalogue_of)) != 1:
        raise click.UsageError("--package, --install and --catalogue-of: one at a time")
    if package:
        if not output:
            raise click.UsageError("--package needs --output FILE")
        digest = install.package(package, Path(output))
        click.echo(digest)
        click.echo(f"lstmparse: {package} packed into {output} (SHA-256 on stdout)", err=True)
    elif install_source:
        target = install.install(install_source, sha256, catalogue, force)
        click.echo(f"lstmparse: installed {target.name} into {target.parent}; --model {target.name} finds it", err=True)
    else:
        written = install.write_catalogue(Path(catalogue_of))
        click.echo(f"lstmparse: wrote {written}", err=True)
