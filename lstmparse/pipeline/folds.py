"""The jack-knife's folds, free of DyNet: which training sentences each fold tagger learns from, and where.

Sentence ``i`` of the training set falls in fold ``i % k``; fold ``k``'s tagger is
trained on the other folds, written to ``MODEL_DIR/jackknife/fold-K.train.conllu``,
into ``MODEL_DIR/jackknife/fold-K``.  The pipeline trainer and the training farm
(which trains the fold taggers as jobs of their own, in parallel) share these
places, so that a pipeline run reuses fold taggers trained beforehand.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lstmparse.core.model_io import atomic_write
from lstmparse.io.formats import Sentence, read_sentences

JACKKNIFE_DIRECTORY = "jackknife"  # under the model directory: the folds' tagged training data
FOLD_EPOCHS = "fold_epochs.json"  # in it: the epochs each fold tagger ran, kept when the fold taggers go


def jackknife_directory(model_dir: str | Path) -> Path:
    return Path(model_dir) / JACKKNIFE_DIRECTORY


def fold_tagger_directory(model_dir: str | Path, fold: int) -> Path:
    """Where fold ``fold``'s tagger (numbered from 1) is trained."""
    return jackknife_directory(model_dir) / f"fold-{fold}"


def fold_training_file(model_dir: str | Path, fold: int) -> Path:
    """The training file of fold ``fold``'s tagger: every other fold's sentences."""
    return jackknife_directory(model_dir) / f"fold-{fold}.train.conllu"


def split_folds(sentences: Sequence[Sentence], folds: int) -> list[list[Sentence]]:
    """The training sentences cut into ``folds`` folds, sentence ``i`` in fold ``i % folds``."""
    return [list(sentences[k::folds]) for k in range(folds)]


def write_fold_training_file(model_dir: str | Path, split: Sequence[Sequence[Sentence]], fold: int) -> Path:
    """Write fold ``fold``'s training file (the other folds, in order) and return its path."""
    path = fold_training_file(model_dir, fold)
    path.parent.mkdir(parents=True, exist_ok=True)
    others = (s for j, other in enumerate(split) if j != fold - 1 for s in other)
    write_sentences(path, others)
    return path


def write_all_fold_training_files(model_dir: str | Path, train: str, folds: int) -> list[Path]:
    """Every fold's training file, for taggers trained outside the pipeline trainer (the farm's fold jobs)."""
    split = split_folds(list(read_sentences(train)), folds)
    return [write_fold_training_file(model_dir, split, k + 1) for k in range(folds)]


def write_sentences(path: Path, sentences) -> None:
    """Sentences as CoNLL-U, written to a temporary file and renamed."""
    atomic_write(path, lambda handle: [handle.write(s.to_conllu().encode("utf-8")) for s in sentences])


def fold_epochs(model_dir: str | Path) -> dict[str, int]:
    """The epochs each fold tagger of a pipeline ran (``{"fold-1": 58, ...}``), as recorded before they were removed;
    empty for a pipeline trained without folds (or before the record)."""
    import json

    path = jackknife_directory(model_dir) / FOLD_EPOCHS
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
