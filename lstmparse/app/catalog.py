"""Models by name: ``--model en_ewt_upos`` and ``lstmparse.load("en_ewt_upos")`` from any directory.

A name is looked up, in order, in each directory of ``LSTMPARSE_MODELS`` (a list
separated by ``os.pathsep``, for a user's own models), the checkout's ``models/``
and the installed copy (``<prefix>/share/lstmparse/models``).  A path that exists is
used as it is, so every existing command line keeps working.  A model directory may
hold a ``card.json`` (``language``, ``data``, ``task``, ``figures``) that
``lstmparse models`` shows; without one the task comes from ``config.json``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from lstmparse.core.families import BY_ARCH
from lstmparse.core.languages import pipelines_of_language
from lstmparse.core.model_io import CARD, CONFIG, model_arch, model_search_path
from lstmparse.errors import ConfigurationError, ModelError
from lstmparse.pipeline.choices import reasons
from lstmparse.pipeline.manifest import component_directories


def search_path() -> list[Path]:
    """The directories that hold models by name (those that exist), first match wins."""
    return [directory for directory in model_search_path() if directory.is_dir()]


def resolve_model(name_or_path: str | Path) -> Path:
    """The model directory a name or a path means; a name that is nowhere raises :class:`ModelError`."""
    path = Path(name_or_path)
    if path.is_dir():
        return path
    if not path.is_absolute():
        for directory in search_path():
            if (directory / path / CONFIG).is_file():
                return directory / path
        by_language = pipelines_of_language(str(name_or_path))
        if by_language:  # a language code: its pipeline (``--model fr``)
            return next(d / by_language[0] for d in search_path() if (d / by_language[0] / CONFIG).is_file())
    places = ", ".join(str(d) for d in search_path()) or "no model directory"
    raise ModelError(
        f"{name_or_path}: no such model directory, nor a model of that name in {places} "
        "(`lstmparse models` lists them; LSTMPARSE_MODELS adds directories)"
    )


@dataclass(frozen=True)
class ModelInfo:
    """What ``lstmparse models`` says of one model."""

    name: str
    path: Path
    task: str
    language: str
    size_mb: float
    figures: str
    licence: str = ""
    card: dict = field(default_factory=dict)  # everything the model's card.json says

    @property
    def non_commercial(self) -> bool:
        """Trained on data whose licence allows non-commercial use only (the model carries it)."""
        return "non-commercial" in self.licence.lower() or "-nc" in self.licence.lower()


def available_models() -> list[ModelInfo]:
    """Every model reachable by name (a name shadowed by an earlier directory is listed once)."""
    found: dict[str, ModelInfo] = {}
    for directory in search_path():
        for candidate in sorted(directory.iterdir()):
            if candidate.name not in found and (candidate / CONFIG).is_file():
                found[candidate.name] = model_info(candidate)
    return list(found.values())


def language_roles(found: list[ModelInfo]) -> dict[str, str]:
    """For a language with two or more pipelines whose cards give raw-text test LAS and speed: which is the
    fastest, which the most accurate, and which its code picks (``--model LANG``)."""
    from lstmparse.core.languages import by_language_rule, card_las_and_speed

    roles: dict[str, str] = {}
    languages = {info.language for info in found}
    for language in languages:
        measured = {i.name: i.card for i in found if i.language == language and card_las_and_speed(i.card)}
        if len(measured) < 2:
            continue
        figures = {name: card_las_and_speed(card) for name, card in measured.items()}
        fastest = max(figures, key=lambda name: figures[name][1])  # type: ignore[index]
        accurate = max(figures, key=lambda name: figures[name][0])  # type: ignore[index]
        picked = by_language_rule(measured)[0]
        for name in measured:
            labels = [label for label, who in (("fastest", fastest), ("most accurate", accurate)) if who == name]
            roles[name] = ", ".join(labels + ([f"--model {language}"] if name == picked else []))
    return roles


def model_info(directory: Path) -> ModelInfo:
    """A model's card, completed from its configuration and its files' size."""
    card = _read_card(directory)
    return ModelInfo(
        name=directory.name,
        path=directory,
        task=card.get("task") or _task(model_arch(directory)),
        language=card.get("language", "?"),
        size_mb=_size_mb(directory),
        figures=card.get("figures", ""),
        licence=card.get("licence", ""),
        card=card,
    )


def _task(arch: str) -> str:
    return BY_ARCH[arch].task if arch in BY_ARCH else arch


def _read_card(directory: Path) -> dict:
    """The model's own card (not its pipeline's: ``lstmparse models`` lists what each directory says of itself)."""
    try:
        card = json.loads((directory / CARD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return card if isinstance(card, dict) else {}


DEV_FIGURES = (  # a training record's best dev figure, by family, and its name (cards, train's last line)
    ("best_dev_las", "dev LAS"),
    ("best_dev_f1", "dev F1"),
    ("best_dev_perplexity", "dev perplexity"),
    ("best_dev_upos", "dev UPOS accuracy"),
    ("best_dev_tokens_f1", "dev token F1"),
)


def training_card(arch: str, train: str, record: dict, treebank=None, language: str | None = None, notes=()) -> dict:
    """The card ``lstmparse train`` writes beside a model: language, data, task, dev figures, licence, choices.

    ``treebank``: the :class:`~lstmparse.pipeline.recipe.TreebankFolder` it was trained from, if any, whose
    name gives the language (unless ``language``) and whose ``LICENSE.txt`` the licence.
    """
    from lstmparse.pipeline.recipe import language_of

    treebank = treebank if treebank is not None else treebank_of_file(train)
    from_folder = treebank.language if treebank is not None else None
    card: dict = {"language": language or from_folder or language_of(train)}
    card["data"] = treebank.path.name if treebank is not None else train
    card["task"] = _task(arch)
    card["figures"] = dev_figures(record)
    if treebank is not None and treebank.licence:
        card["licence"] = treebank.licence
    choices = list(record.get("recipe", [])) + ([record["decoding"]["reason"]] if record.get("decoding") else [])
    choices += reasons(record.get("choices", {}))
    if choices:
        card["choices"] = choices
    if notes:
        card["notes"] = list(notes)
    return {key: value for key, value in card.items() if value}


def treebank_of_file(train: str | Path):
    """The UD treebank folder a training file sits in (beside its ``LICENSE.txt``), or None: a model trained with
    ``--train`` on a treebank's file names the treebank and its licence as ``--treebank`` would."""
    from lstmparse.pipeline.recipe import treebank_folder

    folder = Path(train).parent
    if not (folder / "LICENSE.txt").is_file():
        return None
    try:
        return treebank_folder(folder)
    except (ConfigurationError, OSError):
        return None


def dev_figures(record: dict) -> str:
    """The best dev figures a training record holds (a pipeline's: its parts'), as one line."""
    if "parts" in record:
        parts = ((part, dev_figures(summary)) for part, summary in record["parts"].items())
        return "; ".join(f"{part}: {figures}" for part, figures in parts if figures)
    for key, name in DEV_FIGURES:
        if record.get(key) is not None:
            return f"{name} {record[key]:.2f}"
    return ""


def write_card(directory: str | Path, card: dict) -> None:
    """``card.json`` in the model directory, written whole or not at all."""
    from lstmparse.core.model_io import atomic_write

    text = json.dumps(card, indent=2, ensure_ascii=False) + "\n"
    atomic_write(Path(directory) / CARD, lambda handle: handle.write(text.encode("utf-8")))


def model_language(model: str | Path) -> str | None:
    """The language a model's card names, if it has one (the model by name or directory)."""
    try:
        directory = resolve_model(model)
    except ModelError:
        return None
    return _read_card(directory).get("language") or None


def _size_mb(directory: Path) -> float:
    """The size of the files the model reads: its own, and those of the parts or members its manifest names."""
    try:
        components = component_directories(directory)
    except ModelError:
        components = []
    files = {f.resolve() for folder in [directory, *components] for f in Path(folder).rglob("*") if f.is_file()}
    return sum(f.stat().st_size for f in files) / 1e6
