"""The farm's reference jobs: UDPipe 1 trained on the same data, its output scored the same way.

UDPipe 1 (``ufal.udpipe``) runs in an interpreter of the user's choice
(``lstmparse farm --udpipe-python``, default: this one), since it is not a
dependency of lstmparse.  Its tokenizer, tagger and parser are trained with their
default options on the treebank's train file (dev held out for its own choices);
then it reads the same raw text that ``lstmparse evaluate --from raw`` gives our
pipelines, and the same gold tokens with the tag and lemma columns blanked; both
are scored here by the CoNLL 2018 measures.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from lstmparse.app.accuracy import blank_columns
from lstmparse.app.farm.commands import run_command
from lstmparse.app.farm.plan import Job
from lstmparse.errors import ConfigurationError
from lstmparse.io.formats import TAG_COLUMNS, read_sentences
from lstmparse.scoring.conll18 import document, score_documents, unannotated_measures
from lstmparse.tokenizer.data import raw_text_paragraphs

UDPIPE_SCRIPT = Path(__file__).with_name("udpipe_reference.py")  # runs under UDPipe's interpreter


def run_udpipe_job(job: Job, directory: Path, python: str | None, log: TextIO) -> tuple[float, dict]:
    """Train and run UDPipe 1 for ``job`` (on its ``inputs``: train, dev, test; its log and outputs in
    ``directory``); CPU seconds and scores."""
    if len(job.inputs) != 3 or job.inputs[0] is None:
        raise ConfigurationError(f"{job.id}: a reference job needs its treebank's files")
    train, dev, test = job.inputs
    model_dir = Path(job.model_dir or directory)
    model_dir.mkdir(parents=True, exist_ok=True)
    inputs = []
    for split, gold in (("dev", dev), ("test", test)):
        if gold is None:
            continue
        sentences = list(read_sentences(gold))
        texts, _ = raw_text_paragraphs(sentences)
        (model_dir / f"{split}.txt").write_text("\n\n".join(texts) + "\n", encoding="utf-8")
        blank = "".join(s.to_conllu() for s in blank_columns(sentences, list(TAG_COLUMNS)))
        (model_dir / f"{split}.blank.conllu").write_text(blank, encoding="utf-8")
        inputs.append(split)
    command = [python or sys.executable, str(UDPIPE_SCRIPT), str(train), dev or "", str(model_dir), *inputs]
    cpu, _ = run_command(command, directory, "udpipe", log)
    outputs = {}
    for split, gold in (("dev", dev), ("test", test)):
        if gold is None:
            continue
        gold_sentences = list(read_sentences(gold))
        gold_document, unannotated = document(gold_sentences), unannotated_measures(gold_sentences)
        for source in ("raw", "tokens"):
            system = model_dir / f"{split}.{source}.conllu"
            scores = score_documents(gold_document, document(list(read_sentences(str(system)))), str(system))
            f1 = {name: round(s.f1, 2) for name, s in scores.items() if name not in unannotated}
            outputs[f"{split}.{source}"] = {"conll18": f1}
    return cpu, outputs
