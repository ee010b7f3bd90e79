"""Tokenization, multi-word tokens and sentence splitting of raw text (as UDPipe and Stanza do).

A character bi-LSTM labels every character of a paragraph: not the end of a
token, the end of a token, the end of a multi-word token, and either of the two
also ending a sentence (:mod:`lstmparse.tokenizer.model`).  It learns from any UD
treebank: the text is rebuilt from the token lines and ``SpaceAfter=No``
(:mod:`lstmparse.tokenizer.data`).  A multi-word token is split into its syntactic
words by what training showed (:mod:`lstmparse.tokenizer.words`): the words of a
known token, copying the token's own spelling where the words spell it; an unseen
one by the longest word ending seen at the end of such tokens (English ``'s``,
``n't``); otherwise it stays one word.
"""

from lstmparse.core.backend import configure_defaults

# Before any module of this package imports DyNet: the toolkit's settings, not DyNet's own (a 512 MB pool
# and a random seed), for a user who imports it directly (a configure() call before this one wins).
configure_defaults()
