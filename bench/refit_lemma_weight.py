"""Give a shipped pipeline's tagger the lemma weights its dev set chooses, if dev says they help.

For a form its lookup misses, the tagger may favour a lemma rule that makes a lemma
seen in training, and disfavour a lemma cased unusually for the word's UPOS
(``tagger/lemmas.py``, ``preferred_lemma``).  Taggers trained since session 16 (the
casing: session 17) choose the weights when training ends (``tagger/training.py``); the
shipped ones were trained before, so this script chooses them, counting the casings
from the treebank's training file where the tagger has none.  Choice: the weights
training tries, in its order, scored on the pipeline's own tagging of dev from gold
tokens (its UPOS may be the mean of a tagger's and a joint parser's), the smaller on
ties, 0 unless another gains ``LEMMA_WEIGHT_MARGIN``.  Only the decoding tagger's
vocabulary file is rewritten (``model_io.update_vocab``; parameters untouched).  Then
dev is scored with ``lstmparse evaluate`` before and after; the rule, written before the
run (session 16): kept if dev Lemmas rise by at least 0.1 from gold tokens and rise from
raw text.  Otherwise the files are put back.

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


def chosen_weights(pipeline_dir: Path, dev: Path, train: Path) -> dict[str, dict]:
    """What the pipeline's decoding tagger has ("stored": its weights, 0 where none) and what its dev tagging
    chooses, as training chooses it ("weights", with each weight's dev lemmas in "figures"); "casings": the
    casing counts it has or, lacking them, the training file's."""
    from lstmparse.io.formats import read_sentences
    from lstmparse.pipeline.api import Pipeline
    from lstmparse.tagger.lemmas import LemmaCasings
    from lstmparse.tagger.training import LEMMA_WEIGHTS, choose_lemma_weights

    pipeline = Pipeline.load(pipeline_dir)
    decoding = getattr(pipeline.tagger.model, "members", [pipeline.tagger.model])[0]
    stored = {name: getattr(decoding, name) for name in LEMMA_WEIGHTS}
    if not decoding.lemma_casings.counts:
        words = ((t.form, t.upos, t.lemma) for s in read_sentences(str(train)) for t in s.tokens)
        decoding.lemma_casings = LemmaCasings.from_words(words)
    gold = list(read_sentences(str(dev)))
    figures = choose_lemma_weights(decoding, gold, lambda: lemma_accuracy(pipeline, gold))
    weights = {name: chosen["kept"] for name, chosen in figures.items()}
    return {"stored": stored, "weights": weights, "figures": figures, "casings": decoding.lemma_casings.to_json()}


def kept(before: dict[str, dict], after: dict[str, dict]) -> bool:
    """Lemmas up by ``RULE_GAIN`` from gold tokens and up from raw text."""
    return (
        after["tokens"]["Lemmas"] >= before["tokens"]["Lemmas"] + RULE_GAIN
        and after["raw"]["Lemmas"] > before["raw"]["Lemmas"]
    )


def refit(pipeline: Path) -> dict:
    """Choose the weights, write them, score dev before and after, and keep them only by the rule."""
    from lstmparse.tagger.model import LEMMA_CASINGS

    treebank = DATA / treebank_of(pipeline)
    tagger = decoding_tagger(pipeline)
    chosen = chosen_weights(pipeline, treebank / "dev.conllu", treebank / "train.conllu")
    weights, figures = chosen["weights"], chosen["figures"]
    tried = {name: by_name["dev_lemma"] for name, by_name in figures.items()}
    result = {"pipeline": str(pipeline), "tagger": str(tagger), "dev_lemmas_by_weight": tried, "weights": weights}
    if weights == chosen["stored"]:
        return result | {"kept": False}
    session = "on the pipeline's dev (session 17)"
    note = {name: by_name | {"chosen": session} for name, by_name in figures.items()}
    entries = {name: weight for name, weight in weights.items() if weight} | {LEMMA_CASINGS: chosen["casings"]}
    before, after, decision = trial(pipeline, treebank / "dev.conllu", tagger, entries, note, kept)
    if decision:
        add_card_choices(pipeline, weights, before, after)
    return result | {"before": before, "after": after, "kept": decision}


def add_card_choices(
    pipeline: Path, weights: dict[str, float], before: dict[str, dict], after: dict[str, dict]
) -> None:
    """The pipeline's card says which weights its tagger took and what dev gave for them."""
    from lstmparse.app.catalog import write_card
    from lstmparse.core.model_io import read_card
    from lstmparse.tagger.model import KNOWN_LEMMA_WEIGHT, LEMMA_CASING_WEIGHT

    lines = {  # each weight's line: how it starts (an older line of it is replaced), and the whole
        KNOWN_LEMMA_WEIGHT: ("lemmas: rules", "lemmas: rules that make a training lemma favoured by a weight of {:g}"),
        LEMMA_CASING_WEIGHT: (
            "lemmas: a lemma cased",
            "lemmas: a lemma cased unusually for its UPOS disfavoured by {:g}",
        ),
    }
    card = read_card(pipeline)
    moved = ", ".join(f"{source} {before[source]['Lemmas']:.2f} -> {after[source]['Lemmas']:.2f}" for source in SOURCES)
    choices = card.get("choices", [])
    for name, weight in weights.items():
        start, line = lines[name]
        choices = [choice for choice in choices if not choice.startswith(start)]
        if weight:
            choices.append(line.format(weight) + f" (dev Lemmas {moved})")
    card["choices"] = choices
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
        tried = "; ".join(
            f"{name} " + ", ".join(f"{weight} {value:.2f}" for weight, value in by_weight.items())
            for name, by_weight in result["dev_lemmas_by_weight"].items()
        )
        chosen = ", ".join(f"{name} {weight:g}" for name, weight in result["weights"].items())
        line = f"{pipeline}: {chosen} ({tried})"
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
