"""A pipeline's manifest: which model directories are its parts (read without DyNet)."""

from __future__ import annotations

from pathlib import Path

from lstmparse.core.ensembles import ARCHS as ENSEMBLE_ARCHS
from lstmparse.core.ensembles import STACKLSTM_ENSEMBLE, TAGGER_ENSEMBLE, member_directories
from lstmparse.core.model_io import CONFIG, DEFAULT_MODEL, model_arch, read_manifest
from lstmparse.core.records import ModelRecord, directory_of
from lstmparse.errors import ModelError

ARCH = "pipeline"
PARTS = ("tokenizer", "tagger", "parser")
PART_ARCHS = {
    "stacklstm": "parser",
    STACKLSTM_ENSEMBLE: "parser",
    "tagger": "tagger",
    TAGGER_ENSEMBLE: "tagger",
    "tokenizer": "tokenizer",
}

TAGGERS_DIRECTORY = "tagger_ensemble"  # a pipeline trained with --taggers N keeps its taggers' ensemble here
JOINT_PARSER = "parser_joint"  # a pipeline trained with --joint-member keeps its joint-UPOS parser here
PARSERS_DIRECTORY = "parser_ensemble"  # and the ensemble of its two parsers here


def tagger_member(k: int) -> str:
    """The directory of the ``k``-th tagger (from 1) of a pipeline trained with ``--taggers``: tagger, tagger_2, ..."""
    return "tagger" if k == 1 else f"tagger_{k}"


def part_directories(source: str | Path | ModelRecord) -> dict[str, Path]:
    """The directories of a pipeline's parts, as its manifest names them (relative to it)."""
    path = directory_of(source)
    parts = read_manifest(source, ARCH, "pipeline").get("parts")
    if not (
        isinstance(parts, dict)
        and "parser" in parts
        and all(isinstance(directory, str) and directory for directory in parts.values())
    ):
        raise ModelError(f"{path}: not a pipeline manifest (arch 'pipeline' and parts naming a parser directory)")
    unknown = set(parts) - set(PARTS)
    if unknown:
        raise ModelError(f"{path / CONFIG}: unknown parts {sorted(unknown)}; a pipeline has {', '.join(PARTS)}")
    return {name: (path / directory).resolve() for name, directory in parts.items()}


def component_directories(directory: str | Path) -> list[Path]:
    """The directories whose parameters a model reads: a pipeline's parts, an ensemble's members, else its own.

    A broken manifest raises :class:`ModelError` (the manifest readers' message).
    """
    arch = model_arch(directory)
    if arch == ARCH:  # a part may itself be an ensemble
        return [found for part in part_directories(directory).values() for found in component_directories(part)]
    if arch in ENSEMBLE_ARCHS:
        return member_directories(directory)
    return [Path(directory)]


def decoding_beam(source: str | Path | ModelRecord) -> int:
    """The beam a pipeline's parser decodes with unless told otherwise: its manifest's ``decoding``, chosen on dev
    when the pipeline was trained (:mod:`lstmparse.pipeline.choices`); 1 (greedy) for a manifest without one and
    for a model that is not a pipeline."""
    decoding = read_manifest(source, ARCH, "pipeline").get("decoding", {})
    beam = decoding.get("beam", 1) if isinstance(decoding, dict) else decoding
    if not isinstance(beam, int) or isinstance(beam, bool) or beam < 1:
        raise ModelError(f"{directory_of(source) / CONFIG}: decoding beam {beam!r} is not a whole number of at least 1")
    return beam


def default_tokenizer() -> Path:
    """The default pipeline's tokenizer: it splits raw text for models that have no tokenizer (constituency)."""
    return part_directories(DEFAULT_MODEL)["tokenizer"]
