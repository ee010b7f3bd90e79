"""A farm's results as one table: a row per treebank, a column per setting (bench/RESULTS.md, models/README.md).

    python bench/farm_table.py bench/results/table3.json --source tokens --measure LAS
    python bench/farm_table.py bench/results/languages.json --source raw --side-by-side

Each cell is the test figure with the dev figure in parentheses; a last column gives the
training CPU-minutes of each setting (mean over the row's cells).  ``--side-by-side``
instead gives a row per treebank and setting with every measure (test only), the
training CPU-minutes, Stanza 1.5.1's published raw-text LAS where the issue quotes it,
and per setting the mean LAS over the treebanks every setting has.  Reads the JSON that
``lstmparse farm`` writes (``WORK_DIR/results.json``, committed under ``bench/results/``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def table(records: list[dict], source: str, measure: str) -> str:
    """Rows: treebanks in the records' order; columns: settings in their order; test (dev) of ``measure``."""
    treebanks = list(dict.fromkeys(r["treebank"] for r in records))
    settings = list(dict.fromkeys(r["setting"] for r in records))
    cells = {(r["treebank"], r["setting"]): r for r in records}
    lines = [
        f"| treebank | {' | '.join(settings)} | CPU min per cell |",
        "|---" * (len(settings) + 2) + "|",
    ]
    for treebank in treebanks:
        row, minutes = [], []
        for setting in settings:
            record = cells.get((treebank, setting))
            test = record["test"].get(source, {}).get(measure) if record else None
            dev = record["dev"].get(source, {}).get(measure) if record else None
            row.append("—" if test is None else f"{test:.2f} ({dev:.2f})" if dev is not None else f"{test:.2f}")
            if record:
                minutes.append(record["cpu_minutes"])
        mean = f"{sum(minutes) / len(minutes):.1f}" if minutes else "—"
        lines.append(f"| {treebank} | {' | '.join(row)} | {mean} |")
    return "\n".join(lines)


SIDE_BY_SIDE = ("Words", "Sentences", "UPOS", "UFeats", "Lemmas", "UAS", "LAS", "MLAS", "BLEX")
# Stanza 1.5.1, UD 2.12 test sets from raw text, its published figures (pretrained vectors and character LMs)
STANZA_LAS = {
    "hu_szeged": 78.61, "fr_sequoia": 91.57, "el_gdt": 88.87, "vi_vtb": 51.49, "ug_udt": 63.42, "mt_mudt": 78.22,
    "cy_ccg": 80.25, "wo_wtb": 77.32, "af_afribooms": 86.14, "cop_scriptorium": 64.43, "ta_ttb": 50.97,
}  # fmt: skip


def evaluated(records: list[dict]) -> tuple[list[str], dict[tuple[str, str], dict], list[str]]:
    """The settings, the evaluated records by (treebank, setting), and the treebanks every setting was evaluated on."""
    settings = list(dict.fromkeys(r["setting"] for r in records))
    cells = {(r["treebank"], r["setting"]): r for r in records if "test" in r}
    treebanks = [t for t in dict.fromkeys(r["treebank"] for r in records) if all((t, s) in cells for s in settings)]
    return settings, cells, treebanks


def mean_las(records: list[dict], source: str) -> dict[str, float]:
    """Each setting's mean test LAS over the treebanks every setting was evaluated on (none: no entry)."""
    settings, cells, treebanks = evaluated(records)
    if not treebanks:
        return {}
    return {s: sum(cells[(t, s)]["test"][source]["LAS"] for t in treebanks) / len(treebanks) for s in settings}


def side_by_side(records: list[dict], source: str) -> str:
    """A row per treebank and setting: every measure on test, CPU minutes, Stanza's LAS; then mean LAS per setting."""
    settings, cells, treebanks = evaluated(records)
    lines = [
        f"| treebank | system | {' | '.join(SIDE_BY_SIDE)} | train CPU min | Stanza LAS |",
        "|---" * (len(SIDE_BY_SIDE) + 4) + "|",
    ]
    for treebank in treebanks:
        for setting in settings:
            figures = cells[(treebank, setting)]["test"].get(source, {})
            values = [f"{figures[m]:.2f}" if m in figures else "—" for m in SIDE_BY_SIDE]
            stanza = f"{STANZA_LAS[treebank]:.2f}" if setting == settings[0] and treebank in STANZA_LAS else ""
            minutes = f"{cells[(treebank, setting)]['cpu_minutes']:.1f}"
            lines.append(f"| {treebank} | {setting} | {' | '.join(values)} | {minutes} | {stanza} |")
    if treebanks:
        means = ", ".join(f"{setting} {las:.2f}" for setting, las in mean_las(records, source).items())
        lines.append(f"\nMean LAS over these {len(treebanks)} treebanks: {means}.")
    return "\n".join(lines)


def compact(records: list[dict], source: str) -> str:
    """A row per treebank: each setting's LAS on test, the first setting's lead over the second, Stanza's LAS."""
    settings, cells, treebanks = evaluated(records)
    settings = settings[:2]
    lines = [f"| treebank | {' | '.join(settings)} | difference | Stanza 1.5.1 (published) |", "|---|---|---|---|---|"]
    for treebank in treebanks:
        ours, theirs = (cells[(treebank, s)]["test"][source]["LAS"] for s in settings)
        stanza = f"{STANZA_LAS[treebank]:.2f}" if treebank in STANZA_LAS else "—"
        lines.append(f"| {treebank} | {ours:.2f} | {theirs:.2f} | {ours - theirs:+.2f} | {stanza} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path)
    parser.add_argument("--source", default="tokens", choices=["raw", "tokens"])
    parser.add_argument("--measures", default="LAS", help="comma-separated CoNLL 2018 measures, a table each")
    parser.add_argument("--side-by-side", action="store_true", help="every measure, a row per treebank and setting")
    parser.add_argument("--compact", action="store_true", help="LAS of two settings per treebank (the README's)")
    args = parser.parse_args()
    records = json.loads(args.results.read_text(encoding="utf-8"))
    if args.side_by_side or args.compact:
        print((side_by_side if args.side_by_side else compact)(records, args.source))
        return
    for measure in args.measures.split(","):
        print(f"{measure}, test (dev), from {'raw text' if args.source == 'raw' else 'gold tokens'}:\n")
        print(table(records, args.source, measure) + "\n")


if __name__ == "__main__":
    main()
