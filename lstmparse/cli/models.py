"""``lstmparse models``: the models reachable by name, with their language, size and task; one model in full."""

from __future__ import annotations

import json

import click

from lstmparse.cli.common import clean_errors

TABLE_WIDTH = 100  # the table fits a terminal of this many columns; details with NAME or --json


@click.command("models")
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True, help="one JSON object per model instead of a table")
@clean_errors
def models(name: str | None, as_json: bool) -> None:
    """List the models that --model and lstmparse.load() find by name; with NAME, everything about one.

    They are looked up in LSTMPARSE_MODELS (directories separated by ':'), the
    checkout's models/ and the installed copy, in that order. A model trained on
    data licensed for non-commercial use only is marked NC.
    """
    from lstmparse.app.catalog import available_models, model_info, resolve_model, search_path

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
    rows = [("name", "lang", "MB", "use", "task")]
    rows += [(i.name, i.language, f"{i.size_mb:.1f}", "NC" if i.non_commercial else "", i.task) for i in found]
    widths = [max(len(row[k]) for row in rows) for k in range(4)]
    room = max(TABLE_WIDTH - sum(widths) - 2 * len(widths), 20)
    lines = []
    for row in rows:
        task = row[4] if len(row[4]) <= room else row[4][: room - 1] + "…"
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row[:4], widths, strict=True)) + "  " + task)
    return "\n".join(line.rstrip() for line in lines)
