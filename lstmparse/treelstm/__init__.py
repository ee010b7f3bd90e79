"""Top-down TreeLSTM and LdTreeLSTM (Zhang, Lu & Lapata 2016): a generative model of
dependency trees that scores, samples and reranks them.

``dependency_paths`` is the generation order (section 2.1), ``model`` the network
(sections 2.2 to 2.4), ``training`` its hooks for the shared loop, ``rerank`` k-best
reranking (section 4.3).
"""

from lstmparse.core.backend import configure_defaults

# Before any module of this package imports DyNet: the toolkit's settings, not DyNet's own (a 512 MB pool
# and a random seed), for a user who imports it directly (a configure() call before this one wins).
configure_defaults()
