"""Sequence-to-sequence constituency parsing with attention (Vinyals et al. 2015,
"Grammar as a Foreign Language").

``linearization`` turns trees into target sequences and back (section 2), ``model``
the encoder, attention decoder and beam search (sections 2 and 3), ``training`` its
hooks for the shared loop, ``api`` the loaded parser users call.
"""

from lstmparse.core.backend import configure_defaults

# Before any module of this package imports DyNet: the toolkit's settings, not DyNet's own (a 512 MB pool
# and a random seed), for a user who imports it directly (a configure() call before this one wins).
configure_defaults()
