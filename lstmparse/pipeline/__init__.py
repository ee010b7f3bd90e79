"""Raw text to trees: the tokenizer, the tagger and a tag-reading parser, loaded as one model.

A pipeline model directory is a small manifest (``config.json`` with ``"arch":
"pipeline"``) naming its parts' directories, relative to itself; ``lstmparse train
--arch pipeline`` builds one from a treebank (:mod:`lstmparse.pipeline.training`).
"""
