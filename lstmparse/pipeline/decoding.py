"""The beam a pipeline's parser decodes with, chosen on dev when the pipeline is trained.

Greedy decoding commits to every action; a beam keeps the best few derivations.
On the shipped languages' dev sets from raw text a beam of 4 gains 0.3 to 0.8 LAS
over greedy at about twice the parsing time, and a beam of 2 gains most of that on
some treebanks and nothing on others (models/README.md, "Decoding").  So the recipe
parses the dev set, tagged by the pipeline's own tagger, with each beam of
:data:`BEAMS` and keeps the narrowest whose LAS is within :data:`MARGIN` of the
best, with the pipeline as it ships (its ensembles, at its precision).  The
manifest's ``decoding`` holds the choice (its training record, what each beam
scored), and every way of parsing with the pipeline (``parse``, ``evaluate``,
``parse-corpus``, ``serve``, the Python API) decodes with it unless given a beam.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from lstmparse.io.formats import read_sentences
from lstmparse.scoring.conll18 import document, score_documents

BEAMS = (1, 2, 4)  # wider: beam 8 gained at most 0.11 LAS over 4 on the languages' dev sets, for twice the time
MARGIN = 0.1  # LAS points: a wider beam must gain more than this to be worth its time


def choose_beam(directory: str | Path, dev: str, log: TextIO) -> dict:
    """The decoding of the pipeline in ``directory``, as it ships (its manifest's tagger and parser, ensembles
    included, at their stored precision): the beam chosen on ``dev`` (a gold CoNLL-U file, from its gold tokens)
    and the dev LAS of every beam tried."""
    from lstmparse.pipeline.api import Pipeline

    pipeline = Pipeline.load(directory)
    gold = list(read_sentences(dev))
    inputs = list(pipeline.tag(gold, retag=True))
    las = {}
    for beam in BEAMS:
        output = [best for best, *_ in pipeline.candidates(inputs, beam, 1)]
        las[beam] = round(score_documents(document(gold), document(output))["LAS"].f1, 2)
    chosen = min(beam for beam in BEAMS if las[beam] >= max(las.values()) - MARGIN)
    tried = ", ".join(f"{las[beam]:.2f} at beam {beam}" for beam in BEAMS)
    reason = f"decoding: beam {chosen} (dev LAS from gold tokens, the pipeline's own tags: {tried})"
    print(reason, file=log)
    return {"beam": chosen, "dev_las": {str(beam): value for beam, value in las.items()}, "reason": reason}
