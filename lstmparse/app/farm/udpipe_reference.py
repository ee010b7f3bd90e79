"""UDPipe 1 trained with its default options and run on prepared inputs; needs only ``ufal.udpipe``.

    python udpipe_reference.py TRAIN DEV OUT_DIR [SPLIT ...]

Run by the farm's reference jobs with the interpreter that has ``ufal.udpipe``
(it imports nothing of lstmparse).  Writes ``OUT_DIR/udpipe.model``, and for each
SPLIT (``dev``, ``test``) reads ``OUT_DIR/SPLIT.txt`` (raw text, paragraphs
separated by blank lines) and ``OUT_DIR/SPLIT.blank.conllu`` (gold tokens, tags
blanked) and writes ``OUT_DIR/SPLIT.raw.conllu`` and ``OUT_DIR/SPLIT.tokens.conllu``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from ufal.udpipe import InputFormat, Model, Pipeline, ProcessingError, Sentence, Sentences, Trainer


def read(path: str) -> Sentences:
    reader = InputFormat.newConlluInputFormat()
    reader.setText(Path(path).read_text(encoding="utf-8") if path else "")
    sentences, error, sentence = Sentences(), ProcessingError(), Sentence()
    while reader.nextSentence(sentence, error):
        sentences.push_back(sentence)
        sentence = Sentence()
    return sentences


def main(train: str, dev: str, output: Path, splits: list[str]) -> None:
    model_path = output / "udpipe.model"
    error = ProcessingError()
    if not model_path.is_file():
        started = time.time()
        trained = Trainer.train("morphodita_parsito", read(train), read(dev), "", "", "", error)
        if error.occurred():
            sys.exit(f"UDPipe training failed: {error.message}")
        partial = output / ".udpipe.model.part"
        partial.write_bytes(trained)
        partial.replace(model_path)
        print(f"UDPipe 1 trained in {time.time() - started:.0f} s", file=sys.stderr)
    model = Model.load(str(model_path))
    for split in splits:
        text = (output / f"{split}.txt").read_text(encoding="utf-8")
        raw = Pipeline(model, "tokenize", Pipeline.DEFAULT, Pipeline.DEFAULT, "conllu").process(text, error)
        (output / f"{split}.raw.conllu").write_text(raw, encoding="utf-8")
        blank = (output / f"{split}.blank.conllu").read_text(encoding="utf-8")
        tagged = Pipeline(model, "conllu", Pipeline.DEFAULT, Pipeline.DEFAULT, "conllu").process(blank, error)
        (output / f"{split}.tokens.conllu").write_text(tagged, encoding="utf-8")
        if error.occurred():
            sys.exit(f"UDPipe failed on {split}: {error.message}")
        print(f"{split}: raw text and gold tokens processed", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], Path(sys.argv[3]), sys.argv[4:])
