"""Give a language pipeline's tagger the XPOS and FEATS seen with each UPOS in training, if dev says it helps.

The table (``tagger/companions.py``) is read from the tagger's training file alone; only
the vocabulary file is rewritten (``model_io.update_vocab``; parameters untouched).  A
tagger ensemble decodes with its first member's dictionaries, so that member takes it.
Dev is scored with ``lstmparse evaluate`` (the pipeline's own decoding) from raw text
and from gold tokens, before and after; the rule, written before the first run
(session 14): kept if AllTags rises from raw text and neither UFeats, Lemmas nor LAS
falls, from raw text or gold tokens.  Otherwise the files are put back.

    python bench/refit_companions.py wo_wtb [more treebanks]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "ud"
sys.path.insert(0, str(ROOT / "bench"))
from tagger_ensembles import scores  # noqa: E402  (bench scripts are not a package)

SOURCES = ("raw", "tokens")


def decoding_tagger(pipeline: Path) -> Path:
    """The tagger whose dictionaries the pipeline decodes with: its tagger, or its ensemble's first member."""
    from lstmparse.core.ensembles import member_directories
    from lstmparse.core.model_io import model_arch
    from lstmparse.pipeline.manifest import part_directories

    tagger = part_directories(pipeline)["tagger"]
    return member_directories(tagger)[0] if model_arch(tagger) == "tagger_ensemble" else tagger


def kept(before: dict[str, dict], after: dict[str, dict]) -> bool:
    """AllTags up from raw text; UFeats, Lemmas and LAS not down anywhere (a measure the treebank lacks: no say)."""
    if after["raw"].get("AllTags", 0) <= before["raw"].get("AllTags", 0):
        return False
    return all(
        after[source].get(measure, 0) >= before[source].get(measure, 0)
        for source in SOURCES
        for measure in ("UFeats", "Lemmas", "LAS")
    )


def trial(
    pipeline: Path, dev: Path, tagger: Path, entries: dict, note: dict, rule: Callable[[dict, dict], bool]
) -> tuple[dict[str, dict], dict[str, dict], bool]:
    """Dev scored from raw text and gold tokens before and after ``entries`` go into the tagger's vocabulary
    (``model_io.update_vocab``, ``note`` added to its training record); its files are put back unless
    ``rule(before, after)`` holds."""
    from lstmparse.core.model_io import update_vocab

    before = {source: scores(dev, pipeline, source) for source in SOURCES}
    with tempfile.TemporaryDirectory() as backup:
        saved = Path(backup) / "tagger"
        shutil.copytree(tagger, saved)
        update_vocab(tagger, entries, note)
        after = {source: scores(dev, pipeline, source) for source in SOURCES}
        decision = rule(before, after)
        if not decision:
            shutil.rmtree(tagger)
            shutil.copytree(saved, tagger)
    return before, after, decision


def refit(treebank: str) -> dict:
    """Add the table to the treebank's pipeline tagger, score dev before and after, and keep it only by the rule."""
    from lstmparse.io.formats import read_treebank
    from lstmparse.tagger.companions import UPOS_COMPANIONS, UposCompanions

    pipeline = ROOT / "models" / f"{treebank}_pipeline"
    dev = DATA / treebank / "dev.conllu"
    tagger = decoding_tagger(pipeline)
    train = DATA / treebank / "train.conllu"
    table = UposCompanions.learn((t.upos, t.xpos, t.feats) for s in read_treebank(str(train)) for t in s.tokens)
    note = {"upos_companions": f"learned from {treebank}/train.conllu after training (session 14)"}
    before, after, decision = trial(pipeline, dev, tagger, {UPOS_COMPANIONS: table.to_json()}, note, kept)
    shown = str(tagger.relative_to(ROOT))
    return {"treebank": treebank, "tagger": shown, "before": before, "after": after, "kept": decision}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("treebanks", nargs="+", help="treebanks with a shipped models/<treebank>_pipeline")
    args = parser.parse_args()
    for treebank in args.treebanks:
        result = refit(treebank)
        moved = ", ".join(
            f"{source} {measure} {result['before'][source][measure]:.2f} -> {result['after'][source][measure]:.2f}"
            for source in SOURCES
            for measure in ("UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "LAS")
            if measure in result["after"][source]
        )
        print(f"{treebank}: {'kept' if result['kept'] else 'not kept'} ({moved})")
        print(json.dumps(result), file=sys.stderr)


if __name__ == "__main__":
    main()
