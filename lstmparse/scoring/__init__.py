"""How good a parse is: scores against gold trees.

Holds UAS/LAS/CLAS on gold tokens (``evaluation``), the CoNLL 2018 shared task's F1
measures with words aligned whatever the tokenization (``conll18``) and labelled
brackets as EVALB counts them (``evalb``).

May import: :mod:`lstmparse.errors` and :mod:`lstmparse.io`; never a model family (a
scorer judges any system's output, lstmparse's or another toolkit's).
"""
