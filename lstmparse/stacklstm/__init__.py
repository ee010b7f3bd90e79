"""The stack-LSTM transition parser (Dyer et al. 2015; Ballesteros et al. 2017).

``model`` holds the network (section 3 of Dyer et al.: stack LSTMs, composition,
parser state), ``tokens`` the token vectors (section 3.3), ``systems`` the
transition systems with their oracles, ``decoding`` greedy and beam search in
lock-step, ``oracle`` the training examples, ``training`` the family's hooks for
the shared training loop, ``api`` the loaded parser users call.
"""
