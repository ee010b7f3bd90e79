"""A pipeline (tokenizer, tagger, parser) on a UD test set: CoNLL 2018 scores from raw text and from gold tokens.

    python bench/pipeline.py --model models/en_ewt_pipeline --gold ../shared/data/ud/en_ewt/test.conllu

Two runs, scored as the CoNLL 2018 scorer does (:mod:`lstmparse.scoring.conll18`):

- raw text: the test set's text rebuilt from its tokens and ``SpaceAfter=No``,
  paragraphs at ``# newpar``/``# newdoc`` (a treebank without them is one
  paragraph), tokenized, tagged and parsed;
- gold tokenization with the LEMMA, UPOS, XPOS and FEATS columns blanked: tagged and parsed.

Each stage of the raw run is timed separately (process time, one process; run it as
``OMP_NUM_THREADS=1 taskset -c 0 python bench/pipeline.py ...`` for one core), and
sentences/s is given per stage and for the whole, counting the sentences the
tokenizer found and, beside them, the gold sentences.  Prints Markdown, or JSON
with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

from lstmparse.core import backend
from lstmparse.scoring.conll18 import MEASURES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="a pipeline model directory")
    parser.add_argument("--gold", required=True, help="a UD CoNLL-U test file")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--beam", type=int, default=None, help="beam search of this width (default: the one the pipeline chose on dev)"
    )
    parser.add_argument(
        "--batch-size", type=int, default=None, help="lock-step batch of the parser (default: the library's default)"
    )
    parser.add_argument("--write", metavar="DIR", help="also write both outputs there (raw.conllu, gold_tokens.conllu)")
    args = parser.parse_args()
    backend.configure(seed=1, memory_mb=256)
    from lstmparse.app.accuracy import blank_columns
    from lstmparse.io.formats import TAG_COLUMNS, read_sentences
    from lstmparse.pipeline.api import Pipeline
    from lstmparse.scoring.conll18 import document, score_documents
    from lstmparse.tokenizer.api import RawParagraph
    from lstmparse.tokenizer.data import raw_text_paragraphs

    gold = list(read_sentences(args.gold))
    load_start = time.time()
    pipeline = Pipeline.load(args.model)
    load_seconds = time.time() - load_start
    raw = [RawParagraph(text) for text in raw_text_paragraphs(gold)[0]]

    stages, timer = {}, time.process_time
    start = timer()
    tokenized = list(pipeline.tokenizer.tokenize_paragraphs(raw))
    stages["tokenize"] = timer() - start
    start = timer()
    tagged = list(pipeline.tag(tokenized))
    stages["tag"] = timer() - start
    start = timer()
    batch = () if args.batch_size is None else (args.batch_size,)
    parsed = [best for best, *_ in pipeline.parser.candidates(tagged, args.beam, 1, *batch)]
    stages["parse"] = timer() - start
    gold_document = document(gold)
    raw_scores = score_documents(gold_document, document(parsed))

    blank = blank_columns(gold, list(TAG_COLUMNS))
    start = timer()
    gold_tokens = [best for best, *_ in pipeline.candidates(blank, args.beam, 1, *batch)]
    gold_tokens_seconds = timer() - start
    gold_scores = score_documents(gold_document, document(gold_tokens))
    if args.write:
        for name, sentences in (("raw", parsed), ("gold_tokens", gold_tokens)):
            Path(args.write, f"{name}.conllu").write_text("".join(s.to_conllu() for s in sentences), encoding="utf-8")

    total = sum(stages.values())
    result = {
        "model": args.model,
        "beam": pipeline.parser.beam if args.beam is None else args.beam,
        "gold": args.gold,
        "gold_sentences": len(gold),
        "raw": {name: round(raw_scores[name].f1, 2) for name in MEASURES},
        "gold_tokenization": {name: round(gold_scores[name].f1, 2) for name in MEASURES[3:]},
        "sentences_found": len(tokenized),
        "stage_seconds": {name: round(seconds, 2) for name, seconds in stages.items()},
        "raw_sentences_per_second": round(len(tokenized) / total, 1),
        "raw_gold_sentences_per_second": round(len(gold) / total, 1),
        "gold_tokenization_sentences_per_second": round(len(gold) / gold_tokens_seconds, 1),
        "load_seconds": round(load_seconds, 2),
        "size_mb": round(sum(f.stat().st_size for f in model_files(pipeline.parts.values())) / 1e6, 1),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    print(json.dumps(result, indent=2) if args.json else markdown(result))


def model_files(parts) -> set[Path]:
    """The files of a pipeline's parts, an ensemble part's members' included (the manifests name them)."""
    from lstmparse.pipeline.manifest import component_directories

    directories = {*parts, *(member for part in parts for member in component_directories(part))}
    return {f for directory in directories for f in Path(directory).iterdir() if f.is_file()}


def markdown(result: dict) -> str:
    search = f", beam {result['beam']}" if result["beam"] > 1 else ""
    lines = [f"{result['model']}{search} on {result['gold']} ({result['gold_sentences']} sentences)", ""]
    lines += ["| input | " + " | ".join(MEASURES) + " |", "|---" * (len(MEASURES) + 1) + "|"]
    lines.append("| raw text | " + " | ".join(f"{result['raw'][m]:.2f}" for m in MEASURES) + " |")
    gold = result["gold_tokenization"]
    lines.append(
        "| gold tokens, tags blanked | 100 | 100 | 100 | " + " | ".join(f"{gold[m]:.2f}" for m in MEASURES[3:]) + " |"
    )
    lines += ["", "| stage | seconds | sentences/s |", "|---|---|---|"]
    found = result["sentences_found"]
    for stage, seconds in result["stage_seconds"].items():
        lines.append(f"| {stage} | {seconds:.2f} | {found / max(seconds, 1e-9):.0f} |")
    lines.append(
        f"| raw text to trees | {sum(result['stage_seconds'].values()):.2f} | {result['raw_sentences_per_second']:.0f} "
        f"({result['raw_gold_sentences_per_second']:.0f} counting gold sentences) |"
    )
    lines.append(f"| gold tokens to trees (tag, parse) | | {result['gold_tokenization_sentences_per_second']:.0f} |")
    lines.append("")
    lines.append(
        f"model {result['size_mb']} MB on disk, loaded in {result['load_seconds']} s; "
        f"peak RSS {result['peak_rss_mib']} MiB"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
