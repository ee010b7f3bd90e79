"""What the Python APIs accept as sentences: ``Sentence`` objects or lists of word forms, checked.

Every family's ``parse`` takes the same inputs, so that a user can hand the same
lists to a dependency and a constituency parser.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from lstmparse.io.formats import Sentence


def as_sentence(sentence: Sentence | Sequence[str], number: int = 0) -> Sentence:
    """A ``Sentence``, or a list of word forms checked and made into one.

    A word form is a string with a character other than white space and without
    tab or line break (CoNLL-U could not hold it); a string given where a sentence
    belongs is refused rather than parsed as one-character words.
    """
    if isinstance(sentence, Sentence):
        return sentence
    where = f"sentence {number}" if number else "a sentence"
    if isinstance(sentence, str) or not isinstance(sentence, Sequence):
        raise TypeError(
            f"{where} is a {type(sentence).__name__}; a sentence is a list of word forms, "
            f"such as {str(sentence).split()[:3]!r}"
        )
    if not sentence:
        raise ValueError(f"{where} has no words")
    for position, form in enumerate(sentence, start=1):
        if not isinstance(form, str):
            raise TypeError(f"word {position} of {where} is a {type(form).__name__}, not a string")
        if not form.strip() or any(c in form for c in "\t\n\r"):
            raise ValueError(
                f"word {position} of {where} is {form!r}: words are not empty or white space, without tab or newline"
            )
    return Sentence.from_forms(list(sentence))


def checked_text(text: object) -> str:
    """Raw text as the APIs take it: a string (anything else is refused with a message saying so)."""
    if not isinstance(text, str):
        raise TypeError(f"raw text is a str; got {type(text).__name__}")
    return text


def checked_sentences(sentences: Iterable[Sentence | Sequence[str]]) -> Iterator[Sentence]:
    """The input, checked sentence by sentence as it is read; a single string is refused at once."""
    if isinstance(sentences, (str, Sentence)):
        raise TypeError(
            "parse() takes an iterable of sentences, each a Sentence or a list of word forms; "
            f"got one {type(sentences).__name__} (for text, parse([text.split()]))"
        )
    return (as_sentence(sentence, number) for number, sentence in enumerate(sentences, start=1))
