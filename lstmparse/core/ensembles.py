"""Ensembles' manifests: which model directories are an ensemble's members (read and written without DyNet).

An ensemble directory holds ``config.json``: ``{"arch": "seq2seq_ensemble"`` (or
``"stacklstm_ensemble"``, ``"tagger_ensemble"``), ``"members": [...]}``, the members' directories relative to
it (inside it, or beside it), so that an ensemble and its members move together
(``models/`` ships one this way).  Members are models of one family whose outputs
are the same symbols: seq2seq models with one output vocabulary, whose next-token
distributions are averaged; stack-LSTM parsers with one transition system and one
label set, whose action distributions are averaged; taggers with one set of tags,
features and lemma rules, whose distributions over each are averaged word by word.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

from lstmparse.core.model_io import CONFIG, atomic_write, load_directory, model_arch
from lstmparse.core.records import ModelRecord, read_record
from lstmparse.errors import ModelError

ENSEMBLE_OF = {  # member arch -> ensemble arch
    "seq2seq": "seq2seq_ensemble",
    "stacklstm": "stacklstm_ensemble",
    "tagger": "tagger_ensemble",
}
ARCHS = tuple(ENSEMBLE_OF.values())
SEQ2SEQ_ENSEMBLE, STACKLSTM_ENSEMBLE, TAGGER_ENSEMBLE = ARCHS
M = TypeVar("M")  # an ensemble's member model
TOO_FEW = "an ensemble needs at least two models"
TAGGER_OUTPUTS = ("upos", "xpos", "feats", "lemma")  # a tagger's output vocabularies, besides one per feature


def checked_members(members: Sequence[M], outputs: Callable[[M], Hashable], mismatch: str) -> list[M]:
    """``members`` as a list, if they make one ensemble: two or more, whose ``outputs`` (what is averaged) are equal;
    else a ModelError (``mismatch`` says what they must share)."""
    if len(members) < 2:
        raise ModelError(TOO_FEW)
    if len({outputs(member) for member in members}) > 1:
        raise ModelError(mismatch)
    return list(members)


def member_directories(source: str | Path | ModelRecord) -> list[Path]:
    """The directories of an ensemble's members, as its manifest names them."""
    record = read_record(source)
    path = record.path
    if record.problem is not None:
        raise ModelError(f"{path / CONFIG}: unreadable ensemble manifest ({record.problem})")
    members = record.config.get("members") if record.arch in ARCHS else None
    if not (
        isinstance(members, list)
        and len(members) >= 2
        and all(isinstance(member, str) and member for member in members)
    ):
        raise ModelError(
            f"{path}: not an ensemble manifest (arch {' or '.join(map(repr, ARCHS))} and two or more members)"
        )
    return [(path / member).resolve() for member in members]


def write_ensemble(members: Sequence[str | Path], output: str | Path) -> None:
    """Write the manifest of the ensemble of ``members`` in ``output`` (members named relative to it).

    Models that cannot form an ensemble (another family than the first member's, or
    other outputs: another vocabulary, transition system or label set) are refused,
    naming the model.
    """
    if len(members) < 2:
        raise ModelError(TOO_FEW)
    output = Path(output)
    arch = model_arch(members[0])
    if arch not in ENSEMBLE_OF:
        raise ModelError(f"{members[0]}: a {arch!r} model; ensembles are of seq2seq, stack-LSTM or tagger models")
    first = _outputs(members[0], arch)
    for member in members[1:]:
        if model_arch(member) != arch:
            raise ModelError(f"{member}: a {model_arch(member)!r} model; {members[0]} is a {arch!r} model")
        if _outputs(member, arch) != first:
            raise ModelError(f"{member}: its outputs differ from {members[0]}'s ({_WHAT_DIFFERS[arch]})")
    output.mkdir(parents=True, exist_ok=True)
    relative = [_relative(Path(member).resolve(), output.resolve()) for member in members]
    manifest = {"arch": ENSEMBLE_OF[arch], "members": relative}
    atomic_write(output / CONFIG, lambda handle: handle.write(json.dumps(manifest, indent=2).encode() + b"\n"))


_WHAT_DIFFERS = {
    "seq2seq": "other output tokens: trained on other data",
    "stacklstm": "another transition system, label set or pseudo-projective setting",
    "tagger": "other tags, features or lemma rules: trained on other data",
}


def _outputs(member: str | Path, arch: str) -> object:
    """What must be equal across members: the symbols whose distributions are averaged."""
    config, vocab, _ = load_directory(member)
    if arch == "seq2seq":
        return vocab.get("targets", {}).get("strings")
    if arch == "tagger":
        names = [name for name in vocab if name in TAGGER_OUTPUTS or name.startswith("feat:")]  # feat:NAME: a feature
        return {name: vocab[name].get("strings") for name in names}
    return [config.get(key) for key in ("system", "labels", "root_label", "pseudo_projective")]


def _relative(target: Path, start: Path) -> str:
    """``target`` as a path relative to ``start`` (with ``..`` where needed)."""
    return Path(os.path.relpath(target, start)).as_posix()


@dataclass(frozen=True)
class TagDistribution:
    """Another model's log-probabilities of one sentence's tags: (words x tags), ``tags`` naming the columns.

    What a joint-UPOS parser tells a tagger (``Pipeline.tag``), which averages it with its own.
    """

    tags: Sequence[str]
    log_probs: np.ndarray

    def over(self, strings: Sequence[str]) -> np.ndarray:
        """The log-probabilities as (``strings`` x words): a tag this model lacks gets -inf, one ``strings`` lacks
        is left out."""
        index = {tag: row for row, tag in enumerate(strings)}
        values = np.full((len(strings), len(self.log_probs)), -np.inf)
        for column, tag in enumerate(self.tags):
            if tag in index:
                values[index[tag]] = self.log_probs[:, column]
        return values


def log_softmax_columns(values: np.ndarray) -> np.ndarray:
    """Log-probabilities of (classes x words) scores, per column (a class scored -inf gets none)."""
    top = values.max(axis=0)
    return values - top - np.log(np.exp(values - top).sum(axis=0))


def mixture_log_probs(log_probs: list[np.ndarray]) -> np.ndarray:
    """The log of the mean of the members' probabilities (one member: its own log-probabilities; -inf stays)."""
    if len(log_probs) == 1:
        return log_probs[0]
    return np.logaddexp.reduce(np.stack(log_probs), axis=0) - np.log(len(log_probs))
