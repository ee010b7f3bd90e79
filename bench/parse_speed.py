"""Parsing speed of a model on a CoNLL-U file: sentences/s, words/s, load time, peak RSS.

    python bench/parse_speed.py --model models/en_ewt_upos --input ../shared/data/ud/en_ewt/test.conllu

Run it pinned to one core (``taskset -c 0``, as ``make bench`` does) to compare with
single-threaded parsers.  Repeats are interleaved and the median is reported,
because absolute figures drift on shared machines.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import time

from lstmparse.core import backend

backend.configure(seed=1)

from lstmparse.io.formats import read_treebank  # noqa: E402
from lstmparse.scoring.evaluation import score_sentences  # noqa: E402
from lstmparse.stacklstm.api import Parser  # noqa: E402


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--model", required=True)
    options.add_argument("--input", required=True)
    options.add_argument("--repeats", type=int, default=3)
    options.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = options.parse_args()

    start = time.perf_counter()
    parser = Parser.load(args.model)
    load_seconds = time.perf_counter() - start
    gold = read_treebank(args.input)
    words = sum(len(s) for s in gold)
    timings, parsed = [], []
    for _ in range(args.repeats):
        start = time.perf_counter()
        parsed = list(parser.parse(gold))
        timings.append(time.perf_counter() - start)
    seconds = statistics.median(timings)
    scores = score_sentences(gold, parsed)
    figures = {
        "model": args.model,
        "input": args.input,
        "sentences": len(gold),
        "words": words,
        "seconds_median": round(seconds, 2),
        "sentences_per_second": round(len(gold) / seconds, 1),
        "words_per_second": round(words / seconds, 1),
        "model_load_seconds": round(load_seconds, 3),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "UAS": round(scores.uas, 2),
        "LAS": round(scores.las, 2),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key:22s} {value}")


if __name__ == "__main__":
    main()
