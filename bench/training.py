"""Training throughput of the stack-LSTM parser (``make bench-training``): sentences per CPU-second.

    python bench/training.py --treebank ../shared/data/ud/en_ewt [--json bench/training.json]

Two settings on EWT train, each row its own process pinned to one core
(``taskset``, ``OMP_NUM_THREADS=1``), so that peak RSS is that row's alone:

* ``wp``: words + UPOS, arc-swap, static oracle (the C++ lstm-parser's setting);
* ``en_ewt``: words + characters, one context bi-LSTM layer, arc-hybrid with the
  dynamic oracle and exploration from the first epoch, dropout 0.2 (``models/en_ewt``).

For each batching (``autobatch``: one graph per sentence, summed, DyNet's
autobatching, the old way; ``lockstep``: the minibatch parsed together), each batch
size and each batch order (random sentences, or ``--length-batches``), one epoch
over the first ``--sentences`` training sentences is timed in CPU seconds (process
time, so another process on the machine costs this one little).  The parser is
initialized and the batches are drawn the same way in every row.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = {
    "wp": {"features": ["words", "pos"], "system": "arc-swap"},
    "en_ewt": {
        "features": ["words", "chars"],
        "system": "arc-hybrid",
        "oracle": "dynamic",
        "explore_after": 0,
        "dropout": 0.2,
        "context_layers": 1,
    },
}
DEFAULT_ROWS = (
    "wp:autobatch:1,wp:autobatch:8,wp:autobatch:16,wp:autobatch:32,"
    "wp:lockstep:1,wp:lockstep:8,wp:lockstep:16,wp:lockstep:32,wp:lockstep:64,"
    "wp:lockstep:16:length,wp:lockstep:32:length,wp:lockstep:64:length,"
    "en_ewt:autobatch:1,en_ewt:autobatch:8,en_ewt:autobatch:16,"
    "en_ewt:lockstep:1,en_ewt:lockstep:8,en_ewt:lockstep:16,en_ewt:lockstep:32,en_ewt:lockstep:64,"
    "en_ewt:lockstep:16:length,en_ewt:lockstep:32:length,en_ewt:lockstep:64:length"
)
# DyNet's initial memory pool.  Lock-step graphs grow the pool as a batch needs, so peak RSS shows what
# the row needs; DyNet's autobatching cannot grow it, so those rows preallocate training's default 512 MB.
MEMORY_MB = {"lockstep": 128, "autobatch": 512}


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--treebank", default=str(ROOT.parent / "shared" / "data" / "ud" / "en_ewt"))
    options.add_argument("--sentences", type=int, default=1000, help="training sentences timed per row")
    options.add_argument("--rows", default=DEFAULT_ROWS, help="setting:batching:batch size[:length], comma-separated")
    options.add_argument("--core", type=int, default=0, help="the core every row is pinned to")
    options.add_argument("--json", metavar="PATH", help="also write the figures as JSON to PATH")
    options.add_argument("--worker", help=argparse.SUPPRESS)
    args = options.parse_args()
    if args.worker:
        print(json.dumps(measure(args.worker, args.treebank, args.sentences)))
        return
    rows = []
    for row in args.rows.split(","):
        rows.append(run_row(args, row))
        print(markdown_row(rows[-1]), file=sys.stderr, flush=True)
    print(markdown(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


def run_row(args, row: str) -> dict:
    command = ["taskset", "-c", str(args.core), sys.executable, __file__, "--worker", row]
    command += ["--treebank", args.treebank, "--sentences", str(args.sentences)]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if result.returncode != 0:
        raise SystemExit(f"{row} failed:\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def measure(row: str, treebank: str, count: int) -> dict:
    """One epoch over the first ``count`` training sentences with the row's settings, in this process."""
    setting, batching, size, *order = row.split(":")
    from lstmparse.core import backend

    backend.configure(seed=1, memory_mb=MEMORY_MB[batching], weight_decay=1e-6)
    from lstmparse.core.training import Updates, run_epoch, seed_epoch, shuffled_batches
    from lstmparse.stacklstm.options import StackLSTMDimensions, StackLSTMOptions
    from lstmparse.stacklstm.training import (
        batch_actions,
        batch_loss_function,
        epoch_oracle,
        new_trainer,
        prepare,
        sentence_length,
    )

    values = dict(SETTINGS[setting])
    dims = StackLSTMDimensions(context_layers=values.pop("context_layers", 0))
    options = StackLSTMOptions(
        train=str(Path(treebank) / "train.conllu"),
        model_dir="",
        batch_size=int(size),
        batching=batching,
        length_batches=bool(order),
        dims=dims,
        **values,
    )
    seed_epoch(1, -1)
    parser, examples, _, _ = prepare(options, open(os.devnull, "w"))
    examples = examples[:count]
    baseline_mib = _rss_mib()  # the treebank and its oracle examples, before any training graph
    trainer = new_trainer(parser.model, options)
    seed_epoch(1, 0)
    oracle = epoch_oracle(parser.system, options, 0)
    batches = shuffled_batches(examples, options.batch_size, sentence_length if order else None)
    start = time.process_time()
    run = run_epoch(
        batch_loss_function(parser, oracle, options, 0),
        trainer,
        batches,
        None,
        row,
        Updates(units=batch_actions, autobatching=batching != "lockstep"),
    )
    seconds = time.process_time() - start
    return {
        "setting": setting,
        "batching": batching,
        "batch_size": int(size),
        "length_batches": bool(order),
        "sentences": run.examples,
        "sentences_per_cpu_second": round(run.examples / seconds, 1),
        "loss_per_action": round(run.loss / max(run.units, 1), 4),
        "peak_rss_mib": _rss_mib(),
        "rss_before_training_mib": baseline_mib,
    }


def _rss_mib() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def markdown_row(row: dict) -> str:
    order = "length" if row["length_batches"] else "random"
    return (
        f"| {row['setting']} | {row['batching']} | {row['batch_size']} | {order} | "
        f"{row['sentences_per_cpu_second']} | {row['peak_rss_mib']} ({row['rss_before_training_mib']} before) |"
    )


def markdown(rows: list[dict]) -> str:
    header = [
        "| setting | batching | batch size | batches | sentences per CPU-second | peak RSS MiB (before training) |",
        "|---|---|---|---|---|---|",
    ]
    return "\n".join(header + [markdown_row(row) for row in rows])


if __name__ == "__main__":
    main()
