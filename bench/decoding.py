"""Decoding modes side by side on one treebank: sentences/s, words/s and LAS of each.

    python bench/decoding.py --model models/en_ewt_upos --input ../shared/data/ud/en_ewt/dev.conllu

Modes: greedy (one sentence per graph, the default of ``lstmparse parse``) and
beam search of width K (``--beam K``; all hypotheses of ``--batch-size`` sentences
advanced together, see lstmparse/stacklstm/decoding.py).  A beam of 1 through the lock-step
decoder is also timed: it gives the greedy trees, so the row shows the cost of the
batched path itself.  Run it pinned to one core (``taskset -c 0``).
"""

from __future__ import annotations

import argparse
import json
import time

from lstmparse.core import backend

backend.configure(seed=1)

from lstmparse.io.formats import read_treebank  # noqa: E402
from lstmparse.scoring.evaluation import score_sentences  # noqa: E402
from lstmparse.stacklstm.api import Parser  # noqa: E402


def timed(parse, gold) -> tuple[float, list]:
    start = time.perf_counter()
    parsed = parse(gold)
    return time.perf_counter() - start, parsed


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--model", required=True)
    options.add_argument("--input", required=True)
    options.add_argument("--beams", default="1,4,8", help="beam widths for the lock-step decoder")
    options.add_argument("--batch-size", type=int, default=32)
    options.add_argument("--json", action="store_true")
    args = options.parse_args()

    parser = Parser.load(args.model)
    gold = read_treebank(args.input)
    words = sum(len(s) for s in gold)
    modes = {"greedy": lambda sentences: list(parser.parse(sentences))}
    for beam in map(int, args.beams.split(",")):
        modes[f"lock-step beam {beam}"] = lambda sentences, k=beam: [
            candidates[0] for candidates in parser.parse_kbest(sentences, k, 1, args.batch_size)
        ]
    rows = []
    greedy_trees = None
    for name, parse in modes.items():
        seconds, parsed = timed(parse, gold)
        trees = [(s.heads, s.deprels) for s in parsed]
        greedy_trees = greedy_trees or trees
        scores = score_sentences(gold, parsed)
        rows.append(
            {
                "mode": name,
                "sentences_per_second": round(len(gold) / seconds, 1),
                "words_per_second": round(words / seconds),
                "UAS": round(scores.uas, 2),
                "LAS": round(scores.las, 2),
                "same_trees_as_greedy": sum(a == b for a, b in zip(trees, greedy_trees, strict=True)),
            }
        )
    if args.json:
        print(json.dumps({"model": args.model, "input": args.input, "sentences": len(gold), "rows": rows}, indent=2))
        return
    print(f"{args.input}: {len(gold)} sentences, {words} words; model {args.model}")
    for row in rows:
        print(
            f"{row['mode']:22s} {row['sentences_per_second']:8.1f} sent/s {row['words_per_second']:7d} words/s  "
            f"UAS {row['UAS']:.2f} LAS {row['LAS']:.2f}  same trees as greedy {row['same_trees_as_greedy']}"
        )


if __name__ == "__main__":
    main()
