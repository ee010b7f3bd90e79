"""A shipped pipeline's parser joined by a joint-UPOS parser: the ensemble measured on dev, and shipped if asked.

    python bench/joint_member.py hu_szeged runs/hu-parser-joint [--json FILE]
    python bench/joint_member.py hu_szeged runs/hu-parser-joint --ship
    python bench/joint_member.py hu_szeged runs/hu-parser-joint --ship --from-json FILE

The parser named (trained on the treebank's training file with ``--joint-upos``, e.g.
``lstmparse train --arch stacklstm --features words,chars --context-layers 1 --joint-upos
--system arc-swap --max-minutes 35``) is copied at half precision, as shipped parsers are,
into ``runs/joint_members/<treebank>/``, and made a parser ensemble with the pipeline's own
parser (``lstmparse ensemble``).  In a pipeline such an ensemble gives UPOS too: each word's
UPOS is the likeliest under the mean of the tagger's and the joint parser's probabilities,
and a tag-reading member reads it (``Pipeline.tag``).  Dev is scored with ``lstmparse
evaluate`` at the pipeline's own beam, from raw text and from gold tokens, with the shipped
parser and with the ensemble.  ``--ship`` puts the half-precision parser beside the
pipeline's parts (``parser_joint``) and names the ensemble (``parser_ensemble``) as its
parser; ``bench/rescore_languages.py`` then scores the shipped pipeline's dev and test.
``--from-json`` takes the dev figures an earlier ``--json`` run wrote instead of scoring
dev again (the rule is applied to them as to fresh ones).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "ud"
JOINT_PART, ENSEMBLE_PART = "parser_joint", "parser_ensemble"  # directories inside the pipeline
sys.path.insert(0, str(ROOT / "bench"))
from tagger_ensembles import MEASURES, half_precision_copy, scores, write_json, write_pipeline  # noqa: E402


def verdict(before: dict[str, dict], after: dict[str, dict]) -> bool:
    """The rule written before the first of these runs (session 14): raw LAS at least +0.3, gold-token LAS and
    raw UPOS not lower."""
    return (
        after["raw"]["LAS"] >= before["raw"]["LAS"] + 0.3
        and after["tokens"]["LAS"] >= before["tokens"]["LAS"]
        and after["raw"]["UPOS"] >= before["raw"]["UPOS"]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("treebank", help="a treebank of ../shared/data/ud with a shipped models/<treebank>_pipeline")
    parser.add_argument("joint", type=Path, help="a parser trained on its training file with --joint-upos")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    parser.add_argument("--ship", action="store_true", help="make the ensemble the shipped pipeline's parser")
    parser.add_argument("--from-json", type=Path, help="an earlier --json run's figures: dev is not scored again")
    args = parser.parse_args()
    from lstmparse.core.ensembles import write_ensemble
    from lstmparse.pipeline.manifest import part_directories

    pipeline = (ROOT / "models" / f"{args.treebank}_pipeline").resolve()
    dev = DATA / args.treebank / "dev.conllu"
    work = ROOT / "runs" / "joint_members" / args.treebank
    shipped = part_directories(pipeline)["parser"]
    joint = half_precision_copy(args.joint, work / JOINT_PART)
    write_ensemble([shipped, joint], work / ENSEMBLE_PART)
    write_pipeline(work / "pipeline", pipeline, work / ENSEMBLE_PART, part="parser")
    if args.from_json:
        rows = json.loads(args.from_json.read_text(encoding="utf-8"))["dev"]
    else:
        rows = {
            "shipped": {source: scores(dev, pipeline, source) for source in ("raw", "tokens")},
            "with the joint parser": {source: scores(dev, work / "pipeline", source) for source in ("raw", "tokens")},
        }
    columns = [(source, measure) for source in ("raw", "tokens") for measure in MEASURES]
    print(f"{args.treebank} dev | " + " | ".join(f"{source} {measure}" for source, measure in columns))
    for name, row in rows.items():
        print(f"{name} | " + " | ".join(f"{row[source].get(measure, float('nan')):.2f}" for source, measure in columns))
    kept = verdict(rows["shipped"], rows["with the joint parser"])
    print(f"rule: {'kept' if kept else 'not kept'}")
    if args.json:
        args.json.write_text(json.dumps({"treebank": args.treebank, "dev": rows, "kept": kept}, indent=1) + "\n")
    if args.ship:
        ship(pipeline, shipped, joint, rows)


def ship(pipeline: Path, shipped: Path, joint: Path, rows: dict[str, dict]) -> None:
    """Copy the joint parser into the pipeline, write the parser ensemble's manifest, name it as the parser part, and
    say so in the card (with the dev figures it was chosen by)."""
    from lstmparse.core.ensembles import write_ensemble

    target = pipeline / JOINT_PART
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(joint, target)
    write_ensemble([shipped, target], pipeline / ENSEMBLE_PART)
    manifest = json.loads((pipeline / "config.json").read_text(encoding="utf-8"))
    manifest["parts"]["parser"] = ENSEMBLE_PART
    write_json(pipeline / "config.json", manifest)
    before, after = rows["shipped"]["raw"], rows["with the joint parser"]["raw"]
    moved = ", ".join(f"{m} {before[m]:.2f} -> {after[m]:.2f}" for m in ("LAS", "UPOS") if m in after)
    card = json.loads((pipeline / "card.json").read_text(encoding="utf-8"))
    card.setdefault("choices", []).append(
        f"parser: an ensemble of the tag-reading parser and a joint-UPOS parser (words, characters, --context-layers 1 "
        f"--joint-upos), UPOS from the mean of the tagger's and the joint parser's probabilities (dev from raw text: "
        f"{moved})"
    )
    write_json(pipeline / "card.json", card)
    print(f"{pipeline.name}: parser part is now {ENSEMBLE_PART} (its parser and {JOINT_PART})")


if __name__ == "__main__":
    main()
