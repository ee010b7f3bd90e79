"""Ship the languages farm's finished pipelines: each into ``models/<treebank>_pipeline`` with its figures.

    python bench/ship_languages.py runs/farm-languages

For every treebank of the farm's ``results.json`` whose ``lstmparse`` pipeline was
evaluated, the stored pipeline (half precision, as the plan trains it) is copied
without its checkpoints, jack-knifed data and fold taggers, and its card gains the
test figures from raw text beside UDPipe 1's on the same data (the farm run's, else the
committed row's: a plan may retrain lstmparse alone, UDPipe 1 not being repeatable). The rows themselves
go to ``bench/results/languages.json`` (in place of the rows of the same treebanks, the
others kept: a farm run of some treebanks adds to those shipped before), which
``bench/farm_table.py`` turns into the tables of ``models/README.md`` and
``bench/RESULTS.md``. English stays as shipped
(``en_ewt_pipeline``); models of other languages are not in the wheel (``setup.py``).
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEASURES = ("Words", "Sentences", "UPOS", "UFeats", "Lemmas", "UAS", "LAS", "MLAS", "BLEX")
PARTS = ("tokenizer", "tagger", "parser")
KEPT_LANGUAGE = "en"  # English is shipped by hand (en_ewt_pipeline)


def model_files(directory: Path) -> list[Path]:
    """The files a loaded model reads: its config, and the vocabulary and parameters the config names."""
    config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    names = ["config.json", "card.json", config.get("vocab_file"), config.get("params_file")]
    return [directory / name for name in names if name and (directory / name).is_file()]


def copy_pipeline(source: Path, target: Path) -> None:
    """The manifest, the card and each part's model files (nothing else of the training run)."""
    staging = target.with_name(target.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for name in ("config.json", "card.json"):
        shutil.copy2(source / name, staging / name)
    for part in PARTS:
        (staging / part).mkdir()
        for file in model_files(source / part):
            shutil.copy2(file, staging / part / file.name)
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)


def figures(row: dict, split: str = "test", source: str = "raw") -> dict[str, float]:
    return {name: row[split][source][name] for name in MEASURES if name in row[split][source]}


def treebank_fields(card: dict) -> dict:
    """The treebank's name and licence for a card whose ``data`` is its training file (the farm passes --train)."""
    from lstmparse.app.catalog import treebank_of_file

    folder = treebank_of_file(card["data"])
    if folder is None:
        return {}
    return {"data": folder.path.name, **({"licence": folder.licence} if folder.licence else {})}


def ship(work_dir: Path) -> list[str]:
    rows = json.loads((work_dir / "results.json").read_text(encoding="utf-8"))
    results = ROOT / "bench" / "results" / "languages.json"
    committed = json.loads(results.read_text(encoding="utf-8")) if results.is_file() else []
    shipped = []
    for row in rows:
        if row["setting"] != "lstmparse" or "test" not in row:
            continue
        treebank = row["treebank"]
        source = work_dir / "models" / treebank / "lstmparse" / f"s{row['seed']}"
        card = json.loads((source / "card.json").read_text(encoding="utf-8"))
        if card.get("language") == KEPT_LANGUAGE:
            continue
        target = ROOT / "models" / f"{treebank}_pipeline"
        copy_pipeline(source, target)
        # a run without UDPipe 1 (bench/plans/languages-lstmparse.toml) keeps the committed row's figures
        reference = udpipe_row(rows, treebank) or udpipe_row(committed, treebank)
        card |= treebank_fields(card)  # cards written before the card named a --train file's treebank
        card["test_raw"] = figures(row)
        if reference is not None:
            card["udpipe1_test_raw"] = figures(reference)
        card["training"]["cpu_minutes"] = row.get("cpu_minutes")
        (target / "card.json").write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        shipped.append(target.name)
    results.write_text(json.dumps(merged(committed, rows), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return shipped


def udpipe_row(rows: list[dict], treebank: str) -> dict | None:
    return next((row for row in rows if row["treebank"] == treebank and row["setting"] == "udpipe1"), None)


def merged(committed: list[dict], rows: list[dict]) -> list[dict]:
    """The committed rows with ``rows`` in place of theirs, where theirs stood (the tables keep their order); rows
    of treebanks not committed yet go last (a farm run of some treebanks keeps the others')."""

    def key(row: dict) -> tuple:
        return row["treebank"], row["setting"], row["seed"]

    new = {key(row): row for row in rows}
    replaced = [new.pop(key(row), row) for row in committed]
    return replaced + list(new.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("work_dir", type=Path, help="the farm's --work-dir for bench/plans/languages.toml")
    for name in ship(parser.parse_args().work_dir):
        print(f"models/{name}")


if __name__ == "__main__":
    main()
