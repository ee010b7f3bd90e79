"""The stack-LSTM transition parser (Dyer et al. 2015; Ballesteros et al. 2017).

``model`` holds the network (section 3 of Dyer et al.: stack LSTMs, composition,
parser state), ``tokens`` the token vectors (section 3.3), ``systems`` the
transition systems (one module each), ``oracles`` the static and dynamic oracles,
``examples`` the training examples, ``lockstep`` parses advanced together in one
graph, ``decoding`` greedy and beam search on it, ``ensemble`` several parsers
decoded as one, ``batch_loss`` lock-step training, ``training`` the family's hooks
for the shared training loop, ``api`` the loaded parser users call, ``parallel``
parsing in worker processes.
"""

from lstmparse.core.backend import configure_defaults

# Before any module of this package imports DyNet: the toolkit's settings, not DyNet's own (a 512 MB pool
# and a random seed), for a user who imports it directly (a configure() call before this one wins).
configure_defaults()
