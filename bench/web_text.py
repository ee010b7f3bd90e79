"""How the default pipeline handles web text on EWT dev: URLs, e-mail addresses, emoji and symbols, hyphenated
words, names with an apostrophe, abbreviations (issue 45's findings), measured on the gold tokens of each kind.

    OMP_NUM_THREADS=1 taskset -c 0 python bench/web_text.py --gold ../shared/data/ud/en_ewt/dev.conllu

For each kind: how many gold tokens EWT dev has, the share the tokenizer finds exactly
(same characters, as one token) from the rebuilt raw text, the share the tagger gives the
gold UPOS on gold tokens (tag columns blanked), and the share of lemmas it gets right.
Dev only: test is not read.

EWT has almost no emoji (none in train), so a last row puts them where EWT dev has an
emoticon (`:)` as 🙂, `:(` as 🙁, ...), whose gold tags (SYM, NFP) stay: the share of
those the tagger tags as EWT tags the emoticon.  ``--tagger DIR`` measures another tagger
in the pipeline's place.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter

from lstmparse.core import backend

KINDS = {
    "URL": re.compile(r"^(https?://|www\.)\S+$|^\S+\.(com|org|net|edu|gov|html?)(/\S*)?$", re.IGNORECASE),
    "e-mail": re.compile(r"^[\w.+-]+@[\w-]+(\.[\w-]+)+$"),
    "emoji or symbol": re.compile(r"^[^\w\s.,;:!?'\"()\[\]-]+$"),
    "hyphenated": re.compile(r"^[A-Za-z]+(-[A-Za-z]+)+$"),
    "apostrophe in a name": re.compile(r"^[A-Z][a-z]*'[A-Z][a-z]+$"),
    "abbreviation with periods": re.compile(r"^([A-Za-z]\.){2,}$|^(Mr|Mrs|Ms|Dr|St|Jr|Inc|Ltd|Co|etc|vs)\.$"),
}


EMOJI_FOR_EMOTICON = {":)": "🙂", ":-)": "🙂", ";)": "😉", ";-)": "😉", ":(": "🙁", ":-(": "🙁", ":P": "😛", ":D": "😀"}


def kind_of(form: str) -> str | None:
    return next((name for name, pattern in KINDS.items() if pattern.match(form)), None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gold", required=True)
    parser.add_argument("--model", default="en_ewt_pipeline")
    parser.add_argument("--tagger", help="a tagger directory to measure in place of the pipeline's")
    args = parser.parse_args()
    backend.configure(seed=1, memory_mb=256)
    from lstmparse.app.accuracy import blank_columns
    from lstmparse.app.catalog import resolve_model
    from lstmparse.io.formats import TAG_COLUMNS, read_sentences
    from lstmparse.pipeline.api import Pipeline
    from lstmparse.tokenizer.api import RawParagraph
    from lstmparse.tokenizer.data import paragraphs, surface_tokens

    gold = list(read_sentences(args.gold))
    pipeline = Pipeline.load(resolve_model(args.model))
    if args.tagger:
        from lstmparse.tagger.api import POSTagger

        pipeline.tagger = POSTagger.load(args.tagger)
    # tokenization: each kind's gold tokens against the tokens the tokenizer made of the rebuilt raw text
    found: Counter[str] = Counter()
    total: Counter[str] = Counter()
    texts = [p.text for p in paragraphs(gold)]
    system = list(pipeline.tokenizer.tokenize_paragraphs([RawParagraph(t) for t in texts]))
    system_forms = Counter(t.form for s in system for t in surface_tokens(s))
    for sentence in gold:
        for token in surface_tokens(sentence):
            kind = kind_of(token.form)
            if kind:
                total[kind] += 1
    for kind in total:
        gold_forms = Counter(t.form for s in gold for t in surface_tokens(s) if kind_of(t.form) == kind)
        found[kind] = sum(min(count, system_forms[form]) for form, count in gold_forms.items())
    tagged = list(pipeline.tag(blank_columns(gold, list(TAG_COLUMNS))))
    upos: Counter[str] = Counter()
    lemma: Counter[str] = Counter()
    words: Counter[str] = Counter()
    for gold_sentence, tagged_sentence in zip(gold, tagged, strict=True):
        for g, t in zip(gold_sentence.tokens, tagged_sentence.tokens, strict=True):
            kind = kind_of(g.form)
            if kind:
                words[kind] += 1
                upos[kind] += g.upos == t.upos
                lemma[kind] += g.lemma == t.lemma
    print("| kind | gold tokens | found whole by the tokenizer | UPOS right | lemma right |")
    print("|---|---|---|---|---|")
    for kind in KINDS:
        if total[kind]:
            print(
                f"| {kind} | {total[kind]} | {100 * found[kind] / total[kind]:.1f} % | "
                f"{100 * upos[kind] / max(words[kind], 1):.1f} % | {100 * lemma[kind] / max(words[kind], 1):.1f} % |"
            )
    emoji, upos_right, lemma_right = emoji_in_place_of_emoticons(pipeline, gold)
    if emoji:
        print(
            f"| emoji in place of an emoticon | {emoji} | | {100 * upos_right / emoji:.1f} % | "
            f"{100 * lemma_right / emoji:.1f} % (the emoji itself) |"
        )


def emoji_in_place_of_emoticons(pipeline, gold: list) -> tuple[int, int, int]:  # noqa: ANN001
    """How many emoticons EWT dev has, and of those written as emoji (word lists, so every column is tagged), how
    many take the emoticon's UPOS, and the emoji as lemma."""
    replaced = [[EMOJI_FOR_EMOTICON.get(form, form) for form in sentence.forms] for sentence in gold]
    tagged = list(pipeline.tagger.tag(replaced))
    count = upos = lemma = 0
    for gold_sentence, forms, sentence in zip(gold, replaced, tagged, strict=True):
        for g, form, t in zip(gold_sentence.tokens, forms, sentence.tokens, strict=True):
            if form != g.form:
                count += 1
                upos += t.upos == g.upos
                lemma += t.lemma == form
    return count, upos, lemma


if __name__ == "__main__":
    main()
