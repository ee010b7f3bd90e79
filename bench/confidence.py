"""How well ``parse --confidence`` is calibrated: a reliability table on a treebank's dev set.

    python bench/confidence.py --model models/en_ewt --gold ../shared/data/ud/en_ewt/dev.conllu

For each way of computing the confidence (``greedy``: the probability of the action
that attached the word; ``kbest``: the share of an 8-best list's probability mass
whose tree has the word's arc), the words of the gold file are binned by the
confidence of their parsed arc, and each bin's mean confidence is set against the
share of its arcs that are right (head and label: LAS's notion).  A calibrated
confidence has the two equal; ECE is the mean gap, weighted by the bins' sizes.
The model reads the gold file's own columns (its tags, for a tag-reading model).
Prints Markdown, or JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import json

from lstmparse.core import backend

BINS = (0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0001)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--gold", required=True)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    backend.configure(seed=1, memory_mb=256)
    from lstmparse.io.formats import read_sentences
    from lstmparse.stacklstm.api import Parser

    model = Parser.load(args.model)
    gold = list(read_sentences(args.gold))
    tables = {}
    for kind, search in (("greedy", (1, 1)), ("kbest", (8, 8))):
        parsed = [trees[0] for trees in model.candidates(gold, *search, 32, kind)]
        tables[kind] = reliability(parsed, gold)
    if args.json:
        print(json.dumps(tables, indent=2))
        return
    for kind, table in tables.items():
        print(f"\n{kind}: ECE {table['ece']:.4f}, LAS {table['accuracy']:.4f}, {table['words']} words\n")
        print("| confidence | words | mean confidence | right (head and label) |")
        print("|---|---|---|---|")
        for row in table["bins"]:
            print(f"| {row['range']} | {row['words']} | {row['confidence']:.3f} | {row['accuracy']:.3f} |")


def reliability(parsed: list, gold: list) -> dict:
    """Bins of confidence against the share of right arcs, and the expected calibration error."""
    pairs = []
    for system, reference in zip(parsed, gold, strict=True):
        for word, right in zip(system.words, reference.words, strict=True):
            pairs.append((word.confidence, (word.head_id, word.deprel) == (right.head_id, right.deprel)))
    rows, gap = [], 0.0
    for low, high in zip(BINS, BINS[1:], strict=False):
        inside = [(c, ok) for c, ok in pairs if low <= c < high]
        if not inside:
            continue
        confidence = sum(c for c, _ in inside) / len(inside)
        accuracy = sum(ok for _, ok in inside) / len(inside)
        gap += len(inside) * abs(confidence - accuracy)
        rows.append(
            {
                "range": f"{low:.2f}–{min(high, 1):.2f}",
                "words": len(inside),
                "confidence": confidence,
                "accuracy": accuracy,
            }
        )
    accuracy = sum(ok for _, ok in pairs) / len(pairs)
    return {"bins": rows, "ece": gap / len(pairs), "accuracy": accuracy, "words": len(pairs)}


if __name__ == "__main__":
    main()
