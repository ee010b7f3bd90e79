"""Score the shipped language pipelines again, as they now decode, and put the figures where the farm's were.

    lstmparse refit models/hu_szeged_pipeline --treebank ../shared/data/ud/hu_szeged
    python bench/rescore_languages.py hu_szeged [more treebanks]

For a pipeline whose choices changed after the farm scored it (``lstmparse refit``),
each treebank's dev and test sets are scored from raw text and from gold tokens with
``lstmparse evaluate --model`` (the model's own decoding), and the figures replace its ``lstmparse`` row's in
``bench/results/languages.json`` and the test figures in its card; the training
CPU-minutes stay the farm's.  The tables made of them (``bench/farm_table.py``) are then
rewritten where they stand: the side-by-side rows and mean in bench/RESULTS.md and
models/README.md, the README's compact rows and its average.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "ud"
RESULTS = ROOT / "bench" / "results" / "languages.json"
SYSTEMS = ("lstmparse", "udpipe1")  # the settings the README's compact table sets side by side
sys.path.insert(0, str(ROOT / "bench"))
from farm_table import compact, mean_las, side_by_side  # noqa: E402  (bench scripts are not a package)
from ship_languages import figures  # noqa: E402


def scores(treebank: str, split: str, source: str) -> dict[str, float]:
    """The official measures of the treebank's shipped pipeline on one split, from raw text or gold tokens."""
    command = [sys.executable, "-m", "lstmparse", "evaluate", str(DATA / treebank / f"{split}.conllu")]
    command += ["--model", str(ROOT / "models" / f"{treebank}_pipeline"), "--from", source, "--json"]
    result = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(result.stdout)["conll18"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("treebanks", nargs="+", help="treebank names, as in bench/results/languages.json")
    rows = json.loads(RESULTS.read_text(encoding="utf-8"))
    for treebank in parser.parse_args().treebanks:
        row = next(r for r in rows if r["treebank"] == treebank and r["setting"] == "lstmparse")
        for split in ("dev", "test"):
            row[split] = {source: scores(treebank, split, source) for source in ("raw", "tokens")}
        card_path = ROOT / "models" / f"{treebank}_pipeline" / "card.json"
        card = json.loads(card_path.read_text(encoding="utf-8"))
        card["test_raw"] = figures(row)
        card_path.write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{treebank}: raw test LAS {row['test']['raw']['LAS']:.2f}, dev {row['dev']['raw']['LAS']:.2f}")
    RESULTS.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    write_tables(rows)


def write_tables(rows: list[dict]) -> None:
    """Each treebank's rows of the languages tables, and their means, as ``rows`` now give them (raw text, test)."""
    table = side_by_side(rows, "raw")
    ours_rows = {line.split(" | ")[0][2:]: line for line in table.splitlines() if " | lstmparse | " in line}
    mean = next(line for line in table.splitlines() if line.startswith("Mean LAS"))
    for path in (ROOT / "bench" / "RESULTS.md", ROOT / "models" / "README.md"):
        text = path.read_text(encoding="utf-8")
        for treebank, line in ours_rows.items():
            text = re.sub(rf"^\| {treebank} \| lstmparse \|.*$", lambda _, line=line: line, text, flags=re.M)
        text = re.sub(r"^Mean LAS over these \d+ treebanks: .*$", lambda _: mean, text, flags=re.M)
        path.write_text(text, encoding="utf-8")
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    for line in compact(rows, "raw").splitlines()[2:]:
        treebank = line.split(" | ")[0][2:]
        pattern = rf"^\| {treebank} \| [0-9.]+ \| [0-9.]+ \| [+-][0-9.]+ \| .*$"
        text = re.sub(pattern, lambda _, line=line: line, text, flags=re.M)
    means = mean_las(rows, "raw")
    ours, theirs = (means[system] for system in SYSTEMS)
    average = f"On average {ours - theirs:+.2f} LAS above UDPipe 1 ({ours:.2f} against {theirs:.2f})"
    text = re.sub(r"On average [+-][0-9.]+ LAS above UDPipe 1 \([0-9.]+ against [0-9.]+\)", average, text)
    readme.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
