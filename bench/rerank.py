"""k-best reranking with a TreeLSTM: 1-best, oracle and reranked UAS/LAS on test, W and K tuned on dev.

    python bench/rerank.py --model runs/tl_ldtreelstm \\
        --dev-kbest dev.k10.conllu --dev-gold ../shared/data/ud/en_ewt/dev.conllu \\
        --test-kbest test.k10.conllu --test-gold ../shared/data/ud/en_ewt/test.conllu

The k-best files come from ``lstmparse parse --beam 10 --kbest 10``.  Prints a JSON
object with the figures (UAS/LAS as the CoNLL 2018 scorer, all words counted).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from lstmparse.core import backend


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--dev-kbest", required=True)
    parser.add_argument("--dev-gold", required=True)
    parser.add_argument("--test-kbest", required=True)
    parser.add_argument("--test-gold", required=True)
    args = parser.parse_args()
    backend.configure(seed=1)
    from lstmparse.io.formats import read_treebank
    from lstmparse.scoring.evaluation import score_trees
    from lstmparse.treelstm.model import TreeLSTM
    from lstmparse.treelstm.rerank import best_candidate, read_kbest, score_candidates, tune

    model = TreeLSTM.load(args.model)
    dev, test = read_kbest(args.dev_kbest), read_kbest(args.test_kbest)
    started = time.time()
    score_candidates(model, dev)
    score_candidates(model, test)
    seconds = time.time() - started
    trees = sum(map(len, dev)) + sum(map(len, test))
    tuning = tune(dev, read_treebank(args.dev_gold))
    gold = read_treebank(args.test_gold)
    reference = [(s.heads, s.deprels, [t.upos for t in s.tokens]) for s in gold]

    def scores(weight: float, k: int):
        chosen = [best_candidate(group, weight, k).sentence for group in test]
        return score_trees(reference, [(s.heads, s.deprels) for s in chosen])

    one_best, reranked = scores(0.0, 1), scores(tuning.weight, tuning.k)
    oracle = tune(test, gold, max_k=None).oracle_uas
    figures = {
        "model": args.model,
        "arch": model.arch,
        "dev_perplexity": model.training_record.get("best_dev_perplexity"),
        "tuned_weight": tuning.weight,
        "tuned_k": tuning.k,
        "dev_uas_1best": round(tuning.one_best_uas, 2),
        "dev_uas_reranked": round(tuning.uas, 2),
        "test_uas_1best": round(one_best.uas, 2),
        "test_las_1best": round(one_best.las, 2),
        "test_uas_oracle": round(oracle, 2),
        "test_uas_reranked": round(reranked.uas, 2),
        "test_las_reranked": round(reranked.las, 2),
        "trees_scored_per_second": round(trees / seconds, 1),
    }
    json.dump(figures, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
