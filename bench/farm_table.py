"""A farm's results as one table: a row per treebank, a column per setting (bench/RESULTS.md, models/README.md).

    python bench/farm_table.py bench/results/table3.json --source tokens --measure LAS
    python bench/farm_table.py bench/results/languages.json --source raw --measures Words,UPOS,LAS --by setting

Each cell is the test figure with the dev figure in parentheses; a last column gives the
training CPU-minutes of each setting (mean over the row's cells).  Reads the JSON that
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path)
    parser.add_argument("--source", default="tokens", choices=["raw", "tokens"])
    parser.add_argument("--measures", default="LAS", help="comma-separated CoNLL 2018 measures, a table each")
    args = parser.parse_args()
    records = json.loads(args.results.read_text(encoding="utf-8"))
    for measure in args.measures.split(","):
        print(f"{measure}, test (dev), from {'raw text' if args.source == 'raw' else 'gold tokens'}:\n")
        print(table(records, args.source, measure) + "\n")


if __name__ == "__main__":
    main()
