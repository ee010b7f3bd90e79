"""The speed benchmark suite (``make bench``): parsing modes, training batch sizes, cost per length.

    python bench/suite.py --model models/en_ewt_upos --treebank ../shared/data/ud/en_ewt [--json results.json]

Every measurement runs in its own process, pinned with ``taskset`` (one core; two
for ``--jobs 2``), so that peak RSS and model load time are those of that mode
alone.  Rows:

* parsing EWT test with greedy decoding one sentence per graph (``--batch-size 1``),
  greedy in lock-step batches of 32, 64 and the default (``PARSE_BATCH_SIZE``), ``--jobs 2``,
  beam 4 and beam 8: sentences/s, words/s, model load time, peak RSS, and the mode's UAS/LAS
  on EWT dev (``--repeats N`` interleaves N rounds of the modes and reports medians;
  ``--modes`` also offers beam8x32 and beam8x64: beam 8 in smaller batches);
* training: sentences per CPU-second for each lock-step minibatch size (one epoch over
  the first ``--train-sentences`` training sentences, words+pos features as the C++
  reference; ``bench/training.py`` has the full table);
* cost curve: greedy parsing time per token, one sentence at a time, for synthetic
  sentences of 10 to 200 tokens (EWT words in random order), which stays flat for a
  linear-time parser.

On a shared machine, run it twice and compare; figures drift between runs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import runpy
import statistics
import subprocess
import sys
import time
from pathlib import Path

from lstmparse.core.batching import PARSE_BATCH_SIZE

ROOT = Path(__file__).resolve().parent.parent
PARSE_MODES = ("greedy", "batched32", "batched64", "batched", "jobs2", "beam4", "beam8")
MODE_SETTINGS = {  # (beam, batch size: parses advanced together); the last two are not run by default
    "greedy": (1, 1),
    "batched32": (1, 32),
    "batched64": (1, 64),
    "batched": (1, PARSE_BATCH_SIZE),
    "jobs2": (1, PARSE_BATCH_SIZE),
    "beam4": (4, PARSE_BATCH_SIZE),
    "beam8": (8, PARSE_BATCH_SIZE),
    "beam8x32": (8, 32),
    "beam8x64": (8, 64),
}
LENGTHS = (10, 25, 50, 100, 200)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--model", default=str(ROOT / "models" / "en_ewt_upos"))
    options.add_argument("--treebank", default=str(ROOT.parent / "shared" / "data" / "ud" / "en_ewt"))
    options.add_argument("--batch-sizes", default="1,2,4,8,16,32")
    options.add_argument("--train-sentences", type=int, default=1000)
    options.add_argument("--json", metavar="PATH", help="also write the figures as JSON to PATH")
    options.add_argument("--repeats", type=int, default=1, help="interleaved rounds of the parsing modes (medians)")
    options.add_argument("--modes", default=",".join(PARSE_MODES), help="parsing modes to run")
    options.add_argument("--skip-training", action="store_true", help="parsing rows only")
    options.add_argument("--core", type=int, choices=(0, 1), default=0, help="the core every row is pinned to")
    options.add_argument("--worker", help=argparse.SUPPRESS)
    options.add_argument("--argument", help=argparse.SUPPRESS)
    args = options.parse_args()
    if args.worker:
        print(json.dumps(WORKERS[args.worker](args)))
        return
    results = {"machine": machine(), "model": args.model, "parsing": [], "training": [], "lengths": []}
    modes = args.modes.split(",")
    if unknown := [mode for mode in modes if mode not in MODE_SETTINGS]:
        options.error(f"unknown mode {', '.join(unknown)}; choose from {', '.join(MODE_SETTINGS)}")
    rounds: dict[str, list[dict]] = {mode: [] for mode in modes}
    for _ in range(args.repeats):
        for mode in modes:
            cores = f"{args.core},{1 - args.core}" if mode == "jobs2" else str(args.core)
            rounds[mode].append(run_worker(args, "parse", mode, cores))
            print(parse_row(rounds[mode][-1]), file=sys.stderr, flush=True)
    results["parsing"] = [median_row(rows) for rows in rounds.values()]
    if not args.skip_training:
        for size in args.batch_sizes.split(","):
            results["training"].append(run_worker(args, "train", size))
            print(results["training"][-1], file=sys.stderr, flush=True)
        for length in LENGTHS:
            results["lengths"].append(run_worker(args, "length", str(length)))
            print(results["lengths"][-1], file=sys.stderr, flush=True)
    print(markdown(results))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


def median_row(rows: list[dict]) -> dict:
    """The median of each timing over repeated runs of one mode (accuracy is the same in all)."""
    timed = ("sentences_per_second", "words_per_second", "model_load_seconds", "peak_rss_mib")
    median = dict(rows[0])
    for key in timed:
        median[key] = round(statistics.median(row[key] for row in rows), 2)
    median["runs"] = len(rows)
    return median


def run_worker(args, worker: str, argument: str, cores: str | None = None) -> dict:
    command = [
        "taskset",
        "-c",
        cores or str(args.core),
        sys.executable,
        __file__,
        "--worker",
        worker,
        "--argument",
        argument,
        "--model",
        args.model,
        "--treebank",
        args.treebank,
        "--train-sentences",
        str(args.train_sentences),
    ]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if result.returncode != 0:
        raise SystemExit(f"{worker} {argument} failed:\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def machine() -> dict:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}


# --- workers (each runs in its own process) -----------------------------------------------------


def peak_rss_mib() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return round(max(own, children) / 1024, 1)


def parse_worker(args) -> dict:
    from lstmparse.core import backend

    backend.configure(seed=1)
    from lstmparse.io.formats import read_treebank
    from lstmparse.scoring.evaluation import score_sentences
    from lstmparse.stacklstm.api import Parser
    from lstmparse.stacklstm.parallel import parse_in_processes

    mode = args.argument
    start = time.perf_counter()
    parser = Parser.load(args.model)
    load_seconds = time.perf_counter() - start
    beam, batch_size = MODE_SETTINGS[mode]

    def parse(sentences):
        if mode == "jobs2":
            return [c[0] for c in parse_in_processes(args.model, sentences, 2, batch_size=batch_size)]
        if beam == 1:
            return list(parser.parse(sentences, batch_size))
        return [c[0] for c in parser.parse_kbest(sentences, beam, 1, batch_size)]

    test = read_treebank(str(Path(args.treebank) / "test.conllu"))
    start = time.perf_counter()
    parse(test)
    seconds = time.perf_counter() - start
    dev = read_treebank(str(Path(args.treebank) / "dev.conllu"))
    scores = score_sentences(dev, parse(dev))
    words = sum(len(s) for s in test)
    return {
        "mode": mode,
        "sentences_per_second": round(len(test) / seconds, 1),
        "words_per_second": round(words / seconds),
        "model_load_seconds": round(load_seconds, 2),
        "peak_rss_mib": peak_rss_mib(),
        "dev_UAS": round(scores.uas, 2),
        "dev_LAS": round(scores.las, 2),
    }


def train_worker(args) -> dict:
    """Words + UPOS, arc-swap, lock-step batches: bench/training.py's row for this batch size."""
    measure = runpy.run_path(str(Path(__file__).with_name("training.py")))["measure"]  # a sibling script, by path

    size = int(args.argument)
    row = measure(f"wp:lockstep:{size}", args.treebank, args.train_sentences)
    return {"batch_size": size, "sentences_per_second": row["sentences_per_cpu_second"]}


def length_worker(args) -> dict:
    from lstmparse.core import backend

    backend.configure(seed=1)
    from lstmparse.io.formats import Sentence, Token, read_treebank
    from lstmparse.stacklstm.api import Parser

    length = int(args.argument)
    parser = Parser.load(args.model)
    tokens = [t for s in read_treebank(str(Path(args.treebank) / "dev.conllu")) for t in s.tokens]
    rng = random.Random(length)
    sentences = []
    for _ in range(max(4000 // length, 20)):
        picked = rng.sample(tokens, length)
        sentences.append(Sentence([Token(i, t.form, upos=t.upos) for i, t in enumerate(picked, start=1)]))
    list(parser.parse(sentences[:2], batch_size=1))  # warm up
    start = time.perf_counter()
    list(parser.parse(sentences, batch_size=1))
    seconds = time.perf_counter() - start
    words = len(sentences) * length
    return {"length": length, "sentences": len(sentences), "microseconds_per_token": round(1e6 * seconds / words, 1)}


WORKERS = {"parse": parse_worker, "train": train_worker, "length": length_worker}


# --- report ------------------------------------------------------------------------------------------


def parse_row(row: dict) -> str:
    return (
        f"| {row['mode']} | {row['sentences_per_second']} | {row['words_per_second']} | {row['model_load_seconds']} | "
        f"{row['peak_rss_mib']} | {row['dev_UAS']} | {row['dev_LAS']} |"
    )


def markdown(results: dict) -> str:
    lines = [
        f"Machine: {results['machine']['cpu']}, {results['machine']['cores']} cores; model {results['model']}",
        "",
        "| parsing EWT test | sentences/s | words/s | model load s | peak RSS MiB | dev UAS | dev LAS |",
        "|---|---|---|---|---|---|---|",
        *map(parse_row, results["parsing"]),
        "",
        "| training batch size | sentences/s |",
        "|---|---|",
        *(f"| {r['batch_size']} | {r['sentences_per_second']} |" for r in results["training"]),
        "",
        "| sentence length | µs per token |",
        "|---|---|",
        *(f"| {r['length']} | {r['microseconds_per_token']} |" for r in results["lengths"]),
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
