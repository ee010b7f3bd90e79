"""A shipped pipeline's tagger joined by taggers of other seeds: the ensemble measured on dev, and shipped if asked.

    python bench/tagger_ensembles.py hu_szeged runs/hu-tagger-s2 [more taggers] [--json FILE]
    python bench/tagger_ensembles.py hu_szeged runs/hu-tagger-s2 --ship

The taggers named (trained on the treebank's training file, ``lstmparse train --arch
tagger ... --seed 2``) are copied at half precision, as shipped taggers are, into
``runs/tagger_ensembles/<treebank>/``, and made an ensemble with the pipeline's own
tagger (``lstmparse ensemble``). A member whose training kept the dictionary of
seen analyses goes first, since the first member's dictionaries apply to the mean.
Dev is then scored with ``lstmparse evaluate`` (official CoNLL 2018 measures): each
tagger alone and the ensemble from gold tokens (tag and lemma columns blanked), and the
pipeline with its own tagger and with the ensemble from raw text (its tokenizer, parser
and decoding unchanged).  ``--ship`` puts the half-precision members beside the
pipeline's parts and names the ensemble as its tagger; ``bench/rescore_languages.py``
then scores the shipped pipeline's dev and test.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "ud"
MEASURES = ("UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS", "LAS", "MLAS")
ENSEMBLE_PART = "tagger_ensemble"  # the manifest's directory inside the pipeline


def scores(dev: Path, model: Path, source: str, beam: int | None = None) -> dict[str, float]:
    """Official measures of ``model`` on ``dev`` from raw text or gold tokens (``lstmparse evaluate --json``)."""
    command = [sys.executable, "-m", "lstmparse", "evaluate", str(dev), "--model", str(model), "--from", source]
    command += ["--beam", str(beam)] if beam else []
    result = subprocess.run([*command, "--json"], capture_output=True, text=True, check=True, cwd=ROOT)
    conll18 = json.loads(result.stdout)["conll18"]
    return {measure: conll18[measure] for measure in MEASURES if measure in conll18}


def shown(path: Path) -> str:
    """A path as the table names it: relative to the checkout where it is inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def half_precision_copy(tagger: Path, target: Path) -> Path:
    """The tagger's model files copied to ``target`` and stored at half precision."""
    from lstmparse.core.model_io import store_half_precision

    sys.path.insert(0, str(ROOT / "bench"))
    from ship_languages import model_files

    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for path in model_files(tagger):
        shutil.copy2(path, target / path.name)
    store_half_precision(target)
    return target


def write_pipeline(directory: Path, pipeline: Path, model: Path, part: str = "tagger") -> None:
    """A manifest of ``pipeline`` with ``model`` in place of its ``part`` (paths relative to ``directory``)."""
    from lstmparse.pipeline.manifest import part_directories

    manifest = json.loads((pipeline / "config.json").read_text(encoding="utf-8"))
    parts = part_directories(pipeline) | {part: model.resolve()}
    directory.mkdir(parents=True, exist_ok=True)
    relative = {name: os.path.relpath(path, directory.resolve()) for name, path in parts.items()}
    kept = {key: manifest[key] for key in ("decoding",) if key in manifest}
    (directory / "config.json").write_text(json.dumps({"arch": "pipeline", "parts": relative} | kept, indent=2) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("treebank", help="a treebank of ../shared/data/ud with a shipped models/<treebank>_pipeline")
    parser.add_argument("taggers", nargs="+", type=Path, help="taggers of other seeds, trained on its training file")
    parser.add_argument("--pipeline", type=Path, help="the pipeline (default: models/<treebank>_pipeline)")
    parser.add_argument("--beam", type=int, help="the pipelines' beam (default: the pipeline's own decoding)")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    parser.add_argument("--ship", action="store_true", help="make the ensemble the shipped pipeline's tagger")
    args = parser.parse_args()
    from lstmparse.core.ensembles import write_ensemble
    from lstmparse.pipeline.manifest import part_directories
    from lstmparse.tagger.ensemble import analyses_first

    pipeline = (args.pipeline or ROOT / "models" / f"{args.treebank}_pipeline").resolve()
    dev = DATA / args.treebank / "dev.conllu"
    work = ROOT / "runs" / "tagger_ensembles" / pipeline.name
    shipped = part_directories(pipeline)["tagger"]
    added = [half_precision_copy(t, work / f"tagger_{k + 2}") for k, t in enumerate(args.taggers)]
    members = analyses_first([shipped, *added])  # stable: the shipped tagger first otherwise
    write_ensemble(members, work / ENSEMBLE_PART)
    write_pipeline(work / "pipeline", pipeline, work / ENSEMBLE_PART)
    rows = {f"tagger {shown(member)}": scores(dev, member, "tokens") for member in members}
    rows["tagger ensemble"] = scores(dev, work / ENSEMBLE_PART, "tokens")
    rows["pipeline, shipped"] = scores(dev, pipeline, "raw", args.beam)
    rows["pipeline, ensemble tagger"] = scores(dev, work / "pipeline", "raw", args.beam)
    print(f"{args.treebank} dev | " + " | ".join(MEASURES))
    for name, row in rows.items():
        print(f"{name} | " + " | ".join(f"{row[m]:.2f}" if m in row else "" for m in MEASURES))
    if args.json:
        args.json.write_text(json.dumps({"treebank": args.treebank, "dev": rows}, indent=1) + "\n")
    if args.ship:
        ship(pipeline, members, shipped, rows)


def seed_of(tagger: Path) -> int | None:
    """The seed a tagger was trained with (its training record)."""
    return json.loads((tagger / "config.json").read_text(encoding="utf-8")).get("training", {}).get("seed")


def ship(pipeline: Path, members: list[Path], shipped: Path, rows: dict[str, dict]) -> None:
    """Copy the added members into the pipeline, write its ensemble manifest, name it as the tagger part, and say
    so in the card (with the dev figures it was chosen by)."""
    from lstmparse.core.ensembles import write_ensemble

    before, after = rows["pipeline, shipped"], rows["pipeline, ensemble tagger"]

    placed = []
    for member in members:
        if member == shipped:
            placed.append(shipped)
            continue
        target = pipeline / member.name
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(member, target)
        placed.append(target)
    write_ensemble(placed, pipeline / ENSEMBLE_PART)
    manifest = json.loads((pipeline / "config.json").read_text(encoding="utf-8"))
    manifest["parts"]["tagger"] = ENSEMBLE_PART
    write_json(pipeline / "config.json", manifest)
    card = json.loads((pipeline / "card.json").read_text(encoding="utf-8"))
    measures = [m for m in ("LAS", "UPOS", "UFeats", "Lemmas") if m in after]
    moved = ", ".join(f"{m} {before[m]:.2f} -> {after[m]:.2f}" for m in measures)
    card["figures"] = re.sub(
        r"^tagger: dev UPOS accuracy [0-9.]+",
        f"tagger (an ensemble of {len(placed)}): dev UPOS accuracy {rows['tagger ensemble']['UPOS']:.2f}",
        card.get("figures", ""),
    )
    card.setdefault("choices", []).append(
        f"tagger: an ensemble of {len(placed)} taggers of seeds {', '.join(str(seed_of(m)) for m in placed)}, the mean "
        f"of their distributions, the first one's dictionaries (dev from raw text: {moved})"
    )
    write_json(pipeline / "card.json", card)
    print(f"{pipeline.name}: tagger part is now {ENSEMBLE_PART} ({len(placed)} members)")


def write_json(path: Path, value: dict) -> None:
    """A shipped model's JSON file, written to a temporary file and renamed."""
    from lstmparse.core.model_io import atomic_write

    text = json.dumps(value, indent=2, ensure_ascii=False) + "\n"
    atomic_write(path, lambda handle: handle.write(text.encode("utf-8")))


if __name__ == "__main__":
    main()
