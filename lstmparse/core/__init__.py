"""The training core every model family stands on, free of any one family.

Holds DyNet's one explicit configuration (``backend``), the registry of model families
(``families``: their parts named by import path, so reading it imports none), the
options every run shares (``options``), vocabularies (``vocab``), windows and batches of
sentences (``batching``), the one training loop (``training``), model directories
(``model_io``: atomic saves, formats 1 and 2, where models are found), a packaged
pretrained table named in a model rather than stored (``packaged_tables``), ensembles'
manifests (``ensembles``) and worker processes that leave Ctrl-C to their parent
(``processes``).

May import: :mod:`lstmparse.errors` and :mod:`lstmparse.io`; a family package only
through the registry's ``"module:attribute"`` references, resolved when used.
"""
