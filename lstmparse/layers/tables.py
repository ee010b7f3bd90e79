"""Word tables: a DyNet lookup parameter while a model trains, an array and a row cache once it is loaded to parse.

DyNet keeps every parameter's value *and* gradient, with bookkeeping per row: about
16 bytes per number.  The word and pretrained tables are most of a tagger's and a
parser's numbers (7.6 M of the default pipeline's 9.1 M), so a model loaded to parse
keeps them as the arrays its file holds (float16 for a half-precision model, 2 bytes
a number), and loading skips DyNet's slow copy of every number (about 40 ns each).

The rows a batch reads are copied into a small DyNet table that serves as a cache:
words follow Zipf's law, so after the first batches nearly every row is there, and
a batch reads it with DyNet's own lookup.  The vectors are the same numbers either
way (float16 and float32 values convert exactly), so the parses are the same.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

import dynet as dy
import numpy as np

from lstmparse.errors import ModelError

CACHED_ROWS = 4096  # rows of a loaded table kept in DyNet at a time (4096 x 100 numbers: about 6 MB)


class FrozenTable:
    """A lookup table that is never trained: a NumPy array, its recently read rows cached in a DyNet table."""

    def __init__(self, values: np.ndarray, cached_rows: int = CACHED_ROWS) -> None:
        self.values = values
        self.capacity = min(cached_rows, len(values))
        self._cache: dy.LookupParameters | None = None  # made on first use
        self._cache_model: dy.ParameterCollection | None = None
        self._slots: dict[int, int] = {}  # table row -> cache row
        self._graph = -1  # the computation graph whose expressions read the cache last

    def rows(self, ids: Sequence[int]) -> dy.Expression:
        """The rows ``ids`` as one batched expression, one batch element per id (as ``dy.lookup_batch``)."""
        ids = list(ids)
        missing = [i for i in dict.fromkeys(ids) if i not in self._slots]
        if len(self._slots) + len(missing) > self.capacity:
            if self._graph == dy.cg_version():  # this graph still reads the cached rows: none may be replaced
                return self._input(ids)
            self._slots.clear()
            missing = list(dict.fromkeys(ids))
            if len(missing) > self.capacity:
                return self._input(ids)
        cache = self._cache_table()
        for row in missing:
            slot = self._slots[row] = len(self._slots)
            cache.init_row(slot, self.values[row].astype(np.float32))
        self._graph = dy.cg_version()
        return dy.lookup_batch(cache, [self._slots[i] for i in ids], update=False)

    def _cache_table(self) -> dy.LookupParameters:
        if self._cache is None:
            self._cache_model = dy.ParameterCollection()
            self._cache = self._cache_model.add_lookup_parameters((self.capacity, self.values.shape[1]))
        return self._cache

    def _input(self, ids: list[int]) -> dy.Expression:
        """The rows given to the graph as input (slow: used only when a batch reads more rows than the cache holds)."""
        # float64: DyNet reads it faster than float32 (both convert exactly to the float32 it computes with)
        return dy.inputTensor(self.values[ids].T.astype(np.float64), batched=True)

    def as_array(self) -> np.ndarray:
        """The table in float32, as DyNet's ``as_array`` gives a table (and ``effective_values`` writes it)."""
        return self.values.astype(np.float32)


# A dy.LookupParameters (training) or a FrozenTable (loaded to parse); Any, as DyNet has no type information.
Table: TypeAlias = Any


def word_table(model: dy.ParameterCollection, name: str, shape: tuple[int, int], frozen: Mapping | None) -> Table:
    """A word table named ``name`` (its name in the model file): from ``frozen`` when given, else trainable.

    ``frozen`` holds the arrays of a model file that is loaded to parse; a table of
    another shape there is a damaged model.
    """
    if frozen is None:
        return model.add_lookup_parameters(shape)
    values = frozen.get(name)
    if values is None or tuple(values.shape) != tuple(shape):
        found = None if values is None else tuple(values.shape)
        raise ModelError(f"parameter {name}: expected shape {tuple(shape)}, found {found}")
    return FrozenTable(values)


def table_rows(table: Table, ids: Sequence[int], update: bool = True) -> dy.Expression:
    """Rows of a word table as one batched expression (``update=False``: a DyNet table's rows stay fixed)."""
    if isinstance(table, FrozenTable):
        return table.rows(ids)
    return dy.lookup_batch(table, ids, update=update)
