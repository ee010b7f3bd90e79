"""Part-of-speech and morphological tagging: UPOS, XPOS and FEATS from one bi-LSTM over the sentence.

Each word's vector is a learned word embedding, the shared character bi-LSTM's
vector (:mod:`lstmparse.layers.chars`) and optionally a fixed pretrained vector; a
two-layer bi-LSTM reads the sentence and one linear layer per column predicts the
word's UPOS, XPOS and FEATS (the whole Feature=Value string as one class, as
UDPipe 1 does).  It fills the tag columns a tag-reading parser needs
(:mod:`lstmparse.pipeline`).
"""

from lstmparse.core.backend import configure_defaults

# Before any module of this package imports DyNet: the toolkit's settings, not DyNet's own (a 512 MB pool
# and a random seed), for a user who imports it directly (a configure() call before this one wins).
configure_defaults()
