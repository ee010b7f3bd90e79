"""A side-by-side reference: UDPipe 1 trained on the same treebank, run on its test set (CoNLL-U out).

    pip install ufal.udpipe   # in a separate environment; not a dependency of lstmparse
    python bench/udpipe_reference.py ../shared/data/ud/hu_szeged runs/udpipe_hu
    lstmparse evaluate ../shared/data/ud/hu_szeged/test.conllu runs/udpipe_hu/raw.conllu

Trains UDPipe 1's tokenizer, tagger (lemmas, UPOS, XPOS, FEATS) and parser with their
default options on ``train.conllu`` (``dev.conllu`` held out), then writes ``raw.conllu``
(the test set's ``# text`` lines joined as one paragraph, tokenized, tagged and parsed)
and ``gold_tokens.conllu`` (the test set with LEMMA, UPOS, XPOS and FEATS blanked, tagged
and parsed).  models/README.md compares it with the lstmparse pipeline on Hungarian.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from ufal.udpipe import InputFormat, Model, Pipeline, ProcessingError, Sentence, Sentences, Trainer

BLANK_TAGS = re.compile(r"^(\d+)\t([^\t]*)\t[^\t]*\t[^\t]*\t[^\t]*\t[^\t]*\t", re.MULTILINE)


def read(path: Path) -> Sentences:
    reader = InputFormat.newConlluInputFormat()
    reader.setText(path.read_text(encoding="utf-8"))
    sentences, error, sentence = Sentences(), ProcessingError(), Sentence()
    while reader.nextSentence(sentence, error):
        sentences.push_back(sentence)
        sentence = Sentence()
    return sentences


def main(treebank: Path, output: Path) -> None:
    output.mkdir(parents=True, exist_ok=True)
    error, started = ProcessingError(), time.time()
    trained = Trainer.train(
        "morphodita_parsito", read(treebank / "train.conllu"), read(treebank / "dev.conllu"), "", "", "", error
    )
    if error.occurred():
        sys.exit(error.message)
    (output / "udpipe.model").write_bytes(trained)
    print(f"trained in {time.time() - started:.0f} s", file=sys.stderr)
    model = Model.load(str(output / "udpipe.model"))
    gold = (treebank / "test.conllu").read_text(encoding="utf-8")
    text = " ".join(line[len("# text = ") :] for line in gold.splitlines() if line.startswith("# text = "))
    started = time.time()
    raw = Pipeline(model, "tokenize", Pipeline.DEFAULT, Pipeline.DEFAULT, "conllu").process(text, error)
    print(f"raw text to trees in {time.time() - started:.2f} s", file=sys.stderr)
    (output / "raw.conllu").write_text(raw, encoding="utf-8")
    blank = BLANK_TAGS.sub(r"\1\t\2\t_\t_\t_\t_\t", gold)
    tagged = Pipeline(model, "conllu", Pipeline.DEFAULT, Pipeline.DEFAULT, "conllu").process(blank, error)
    (output / "gold_tokens.conllu").write_text(tagged, encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
