"""Taggers' UPOS on dev words training never saw, beside the seen ones (what the encoder is for, docs/encoder.md).

    python bench/unseen_words.py --treebank ../shared/data/ud/hu_szeged TAGGER [TAGGER...]

Each tagger tags the treebank's dev set from gold tokens (its tag columns blanked); a dev
word is unseen when its form is not a form of the training file.  Prints a Markdown row
per tagger: UPOS on unseen words, on seen ones, and on all, with the unseen words' count.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("taggers", nargs="+", help="tagger directories (or pipelines with one)")
    parser.add_argument("--treebank", required=True, type=Path, help="a UD folder with train and dev files")
    args = parser.parse_args()
    from lstmparse.core.backend import configure_defaults

    configure_defaults()
    from lstmparse.app.accuracy import blank_columns
    from lstmparse.io.formats import TAG_COLUMNS, read_sentences
    from lstmparse.pipeline.recipe import treebank_folder
    from lstmparse.tagger.api import POSTagger

    folder = treebank_folder(args.treebank)
    assert folder.dev is not None, f"{args.treebank} has no dev file"
    seen = {form for sentence in read_sentences(str(folder.train)) for form in sentence.forms}
    gold = list(read_sentences(str(folder.dev)))
    unseen_count = sum(form not in seen for sentence in gold for form in sentence.forms)
    print(f"{folder.path.name} dev: {sum(len(s) for s in gold)} words, {unseen_count} unseen in training\n")
    print("| tagger | UPOS unseen | UPOS seen | UPOS all |\n|---|---|---|---|")
    for tagger_dir in args.taggers:
        tagger = POSTagger.load(tagger_dir)
        tagged = tagger.tag(blank_columns(gold, list(TAG_COLUMNS)), retag=True)
        right = {True: [0, 0], False: [0, 0]}
        for predicted, reference in zip(tagged, gold, strict=True):
            for word, gold_word in zip(predicted.tokens, reference.tokens, strict=True):
                bucket = right[gold_word.form in seen]
                bucket[0] += word.upos == gold_word.upos
                bucket[1] += 1
        cells = [100 * right[key][0] / max(right[key][1], 1) for key in (False, True)]
        total = 100 * (right[True][0] + right[False][0]) / max(right[True][1] + right[False][1], 1)
        print(f"| {tagger_dir} | {cells[0]:.2f} | {cells[1]:.2f} | {total:.2f} |")


if __name__ == "__main__":
    main()
