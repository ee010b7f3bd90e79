"""Text unlike what a model was trained on, noticed from what tagging reads anyway: unknown words and characters.

A tagger knows its training words with their counts and its characters.  On text
like its training data, the share of words it has never seen is about the share of
training words seen once (Good and Turing's estimate: 4.8 % for EWT; EWT dev has
7 %); on another language it is far higher (French, Afrikaans and Welsh 64 to 71 %
with the English tagger; Greek, Uyghur, Tamil and Coptic about 90 %, with 96 to 98 %
of their characters unknown too).  Over the first :data:`WORDS_WATCHED` words, a
share of unknown words above ``max(MIN_UNKNOWN_WORDS, FACTOR x the estimate)`` (on at
least :data:`MIN_WORDS_FOR_WORDS` words) or of unknown characters above
:data:`MAX_UNKNOWN_CHARACTERS` (on at least :data:`MIN_WORDS`) raises one
:class:`~lstmparse.errors.UnfamiliarTextWarning` (the command line prints it as one
line on stderr) instead of a silent parse into garbage.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator

from lstmparse.core.vocab import Vocabulary
from lstmparse.errors import UnfamiliarTextWarning
from lstmparse.io.formats import Sentence

WORDS_WATCHED = 2000  # words read before judging (or the whole input, if shorter)
MIN_WORDS = 20  # fewer words than this are not judged at all: a short greeting is no evidence
MIN_WORDS_FOR_WORDS = 100  # unknown words are judged on this many words (a paragraph of names is no evidence)
MIN_UNKNOWN_WORDS = 0.35
FACTOR = 5.0
MAX_UNKNOWN_CHARACTERS = 0.05


def expected_unknown_share(words: Vocabulary) -> float:
    """Good and Turing's estimate of the share of unseen words in text like the training data."""
    total = sum(words.counts.values())
    return sum(1 for count in words.counts.values() if count == 1) / total if total else 0.0


def watched(
    sentences: Iterable[Sentence], words: Vocabulary, chars: Vocabulary, model: str, expected: float
) -> Iterator[Sentence]:
    """The sentences, unchanged; once enough words were read (or at the end), a warning if the text looks foreign.

    ``expected``: :func:`expected_unknown_share` of ``words`` (computed once per model by the caller).
    """
    seen = unknown = characters = unknown_characters = 0
    judged = False
    for sentence in sentences:
        if not judged:
            for token in sentence.tokens:
                seen += 1
                unknown += token.form not in words and token.form.lower() not in words
                characters += len(token.form)
                unknown_characters += sum(char not in chars for char in token.form)
            if seen >= WORDS_WATCHED:
                judged = True
                _judge(seen, unknown, characters, unknown_characters, expected, model)
        yield sentence
    if not judged:
        _judge(seen, unknown, characters, unknown_characters, expected, model)


def _judge(seen: int, unknown: int, characters: int, unknown_characters: int, expected: float, model: str) -> None:
    if seen < MIN_WORDS:
        return
    word_share, char_share = unknown / seen, unknown_characters / max(characters, 1)
    foreign_words = seen >= MIN_WORDS_FOR_WORDS and word_share > max(MIN_UNKNOWN_WORDS, FACTOR * expected)
    if foreign_words or char_share > MAX_UNKNOWN_CHARACTERS:
        warnings.warn(
            f"the text looks unlike what {model} was trained on: {100 * word_share:.0f}% of its words and "
            f"{100 * char_share:.1f}% of its characters are unknown to it (about {100 * expected:.0f}% of the words "
            "of text like its training data); a model of the text's language parses it better "
            "(lstmparse models lists them)",
            UnfamiliarTextWarning,
            stacklevel=3,
        )
