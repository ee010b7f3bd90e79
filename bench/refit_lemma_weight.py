"""Give a shipped pipeline's tagger the known-lemma weight its dev set chooses, if dev says it helps.

For a form its lookup misses, the tagger may favour a lemma rule that makes a lemma
seen in training (``tagger/lemmas.py``, ``preferred_lemma``).  Taggers trained since
session 16 choose the weight when training ends (``tagger/training.py``); the shipped
ones were trained before, so this script chooses it for them.  Choice: the weights
training tries, scored on the pipeline's own tagging of dev from gold tokens (its UPOS
may be the mean of a tagger's and a joint parser's), the smaller on ties, 0 unless
another gains ``KNOWN_LEMMA_MARGIN``.  Only the decoding tagger's vocabulary file is
rewritten (``model_io.update_vocab``; parameters untouched).  Then dev is scored with
``lstmparse evaluate`` before and after; the rule, written before the run (session 16):
kept if dev Lemmas rise by at least 0.1 from gold tokens and rise from raw text.
Otherwise the files are put back.

    python bench/refit_lemma_weight.py models/hu_szeged_pipeline [more pipelines]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "ud"
sys.path.insert(0, str(ROOT / "bench"))
from refit_companions import SOURCES, decoding_tagger, trial  # noqa: E402  (bench scripts are not a package)

RULE_GAIN = 0.1  # dev Lemmas from gold tokens the weight must add


def treebank_of(pipeline: Path) -> str:
    """``models/hu_szeged_pipeline`` and ``models/en_ewt_pipeline_ensemble`` name hu_szeged and en_ewt."""
    return pipeline.name.removesuffix("_ensemble").removesuffix("_pipeline")


def lemma_accuracy(pipeline, gold: list) -> float:  # noqa: ANN001 - a loaded Pipeline
    """Percent of dev's words whose lemma the pipeline's tagging from gold tokens gets right."""
    from lstmparse.app.accuracy import blank_columns

    tagged = pipeline.tag(blank_columns(gold, ["lemma", "upos", "xpos", "feats"]))
    pairs = [
        (g.lemma, t.lemma)
        for sentence, out in zip(gold, tagged, strict=True)
        for g, t in zip(sentence.tokens, out.tokens, strict=True)
    ]
    return round(100.0 * sum(g == t for g, t in pairs) / len(pairs), 2)


def chosen_weight(pipeline_dir: Path, dev: Path) -> tuple[float, dict[str, float]]:
    """The weight the pipeline's dev tagging chooses, as training chooses it, and each weight's dev lemmas."""
    from lstmparse.io.formats import read_sentences
    from lstmparse.pipeline.api import Pipeline
    from lstmparse.tagger.training import choose_known_lemma_weight

    pipeline = Pipeline.load(pipeline_dir)
    decoding = getattr(pipeline.tagger.model, "members", [pipeline.tagger.model])[0]
    gold = list(read_sentences(str(dev)))
    figures = choose_known_lemma_weight(decoding, gold, lambda: lemma_accuracy(pipeline, gold))
    return figures["kept"], figures["dev_lemma"]


def kept(before: dict[str, dict], after: dict[str, dict]) -> bool:
    """Lemmas up by ``RULE_GAIN`` from gold tokens and up from raw text."""
    return (
        after["tokens"]["Lemmas"] >= before["tokens"]["Lemmas"] + RULE_GAIN
        and after["raw"]["Lemmas"] > before["raw"]["Lemmas"]
    )


def refit(pipeline: Path) -> dict:
    """Choose the weight, write it, score dev before and after, and keep it only by the rule."""
    from lstmparse.tagger.model import KNOWN_LEMMA_WEIGHT

    dev = DATA / treebank_of(pipeline) / "dev.conllu"
    tagger = decoding_tagger(pipeline)
    weight, tried = chosen_weight(pipeline, dev)
    result = {"pipeline": str(pipeline), "tagger": str(tagger), "dev_lemmas_by_weight": tried, "weight": weight}
    if not weight:
        return result | {"kept": False}
    note = {KNOWN_LEMMA_WEIGHT: {"dev_lemma": tried, "kept": weight, "chosen": "on the pipeline's dev (session 16)"}}
    before, after, decision = trial(pipeline, dev, tagger, {KNOWN_LEMMA_WEIGHT: weight}, note, kept)
    if decision:
        add_card_choice(pipeline, weight, before, after)
    return result | {"before": before, "after": after, "kept": decision}


def add_card_choice(pipeline: Path, weight: float, before: dict[str, dict], after: dict[str, dict]) -> None:
    """The pipeline's card says which weight its tagger took and what dev gave for it."""
    from lstmparse.app.catalog import write_card
    from lstmparse.core.model_io import read_card

    card = read_card(pipeline)
    moved = ", ".join(f"{source} {before[source]['Lemmas']:.2f} -> {after[source]['Lemmas']:.2f}" for source in SOURCES)
    line = f"lemmas: rules that make a training lemma favoured by a weight of {weight:g} (dev Lemmas {moved})"
    card["choices"] = [choice for choice in card.get("choices", []) if not choice.startswith("lemmas: rules")] + [line]
    write_card(pipeline, card)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "pipelines", nargs="+", type=Path, help="shipped pipeline directories (models/<treebank>_pipeline)"
    )
    args = parser.parse_args()
    from lstmparse.core import backend

    backend.configure(seed=1, memory_mb=256)
    for pipeline in args.pipelines:
        result = refit(pipeline.resolve())
        tried = ", ".join(f"{weight} {value:.2f}" for weight, value in result["dev_lemmas_by_weight"].items())
        line = f"{pipeline}: weight {result['weight']:g} ({tried})"
        if "after" in result:
            moved = ", ".join(
                f"{source} {measure} {result['before'][source][measure]:.2f} -> {result['after'][source][measure]:.2f}"
                for source in SOURCES
                for measure in ("Lemmas", "BLEX", "LAS")
                if measure in result["after"][source]
            )
            line += f": {'kept' if result['kept'] else 'not kept'} ({moved})"
        print(line, flush=True)
        print(json.dumps(result), file=sys.stderr)


if __name__ == "__main__":
    main()
