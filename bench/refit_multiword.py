"""Relearn a trained tokenizer's multi-word token splitter from its training treebank, with today's code.

The splitter (how a multi-word token is cut into words) is learned from the training
file alone, not by the network, so a shipped tokenizer can take a better one without
retraining: the network, its joins and its multi-word lookup stay as they are, and only
the vocabulary file is rewritten (``model_io.update_vocab``; parameters untouched).

    T=../shared/data/ud/cop_scriptorium
    python bench/refit_multiword.py models/cop_scriptorium_pipeline/tokenizer $T/train.conllu
"""

from __future__ import annotations

import argparse
import sys
from datetime import date

import lstmparse  # noqa: F401  (configures DyNet before the tokenizer's modules import it)
from lstmparse.core.model_io import update_vocab
from lstmparse.tokenizer.model import CharacterLabeller
from lstmparse.tokenizer.training import read_paragraphs


def refit(model_dir: str, train: str) -> dict:
    """Write the splitter learned from ``train`` into the tokenizer at ``model_dir``, keeping its lookup."""
    labeller = CharacterLabeller.load(model_dir)
    splitter = read_paragraphs(train)[1]
    splitter.lookup = labeller.splitter.lookup
    record = {"date": date.today().isoformat(), "train": train, "bound_groups": splitter.bound_groups is not None}
    update_vocab(model_dir, {"multiword": splitter.to_json()}, {"multiword_refit": record})
    return record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model_dir", help="a tokenizer's directory")
    parser.add_argument("train", help="the training CoNLL-U file it was trained on")
    args = parser.parse_args()
    print(refit(args.model_dir, args.train), file=sys.stderr)


if __name__ == "__main__":
    main()
