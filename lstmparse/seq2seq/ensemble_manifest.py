"""An ensemble's manifest: which seq2seq model directories are its members (read and written without DyNet).

An ensemble directory holds ``config.json``: ``{"arch": "seq2seq_ensemble",
"members": [...]}``, the members' directories relative to it (inside it, or beside
it), so that an ensemble and its members move together (``models/`` ships one this
way).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from lstmparse.errors import ModelError
from lstmparse.model_io import CONFIG, atomic_write, load_directory, read_manifest

ARCH = "seq2seq_ensemble"
MEMBER_ARCH = "seq2seq"


def member_directories(path: str | Path) -> list[Path]:
    """The directories of an ensemble's members, as its manifest names them."""
    path = Path(path)
    members = read_manifest(path, ARCH, "ensemble").get("members")
    valid = (
        isinstance(members, list)
        and len(members) >= 2
        and all(isinstance(member, str) and member for member in members)
    )
    if not valid:
        raise ModelError(f"{path}: not an ensemble manifest (arch {ARCH!r} and two or more member directories)")
    return [(path / member).resolve() for member in members]


def write_ensemble(members: list[str | Path], output: str | Path) -> None:
    """Write the manifest of the ensemble of ``members`` (seq2seq models with one output vocabulary) in ``output``.

    Members are named relative to ``output``.  Models that cannot form an ensemble
    (another architecture, or other output tokens) are refused, naming the model.
    """
    if len(members) < 2:
        raise ModelError("an ensemble needs at least two models")
    output = Path(output)
    first_targets = None
    for member in members:
        config, vocab, _ = load_directory(member)
        if config.get("arch") != MEMBER_ARCH:
            raise ModelError(f"{member}: a {config.get('arch')!r} model; an ensemble's members are seq2seq models")
        targets = vocab.get("targets", {}).get("strings")
        if first_targets is None:
            first_targets = targets
        elif targets != first_targets:
            raise ModelError(f"{member}: its output tokens differ from {members[0]}'s (trained on other data)")
    output.mkdir(parents=True, exist_ok=True)
    relative = [_relative(Path(member).resolve(), output.resolve()) for member in members]
    manifest = {"arch": ARCH, "members": relative}
    atomic_write(output / CONFIG, lambda handle: handle.write(json.dumps(manifest, indent=2).encode() + b"\n"))


def _relative(target: Path, start: Path) -> str:
    """``target`` as a path relative to ``start`` (with ``..`` where needed)."""
    return Path(os.path.relpath(target, start)).as_posix()
