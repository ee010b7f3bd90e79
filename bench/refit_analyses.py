"""Give a trained tagger the dictionary of its training words' analyses, if dev says it helps.

A tagger (or a pipeline's ``tagger``) takes the dictionary (``tagger/analyses.py``)
without retraining: it is read from the training file alone, and only the vocabulary
file is rewritten (``model_io.update_vocab``; parameters untouched).  Dev decides, as
training does for taggers trained since (:func:`lstmparse.tagger.training.choose_analyses`).

    T=../shared/data/ud/hu_szeged
    python bench/refit_analyses.py models/hu_szeged_pipeline/tagger $T/train.conllu $T/dev.conllu
"""

from __future__ import annotations

import argparse
import sys

import lstmparse  # noqa: F401  (configures DyNet before the tagger's modules import it)
from lstmparse.tagger.training import keep_analyses_if_better, read_tagged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model_dir", help="a tagger's directory")
    parser.add_argument("train", help="the training CoNLL-U file it was trained on")
    parser.add_argument("dev", help="the dev CoNLL-U file that decides")
    args = parser.parse_args()
    print(keep_analyses_if_better(args.model_dir, read_tagged(args.train), read_tagged(args.dev), sys.stderr))


if __name__ == "__main__":
    main()
