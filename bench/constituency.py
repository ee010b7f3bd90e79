"""The seq2seq constituency parser on a bracketed test set: F1, repairs, F1 by length, speed.

    python bench/constituency.py --model models/en_gum_seq2seq --gold ../shared/data/const/gum/test.ptb

For each beam width (default 1 and 10) the test words are parsed (the gold POS tags
are kept on the output, as ``lstmparse parse --input-format ptb`` does) and scored
with EVALB's COLLINS.prm conventions: labelled recall, precision and F1 (all
sentences, and those of at most 40 words), how many outputs needed repair into a
well-formed tree, F1 by sentence length as in the paper's Figure 3, and sentences/s
(parsing only, one process; run it as ``OMP_NUM_THREADS=1 taskset -c 0 python
bench/constituency.py ...`` for one core).  Also the model's load time, its size on
disk and the process's peak memory.  Prints Markdown tables, or JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

from lstmparse.core import backend

BUCKETS = ((0, 10), (11, 20), (21, 30), (31, 40), (41, None))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--gold", required=True)
    parser.add_argument("--beams", default="1,10", help="comma-separated beam widths")
    parser.add_argument(
        "--decoding",
        default="unconstrained,constrained",
        help="comma-separated: unconstrained (the paper's: repair afterwards), constrained (well-formed prefixes only)",
    )
    parser.add_argument("--limit", type=int, help="only the first N trees")
    parser.add_argument(
        "--batch-size", type=int, help="hypotheses decoded together (sentences x beam) [default: the parser's]"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    backend.configure(seed=1, memory_mb=512)
    from lstmparse.io.ptb import read_ptb
    from lstmparse.scoring.evalb import score_bracketings
    from lstmparse.seq2seq.api import ConstituencyParser

    gold = read_ptb(args.gold)[: args.limit]
    load_start = time.time()
    model = ConstituencyParser.load(args.model)
    load_seconds = time.time() - load_start
    rows = []
    settings = [(int(b), d) for d in args.decoding.split(",") for b in args.beams.split(",")]
    for beam, decoding in settings:
        start = time.time()
        parsed = list(model.parse(gold, beam, decoding == "constrained", args.batch_size))
        seconds = time.time() - start
        scores = score_bracketings(gold, [p.tree for p in parsed])
        rows.append(
            {
                "beam": beam,
                "decoding": decoding,
                "sentences": len(gold),
                "sentences_per_second": round(len(gold) / seconds, 1),
                "repaired": sum(p.repaired for p in parsed),
                **{k: v for k, v in scores.as_dict().items() if k in ("recall", "precision", "f1", "complete_match")},
                "f1_up_to_40": scores.subset(0, 40).as_dict()["f1"],
                "f1_by_length": {_bucket_name(low, high): _bucket(scores.subset(low, high)) for low, high in BUCKETS},
            }
        )
    result = {
        "model": args.model,
        "gold": args.gold,
        "load_seconds": round(load_seconds, 2),
        "model_megabytes": round(_model_bytes(args.model) / 2**20, 1),
        "peak_rss_megabytes": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "training": [_best_epoch(record) for record in _training_records(model.model)],
        "rows": rows,
    }
    print(json.dumps(result, indent=2) if args.json else _markdown(result))


def _model_bytes(directory: str) -> int:
    """The size on disk of a model, or of all of an ensemble's members."""
    from lstmparse.core.ensembles import ARCHS, member_directories
    from lstmparse.core.model_io import model_arch

    directories = member_directories(directory) if model_arch(directory) in ARCHS else [Path(directory)]
    return sum(f.stat().st_size for d in directories for f in d.rglob("*") if f.is_file())


def _training_records(model) -> list[dict]:
    """Each member's training record (one, for a single model)."""
    return [parser.training_record for parser in model.members]


def _best_epoch(record: dict) -> dict:
    return {k: record.get(k) for k in ("best_epoch", "best_dev_f1")}


def _bucket_name(low: int, high: int | None) -> str:
    return f"<={high}" if low == 0 else (f"{low}-{high}" if high else f">{low - 1}")


def _bucket(scores) -> dict:
    values = scores.as_dict()
    return {"sentences": values["sentences"], "f1": values["f1"]}


def _markdown(result: dict) -> str:
    training = "; ".join(f"best dev F1 {t['best_dev_f1']} at epoch {t['best_epoch']}" for t in result["training"])
    lines = [
        f"model {result['model']} ({training}), {result['model_megabytes']} MB, loaded in {result['load_seconds']} s; "
        f"peak memory {result['peak_rss_megabytes']} MB; gold {result['gold']}",
        "",
        "| decoding | beam | sentences/s | recall | precision | F1 | F1, <= 40 words | complete match | repaired |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in result["rows"]:
        lines.append(
            f"| {row['decoding']} | {row['beam']} | {row['sentences_per_second']} | {row['recall']:.2f} | "
            f"{row['precision']:.2f} | "
            f"**{row['f1']:.2f}** | {row['f1_up_to_40']:.2f} | {row['complete_match']:.2f} | "
            f"{row['repaired']} of {row['sentences']} |"
        )
    names = list(result["rows"][0]["f1_by_length"])
    header = "| decoding | beam | " + " | ".join(f"F1, {n} words" for n in names) + " |"
    lines += ["", header, "|---" * (len(names) + 2) + "|"]
    for row in result["rows"]:
        cells = [f"{b['f1']:.2f} ({b['sentences']})" for b in row["f1_by_length"].values()]
        lines.append(f"| {row['decoding']} | {row['beam']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
