"""Compare training runs at the same epochs and the same time: the best dev score each reached.

    python bench/learning_curves.py MODEL_DIR... [--epochs 10,50] [--minutes 2,8]

Reads each run's training record (its last checkpoint's ``config.json``: every epoch's training and dev
seconds and dev score; a parser's LAS, a tagger's UPOS) and prints, per run, the best dev
score within the first N epochs and within M minutes of training and dev passes, so
settings (batch sizes, learning rates) are compared on equal epochs and on equal time.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

SCORES = ("dev_las", "dev_upos", "dev_f1")


def training_record(model_dir: Path) -> dict:
    """The whole run's record: the last checkpoint's (the model directory's stops at the best epoch)."""
    records = [
        json.loads((directory / "config.json").read_text(encoding="utf-8"))["training"]
        for directory in (model_dir / "checkpoint", model_dir)
        if (directory / "config.json").is_file()
    ]
    return max(records, key=lambda record: len(record["epochs"]))


def score_key(epochs: list[dict]) -> str:
    return next(key for key in SCORES if any(key in epoch for epoch in epochs))


def best_within(epochs: list[dict], key: str, epoch_limit: int | None = None, minute_limit: float | None = None):
    """The best dev score of the epochs that end within the limits (None if none does)."""
    best, elapsed = None, 0.0
    for number, epoch in enumerate(epochs, start=1):
        elapsed += epoch.get("train_seconds", 0.0) + epoch.get("dev_seconds", 0.0)
        past_epochs = epoch_limit is not None and number > epoch_limit
        if past_epochs or (minute_limit is not None and elapsed > 60 * minute_limit):
            break
        if key in epoch and (best is None or epoch[key] > best):
            best = epoch[key]
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", type=Path)
    parser.add_argument("--epochs", default="10,50", help="epoch limits, comma-separated")
    parser.add_argument("--minutes", default="2,8", help="minute limits (training and dev passes), comma-separated")
    args = parser.parse_args()
    epoch_limits = [int(n) for n in args.epochs.split(",")]
    minute_limits = [float(m) for m in args.minutes.split(",")]
    header = ["run", "batch", "epochs", "minutes"]
    header += [f"best <= {n} ep" for n in epoch_limits] + [f"best <= {m:g} min" for m in minute_limits]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for model_dir in args.models:
        record = training_record(model_dir)
        epochs = record["epochs"]
        key = score_key(epochs)
        minutes = sum(e.get("train_seconds", 0.0) + e.get("dev_seconds", 0.0) for e in epochs) / 60
        cells = [model_dir.name, str(record.get("batch_size")), str(len(epochs)), f"{minutes:.1f}"]
        for limit in epoch_limits:
            cells.append(_cell(best_within(epochs, key, epoch_limit=limit)))
        for limit in minute_limits:
            cells.append(_cell(best_within(epochs, key, minute_limit=limit)))
        print("| " + " | ".join(cells) + " |")


def _cell(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


if __name__ == "__main__":
    main()
