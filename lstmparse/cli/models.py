"""``lstmparse models``: the models reachable by name, with their task, language, size and headline figures."""

from __future__ import annotations

import json

import click

from lstmparse.cli.common import clean_errors


@click.command("models")
@click.option("--json", "as_json", is_flag=True, help="one JSON object per model instead of a table")
@clean_errors
def models(as_json: bool) -> None:
    """List the models that --model and lstmparse.load() find by name.

    They are looked up in LSTMPARSE_MODELS (directories separated by ':'), the
    checkout's models/ and the installed copy, in that order.
    """
    from lstmparse.app.catalog import available_models, search_path

    found = available_models()
    if as_json:
        for info in found:
            record = {**info.__dict__, "path": str(info.path), "size_mb": round(info.size_mb, 1)}
            click.echo(json.dumps(record, ensure_ascii=False))
        return
    rows = [("name", "task", "lang", "MB", "figures")]
    rows += [(i.name, i.task, i.language, f"{i.size_mb:.1f}", i.figures) for i in found]
    widths = [max(len(row[k]) for row in rows) for k in range(4)]
    for row in rows:
        click.echo("  ".join(cell.ljust(width) for cell, width in zip(row[:4], widths, strict=True)) + "  " + row[4])
    click.echo(f"searched: {', '.join(str(d) for d in search_path())}", err=True)
