"""The e5 encoder's forward pass on one core: words per second by depth, and the BLAS kernel NumPy runs.

    python bench/encoder.py --input ../shared/data/ud/en_ewt/dev.conllu [--sentences 1000]

Word vectors of the file's sentences (gold tokens) with ``e5:L`` for the depths L
given (the pass runs layers 1 to L), one thread; each depth timed twice, the faster
kept (the first also fills the tokenizer's cache of words).  Prints a Markdown
table, and what ``threadpoolctl`` says NumPy's BLAS is (its kernel, "architecture",
decides the speed: OpenBLAS chooses it by the CPU, or by ``OPENBLAS_CORETYPE``).
"""

from __future__ import annotations

import argparse
import itertools
import os
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", required=True, help="a CoNLL-U file")
    parser.add_argument("--sentences", type=int, default=1000)
    parser.add_argument("--depths", default="6,9,12", help="layers run, comma-separated")
    args = parser.parse_args()
    from threadpoolctl import threadpool_info, threadpool_limits

    from lstmparse.io.formats import read_sentences
    from lstmparse.layers.encoders import word_encoder

    sentences = [s.forms for s in itertools.islice(read_sentences(args.input), args.sentences)]
    words = sum(map(len, sentences))
    blas = [f"{i['internal_api']} {i.get('version')} ({i.get('architecture')})" for i in threadpool_info()]
    print(f"NumPy's BLAS: {', '.join(blas)}; OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}")
    print(f"{len(sentences)} sentences, {words} words, one thread\n")
    print("| encoder | words/s | sentences/s |\n|---|---|---|")
    with threadpool_limits(1):
        for depth in args.depths.split(","):
            encoder = word_encoder(f"e5:{depth}")
            seconds = []
            for _ in range(2):
                began = time.perf_counter()
                encoder.word_vectors(sentences)
                seconds.append(time.perf_counter() - began)
            best = min(seconds)
            print(f"| e5:{depth} | {words / best:.0f} | {len(sentences) / best:.0f} |")


if __name__ == "__main__":
    main()
