"""Release tools: the remade models shipped into ``models/``, their cards, and the catalogue made of them.

``lstmparse release`` (``--help``) is how a release is made from a farm
run of ``models/remake.toml``:

- ``ship WORK_DIR``: each pipeline the run evaluated goes into ``models/NAME`` (the
  name its recipe gives), without the run's checkpoints and fold taggers, with a card
  of the one schema (:mod:`.cards`) and no path of the machine that made it; its row
  of figures goes into ``models/results.json``. A pipeline shipped before stays where
  the remade one's dev LAS from raw text is more than :data:`DEV_TOLERANCE` below its own.
- ``catalogue``: ``models/README.md``, made from the cards, recipes and results
  (:mod:`.catalogue`).
- ``table RESULTS``: a farm's results as Markdown tables (:mod:`.tables`).
"""

DEV_TOLERANCE = 0.5
"""LAS points (dev, raw text) a remade pipeline may lose against the shipped one and still replace it: about what a
second seed moves a pipeline's dev LAS by."""
