"""Taggers with and without the encoder, same budget and seed: dev figures side by side (docs/encoder.md).

    python bench/encoder_taggers.py --work-dir runs/encoder-taggers hu_szeged ta_ttb [...] [--spec e5:6-9]
        [--minutes 8] [--seed 1] [--core 1]

For each treebank of ``../shared/data/ud``: ``lstmparse train --arch tagger --treebank T
--epochs 200 --max-minutes M --seed S``, once without and once with ``--encoder SPEC``
(the encoder's pass over the training and dev sentences comes before the budget's
minutes), one thread, pinned to ``--core`` where given.  A tagger already trained in the
work directory is not trained again, so an interrupted run continues.  Prints a Markdown
table of the best epoch's dev UPOS, FEATS, lemmas and all tags (gold tokens).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "ud"
MEASURES = (("dev_upos", "UPOS"), ("dev_feats", "FEATS"), ("dev_lemma", "Lemmas"), ("dev_all_tags", "AllTags"))


def train(treebank: str, directory: Path, args: argparse.Namespace, spec: str | None) -> None:
    """One tagger, unless the directory holds a finished one."""
    if (directory / "card.json").is_file():
        return
    command = [sys.executable, "-m", "lstmparse", "train", "--arch", "tagger", "--treebank", str(DATA / treebank)]
    command += ["--model-dir", str(directory), "--overwrite", "--epochs", "200", "--max-minutes", str(args.minutes)]
    command += ["--seed", str(args.seed), *(["--encoder", spec] if spec else [])]
    if args.core is not None:
        command = ["taskset", "-c", str(args.core), *command]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    with open(directory.with_suffix(".log"), "w", encoding="utf-8") as log:
        subprocess.run(command, stderr=log, stdout=log, env=env, cwd=ROOT, check=True)


def best_epoch(directory: Path) -> dict:
    record = json.loads((directory / "config.json").read_text(encoding="utf-8"))["training"]
    return next(entry for entry in record["epochs"] if entry["epoch"] == record["best_epoch"])


def change(without: float | None, with_spec: float | None) -> str:
    """``a → b``, or ``(none)`` for a column the treebank leaves empty (Maltese's lemmas are not scored at all,
    its FEATS are all ``_``, right everywhere)."""
    if without is None or with_spec is None or without == with_spec == 100.0:
        return "(none)"
    return f"{without:.2f} → {with_spec:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("treebanks", nargs="+")
    parser.add_argument("--work-dir", type=Path, required=True)
    parser.add_argument("--spec", default="e5:6-9", help="the encoder (and its layers)")
    parser.add_argument("--minutes", type=float, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--core", type=int, help="the CPU core to pin the trainings to")
    args = parser.parse_args()
    args.work_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for treebank in args.treebanks:
        runs = {}
        for label, spec in (("without", None), (args.spec, args.spec)):
            directory = args.work_dir / f"{treebank}-s{args.seed}-{(spec or 'none').replace(':', '_')}"
            train(treebank, directory, args, spec)
            runs[label] = best_epoch(directory)
        cells = [change(runs["without"].get(key), runs[args.spec].get(key)) for key, _ in MEASURES]
        rows.append(
            f"| {treebank} | "
            + " | ".join(cells)
            + f" | {runs[args.spec]['dev_upos'] - runs['without']['dev_upos']:+.2f} |"
        )
        print(rows[-1], file=sys.stderr)
    print(f"dev, gold tokens, seed {args.seed}, {args.minutes:g} minutes each: without → with {args.spec}\n")
    print("| treebank | " + " | ".join(name for _, name in MEASURES) + " | UPOS gain |")
    print("|---" * (len(MEASURES) + 2) + "|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
