"""DyNet configuration: memory, seed, autobatching, weight decay and GPU.

DyNet reads its settings once, when ``dynet`` is first imported, so they have to be
in place before any model module is imported.  Importing :mod:`lstmparse` puts the
toolkit's defaults in place (small memory pools instead of DyNet's 1.5 GiB); call
:func:`configure` before the first import of a model module to change them.
"""

from __future__ import annotations

import os
import random
import sys

import dynet_config
import numpy as np

DEFAULT_MEMORY_MB = 256  # DyNet grows its pools on demand; this is the initial size.


def configure(
    seed: int | None = None,
    memory_mb: int = DEFAULT_MEMORY_MB,
    autobatch: bool = False,
    weight_decay: float = 0.0,
) -> None:
    """Set DyNet's global options and seed Python's and NumPy's generators too.

    A ``seed`` of None leaves all three generators unseeded.  DyNet's settings can
    only be set before ``dynet`` is imported; afterwards only the Python and NumPy
    seeds change and a warning says so.
    """
    if seed is not None:
        random.seed(seed)
        np.random.seed(seed)
    if "dynet" in sys.modules:
        if dynet_config.get() != _settings(seed, memory_mb, autobatch, weight_decay):
            print("lstmparse: DyNet was already imported; its settings stay as they were", file=sys.stderr)
        return
    dynet_config.set(
        mem=str(memory_mb),
        random_seed=_dynet_seed(seed),
        autobatch=int(autobatch),
        weight_decay=weight_decay,
    )


def _dynet_seed(seed: int | None) -> int:
    # DyNet treats seed 0 as "pick one at random"; map a user's 0 to a fixed value.
    if seed is None:
        return 0
    return seed if seed != 0 else 2**31 - 1


def _settings(seed: int | None, memory_mb: int, autobatch: bool, weight_decay: float) -> dict:
    current = dict(dynet_config.get() or {})
    current.update(mem=str(memory_mb), seed=_dynet_seed(seed), autobatch=int(autobatch), weight_decay=weight_decay)
    return current


def configure_from_environment() -> None:
    """Defaults for library users, overridable through ``LSTMPARSE_SEED``/``LSTMPARSE_MEMORY_MB``."""
    if "dynet" in sys.modules or dynet_config.get() is not None:
        return
    seed = os.environ.get("LSTMPARSE_SEED")
    configure(
        seed=int(seed) if seed else None,
        memory_mb=int(os.environ.get("LSTMPARSE_MEMORY_MB", DEFAULT_MEMORY_MB)),
    )
