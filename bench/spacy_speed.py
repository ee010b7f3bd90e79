"""spaCy's nlp.pipe against lstmparse parse on the same raw text, one process, one core (make bench-spacy).

    OMP_NUM_THREADS=1 taskset -c 0 python bench/spacy_speed.py --gold ../shared/data/ud/en_ewt/test.conllu

The raw text is the gold file's paragraphs (as ``lstmparse evaluate --from raw`` rebuilds
them). Both runs use one loaded model: the toolkit's own path (tokenize every paragraph,
tag and parse in lock-step batches, as ``lstmparse parse --input-format raw`` does), then
``lstmparse.spacy``'s ``nlp.pipe(texts, batch_size=...)``; process time, sentences/s and
their ratio are printed (the target is at least 0.8), and both must find the same trees.
"""

from __future__ import annotations

import argparse
import time

from lstmparse.core import backend


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gold", required=True)
    parser.add_argument("--model", default="en_ewt_pipeline")
    parser.add_argument("--batch-size", type=int, default=256, help="documents per nlp.pipe batch")
    args = parser.parse_args()
    backend.configure(seed=1, memory_mb=256)
    import lstmparse.spacy
    from lstmparse.io.formats import read_sentences
    from lstmparse.tokenizer.api import RawParagraph
    from lstmparse.tokenizer.data import paragraphs

    texts = [p.text for p in paragraphs(list(read_sentences(args.gold)))]
    nlp = lstmparse.spacy.load(args.model)
    pipeline = nlp.get_pipe("lstmparse").pipeline
    start = time.process_time()
    ours = list(pipeline.parse(pipeline.tokenizer.tokenize_paragraphs([RawParagraph(t) for t in texts])))
    toolkit_seconds = time.process_time() - start
    start = time.process_time()
    docs = list(nlp.pipe(texts, batch_size=args.batch_size))
    spacy_seconds = time.process_time() - start
    theirs = [sentence for doc in docs for sentence in doc._.lstmparse_sentences]
    same = [(s.heads, s.deprels) for s in ours] == [(s.heads, s.deprels) for s in theirs]
    sentences = len(ours)
    print("| path | seconds | sentences/s |\n|---|---|---|")
    print(f"| lstmparse parse (raw text) | {toolkit_seconds:.2f} | {sentences / toolkit_seconds:.0f} |")
    print(f"| spaCy nlp.pipe (batch {args.batch_size}) | {spacy_seconds:.2f} | {sentences / spacy_seconds:.0f} |")
    print(
        f"\n{len(texts)} paragraphs, {sentences} sentences; spaCy / lstmparse speed: "
        f"{toolkit_seconds / spacy_seconds:.2f} (target >= 0.8); same trees: {same}"
    )


if __name__ == "__main__":
    main()
