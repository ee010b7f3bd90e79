"""A farm's results (``results.json``) as the Markdown tables of the catalogue, ``bench/RESULTS.md`` and the docs.

    lstmparse release table runs/remake/results.json --source raw --side-by-side

Rows are the records ``lstmparse farm`` writes (:mod:`lstmparse.app.farm.results`):
``treebank``, ``setting``, ``seed``, ``dev``/``test`` figures by source and
``cpu_minutes``.  The languages table puts the published figures of Stanza and
UDPipe 2 (``published.toml``, with their UD versions) beside ours and UDPipe 1's.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

SIDE_BY_SIDE = ("Words", "Sentences", "UPOS", "UFeats", "Lemmas", "UAS", "LAS", "MLAS", "BLEX")
PUBLISHED = Path(__file__).with_name("published.toml")


@cache
def published() -> dict:
    """Other toolkits' published raw-text test LAS by treebank, with their names and UD versions."""
    return tomllib.loads(PUBLISHED.read_text(encoding="utf-8"))


def evaluated(records: list[dict]) -> tuple[list[str], dict[tuple[str, str], dict], list[str]]:
    """The settings, the evaluated records by (treebank, setting), and the treebanks with an evaluated record (a
    plan's setting may name some of its treebanks only: the fast pipelines, an English ensemble)."""
    settings = list(dict.fromkeys(r["setting"] for r in records))
    cells = {(r["treebank"], r["setting"]): r for r in records if "test" in r}
    treebanks = [t for t in dict.fromkeys(r["treebank"] for r in records) if any((t, s) in cells for s in settings)]
    return settings, cells, treebanks


def cell_text(record: dict | None, source: str, measure: str) -> str:
    """``test (dev)`` of one measure, or a dash."""
    if record is None or measure not in record["test"].get(source, {}):
        return "—"
    test, dev = record["test"][source][measure], record["dev"].get(source, {}).get(measure)
    return f"{test:.2f}" if dev is None else f"{test:.2f} ({dev:.2f})"


def table(records: list[dict], source: str, measure: str) -> str:
    """Rows: treebanks; columns: settings; test (dev) of ``measure``; the mean training CPU-minutes of a row."""
    treebanks = list(dict.fromkeys(r["treebank"] for r in records))
    settings = list(dict.fromkeys(r["setting"] for r in records))
    cells = {(r["treebank"], r["setting"]): r for r in records if "test" in r}
    lines = [f"| treebank | {' | '.join(settings)} | CPU min per cell |", "|---" * (len(settings) + 2) + "|"]
    for treebank in treebanks:
        row = [cell_text(cells.get((treebank, setting)), source, measure) for setting in settings]
        minutes = [cells[(treebank, s)]["cpu_minutes"] for s in settings if (treebank, s) in cells]
        mean = f"{sum(minutes) / len(minutes):.1f}" if minutes else "—"
        lines.append(f"| {treebank} | {' | '.join(row)} | {mean} |")
    return "\n".join(lines)


def mean_las(records: list[dict], source: str) -> dict[str, float]:
    """The mean test LAS over every evaluated treebank of each setting evaluated on all of them (a setting of
    some treebanks only has none: its mean would not compare with the others')."""
    settings, cells, treebanks = evaluated(records)
    everywhere = [s for s in settings if treebanks and all((t, s) in cells for t in treebanks)]
    return {s: sum(cells[(t, s)]["test"][source]["LAS"] for t in treebanks) / len(treebanks) for s in everywhere}


def side_by_side(records: list[dict], source: str) -> str:
    """A row per treebank and setting: every measure on test and the training CPU-minutes; then the mean LAS."""
    settings, cells, treebanks = evaluated(records)
    lines = [
        f"| treebank | system | {' | '.join(SIDE_BY_SIDE)} | train CPU min |",
        "|---" * (len(SIDE_BY_SIDE) + 3) + "|",
    ]
    for treebank in treebanks:
        for setting in (setting for setting in settings if (treebank, setting) in cells):
            figures = cells[(treebank, setting)]["test"].get(source, {})
            values = [f"{figures[m]:.2f}" if m in figures else "—" for m in SIDE_BY_SIDE]
            minutes = f"{cells[(treebank, setting)]['cpu_minutes']:.1f}"
            lines.append(f"| {treebank} | {setting} | {' | '.join(values)} | {minutes} |")
    if means := mean_las(records, source):
        listed = ", ".join(f"{setting} {las:.2f}" for setting, las in means.items())
        lines.append(f"\nMean LAS over these {len(treebanks)} treebanks: {listed}.")
    return "\n".join(lines)


OURS = ("pipeline", "pipeline_fast", "pipeline_ensemble")  # models/remake.toml's settings that make shipped pipelines


def languages_table(rows: list[dict], ours: tuple[str, ...] = OURS, reference: str = "udpipe1") -> str:
    """Raw-text test LAS per treebank and shipped pipeline: ours, UDPipe 1 (same data), the lead, the published
    figures."""
    others = published()
    names = " | ".join(f"{entry['name']} ({entry['ud']}, published)" for entry in others.values())
    lines = [f"| treebank | model | LAS | UDPipe 1 | lead | {names} |", "|---" * (5 + len(others)) + "|"]
    cells = {(r["treebank"], r["setting"]): r for r in rows if "test" in r}
    for treebank in dict.fromkeys(r["treebank"] for r in rows):
        theirs = cells.get((treebank, reference))
        base = theirs["test"]["raw"]["LAS"] if theirs else None
        quoted = " | ".join(
            f"{entry['las'][treebank]:.2f}" if treebank in entry["las"] else "—" for entry in others.values()
        )
        for mine in [cells[(treebank, setting)] for setting in ours if (treebank, setting) in cells]:
            las = mine["test"]["raw"]["LAS"]
            lead = f"{las - base:+.2f}" if base is not None else "—"
            model = mine.get("model", treebank)
            lines.append(
                f"| {treebank} | `{model}` | {las:.2f} | {'—' if base is None else f'{base:.2f}'} | {lead} | {quoted} |"
            )
    return "\n".join(lines)


def languages_summary(rows: list[dict], ours: tuple[str, ...] = OURS, reference: str = "udpipe1") -> str:
    """The languages table in a sentence: the mean LAS of each treebank's most accurate pipeline against UDPipe 1's
    and the published figures' over the same treebanks, and on how many it leads."""
    cells = {(r["treebank"], r["setting"]): r["test"]["raw"]["LAS"] for r in rows if "test" in r}
    best = {
        treebank: max(cells[(treebank, setting)] for setting in ours if (treebank, setting) in cells)
        for treebank in dict.fromkeys(r["treebank"] for r in rows)
        if any((treebank, setting) in cells for setting in ours) and (treebank, reference) in cells
    }
    if not best:
        return ""
    mean, base = _mean(best.values()), _mean(cells[(t, reference)] for t in best)
    ahead_by_two = sum(las >= cells[(t, reference)] + 2 for t, las in best.items())
    text = (
        f"Over {'this treebank' if len(best) == 1 else f'these {len(best)} treebanks'} (each one's most accurate "
        f"pipeline) the mean LAS is {mean:.2f}, "
        f"against UDPipe 1's {base:.2f} ({mean - base:+.2f}); {ahead_by_two} of {len(best)} lead UDPipe 1 by 2 or more"
    )
    for entry in published().values():
        quoted = {t: entry["las"][t] for t in best if t in entry["las"]}
        if quoted:
            ahead = sum(best[t] > las for t, las in quoted.items())
            text += (
                f"; {entry['name']}'s published mean over {'them' if len(quoted) == len(best) else len(quoted)}"
                f" is {_mean(quoted.values()):.2f}, and {ahead} of {len(quoted)}"
                f" {'is' if ahead == 1 else 'are'} ahead of its figure"
            )
    return text + "."


def languages_block(rows: list[dict]) -> str:
    """The languages table and its summary, as the catalogue and the README show them."""
    return f"{languages_table(rows)}\n\n{languages_summary(rows)}"


def _mean(values) -> float:  # noqa: ANN001 - an iterable of numbers
    values = list(values)
    return sum(values) / len(values)
