"""Shared fixtures: DyNet is configured (seeded) before any test imports it."""

from __future__ import annotations

from pathlib import Path

import pytest

from lstmparse import backend

backend.configure(seed=1, memory_mb=256)

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
EWT = DATA / "ud" / "en_ewt"
HU = DATA / "ud" / "hu_szeged"


def first_sentences(path: Path, count: int) -> str:
    """The first ``count`` sentence blocks of a CoNLL-U file, as text."""
    blocks = path.read_text(encoding="utf-8").split("\n\n")
    return "\n\n".join(blocks[:count]) + "\n\n"


@pytest.fixture(scope="session")
def ewt() -> Path:
    if not EWT.is_dir():
        pytest.fail(f"{EWT} is missing: the tests read the shared treebanks (see data/README.md)")
    return EWT


@pytest.fixture(scope="session")
def small_treebank(tmp_path_factory, ewt) -> dict[str, Path]:
    """200 training and 50 dev sentences cut from EWT."""
    folder = tmp_path_factory.mktemp("small")
    train = folder / "train.conllu"
    dev = folder / "dev.conllu"
    train.write_text(first_sentences(ewt / "train.conllu", 200), encoding="utf-8")
    dev.write_text(first_sentences(ewt / "dev.conllu", 50), encoding="utf-8")
    return {"train": train, "dev": dev}
