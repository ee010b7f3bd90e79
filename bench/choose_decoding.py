"""Choose a trained pipeline's decoding beam on dev, as ``lstmparse train --arch pipeline`` now does at its end.

    python bench/choose_decoding.py models/hu_szeged_pipeline ../shared/data/ud/hu_szeged/dev.conllu

For the pipelines trained before the recipe chose a beam: the manifest gains
``decoding`` (and its training record the dev LAS of every beam tried), the card
the choice's line.  Nothing else of the model changes.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model_dir", type=Path, help="a pipeline directory")
    parser.add_argument("dev", help="the gold dev file of its treebank")
    args = parser.parse_args()
    from lstmparse.core.backend import configure_defaults

    configure_defaults()
    from lstmparse.core.model_io import CARD, CONFIG, atomic_write
    from lstmparse.pipeline.decoding import choose_beam

    decoding = choose_beam(args.model_dir, args.dev, sys.stderr)
    manifest = json.loads((args.model_dir / CONFIG).read_text(encoding="utf-8"))
    manifest["decoding"] = {"beam": decoding["beam"]}
    manifest.setdefault("training", {})["decoding"] = decoding
    card_path = args.model_dir / CARD
    card = json.loads(card_path.read_text(encoding="utf-8")) if card_path.is_file() else {}
    choices = [line for line in card.get("choices", []) if not line.startswith("decoding:")]
    card["choices"] = [*choices, decoding["reason"]]
    for path, data in ((args.model_dir / CONFIG, manifest), (card_path, card)):
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        atomic_write(path, lambda handle, text=text: handle.write(text.encode("utf-8")))


if __name__ == "__main__":
    main()
