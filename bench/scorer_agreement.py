"""Does ``lstmparse evaluate`` score as the official CoNLL 2018 scorer does?  Both on the same files, side by side.

    python bench/scorer_agreement.py path/to/conll18_ud_eval.py GOLD.conllu SYSTEM.conllu [SYSTEM2 ...]

The official ``conll18_ud_eval.py`` (github.com/ufal/conll2018, evaluation_script/)
is not on PyPI, so this is a check to run by hand on real output (the pipeline
bench's ``--write`` files), not a test: it loads the script as a module, scores
each system file with both, prints every measure's two F1 figures and exits 1 if
any differs by more than rounding (0.005).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys

from lstmparse.scoring.conll18 import MEASURES, evaluate_conll18


def official_scorer(script: str):
    """The official script, loaded as a module."""
    spec = importlib.util.spec_from_file_location("conll18_ud_eval", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def official_scores(module, gold: str, system: str) -> dict[str, float]:
    with open(gold, encoding="utf-8") as gold_file, open(system, encoding="utf-8") as system_file:
        result = module.evaluate(module.load_conllu(gold_file), module.load_conllu(system_file))
    return {name: 100 * result[name].f1 for name in MEASURES}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("official", help="the official conll18_ud_eval.py")
    parser.add_argument("gold")
    parser.add_argument("systems", nargs="+")
    args = parser.parse_args()
    disagreements, module = 0, official_scorer(args.official)
    for system in args.systems:
        theirs = official_scores(module, args.gold, system)
        ours = {name: score.f1 for name, score in evaluate_conll18(args.gold, system).items()}
        print(f"{system}\n| measure | official | lstmparse |\n|---|---|---|")
        for name in MEASURES:
            differs = abs(theirs[name] - ours[name]) > 0.005
            disagreements += differs
            print(f"| {name} | {theirs[name]:.2f} | {ours[name]:.2f}{' DIFFERS' if differs else ''} |")
    print(f"{disagreements} measures differ", file=sys.stderr)
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
