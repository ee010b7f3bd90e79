"""Train every transition system / oracle on one treebank and tabulate test scores.

    python bench/transition_systems.py --treebank ../shared/data/ud/hu_szeged --epochs 20 --jobs 2

Each row is trained with the same features and number of epochs, selected on dev,
and evaluated on test: UAS, LAS and the recall of non-projective gold arcs.  Rows
run as separate ``lstmparse`` processes, ``--jobs`` at a time, each on one core.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROWS = {
    "arc-standard static": ["--system", "arc-standard"],
    "arc-swap static": ["--system", "arc-swap"],
    "arc-hybrid static": ["--system", "arc-hybrid"],
    "arc-hybrid dynamic alpha=1": ["--system", "arc-hybrid", "--oracle", "dynamic", "--alpha", "1"],
    "arc-hybrid dynamic alpha=0.75": ["--system", "arc-hybrid", "--oracle", "dynamic", "--alpha", "0.75"],
    "arc-standard static + pseudo-projective": ["--system", "arc-standard", "--pseudo-projective"],
    "arc-eager static": ["--system", "arc-eager"],
    "arc-eager dynamic alpha=0.75": ["--system", "arc-eager", "--oracle", "dynamic", "--alpha", "0.75"],
}


def lstmparse(*args: str, core: int, log: Path) -> None:
    command = ["taskset", "-c", str(core), sys.executable, "-m", "lstmparse", *args]
    with open(log, "a", encoding="utf-8") as handle:
        subprocess.run(command, check=True, stdout=handle, stderr=handle, env=dict(os.environ, OMP_NUM_THREADS="1"))


def run_row(name: str, flags: list[str], args: argparse.Namespace, core: int) -> dict:
    slug = name.replace(" ", "_").replace("=", "").replace("+", "pp")
    model, log, parsed = args.out / slug, args.out / f"{slug}.log", args.out / f"{slug}.test.conllu"
    if not (model / "config.json").exists():
        lstmparse(
            "train",
            "--train",
            str(args.treebank / "train.conllu"),
            "--dev",
            str(args.treebank / "dev.conllu"),
            "--model-dir",
            str(model),
            "--features",
            args.features,
            "--epochs",
            str(args.epochs),
            "--seed",
            str(args.seed),
            *flags,
            core=core,
            log=log,
        )
    lstmparse(
        "parse",
        "--model",
        str(model),
        "--input",
        str(args.treebank / "test.conllu"),
        "--output",
        str(parsed),
        core=core,
        log=log,
    )
    result = subprocess.run(
        [sys.executable, "-m", "lstmparse", "evaluate", "--json", str(args.treebank / "test.conllu"), str(parsed)],
        check=True,
        capture_output=True,
        text=True,
    )
    scores = json.loads(result.stdout)
    config = json.loads((model / "config.json").read_text())
    epochs = config["training"]["epochs"]
    scores.update(
        name=name,
        seconds_per_epoch=sum(e["train_seconds"] for e in epochs) / len(epochs),
        best_epoch=config["training"]["best_epoch"],
        epochs=len(epochs),
    )
    return scores


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--treebank", type=Path, required=True, help="folder with train/dev/test.conllu")
    options.add_argument("--epochs", type=int, default=10)
    options.add_argument("--features", default="words,pos,chars")
    options.add_argument("--seed", type=int, default=1)
    options.add_argument("--jobs", type=int, default=2)
    options.add_argument("--out", type=Path, default=Path("runs/systems"))
    options.add_argument("--rows", default=",".join(ROWS), help="comma-separated row names")
    args = options.parse_args()
    args.out = args.out / args.treebank.name
    args.out.mkdir(parents=True, exist_ok=True)
    names = [n for n in args.rows.split(",") if n]
    free_cores: queue.Queue[int] = queue.Queue()
    for core in range(args.jobs):
        free_cores.put(core)

    def on_free_core(name: str) -> dict:
        core = free_cores.get()
        try:
            return run_row(name, ROWS[name], args, core)
        finally:
            free_cores.put(core)

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(on_free_core, names))
    (args.out / "results.json").write_text(json.dumps(results, indent=2))
    print(f"{args.treebank.name} test, features {args.features}, {args.epochs} epochs, seed {args.seed}\n")
    print("| system | UAS | LAS | non-projective recall | s/epoch | best epoch |")
    print("|---|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['name']} | {r['UAS']:.2f} | {r['LAS']:.2f} | {r['non_projective_recall']:.2f} "
            f"({r['non_projective_arcs']}) | {r['seconds_per_epoch']:.0f} | {r['best_epoch']} |"
        )


if __name__ == "__main__":
    main()
