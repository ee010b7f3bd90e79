"""The choices made on dev after a pipeline is trained: one mechanism, on the pipeline as it ships.

Each :class:`Choice` is a setting of a trained pipeline with a few candidate values
(the parser's beam, the lemma weights of its tagger), a dev measure (the CoNLL 2018
scorer's, from gold tokens; the tokenizer's, from raw text) and a neutral value kept unless another gains
``margin``.  :func:`choose_on_dev` loads the pipeline as it ships (its ensembles, at
its stored precision), tries each choice's candidates in turn on dev, the earlier
choices already applied, and writes what it chose, with the dev figure of every
candidate, into one block of the manifest, ``choices``; loading the pipeline applies
the block (:func:`apply_choices`).  ``lstmparse refit MODEL --treebank DIR`` runs the
choices again on a trained pipeline; training runs them last.  A new post-training
choice is one more :class:`Choice` in :data:`CHOICES`.  A recipe may narrow a choice to
some of its candidates (its ``[choices]`` table, ``train --choice beam=1``): the fast
English pipeline decodes greedily whatever a wider beam would gain, as its purpose is
speed.

The beam: greedy decoding commits to every action, a beam keeps the best few
derivations.  On the languages' dev sets from raw text a beam of 4 gained 0.3 to 0.8
LAS over greedy at about twice the parsing time, and a beam of 2 most of that on some
treebanks and nothing on others, so the beam is the narrowest whose LAS is within the
margin of the best.  Every way of parsing with the pipeline (``parse``, ``evaluate``,
``parse-corpus``, ``serve``, the Python API) decodes with it unless given a beam.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from lstmparse.core.model_io import CONFIG, atomic_write
from lstmparse.errors import ConfigurationError
from lstmparse.io.formats import Sentence, read_sentences
from lstmparse.scoring.conll18 import document, score_documents

if TYPE_CHECKING:
    from lstmparse.tagger.model import Tagger


class Pipeline(Protocol):
    """What the choices read and set of a loaded pipeline (:class:`lstmparse.pipeline.api.Pipeline`)."""

    parser: Any
    tagger: Any
    tokenizer: Any

    def tag(self, sentences: Iterable[Sentence], retag: bool = False) -> Iterator[Sentence]: ...

    def candidates(self, sentences: Iterable[Sentence], *search: Any) -> Iterator[list[Sentence]]: ...


CHOICES_KEY = "choices"  # the manifest's block
GRIDS_KEY = "choice_grids"  # the training record's: the candidates a recipe narrowed choices to


@dataclass(frozen=True)
class Choice:
    """A setting chosen on dev: its candidates, the neutral one, the dev measure, and how it is read and set."""

    name: str
    candidates: tuple[float, ...]
    neutral: float
    measure: str  # a CoNLL 2018 measure, from gold tokens
    margin: float  # dev points a candidate must gain over the neutral one
    applies: Callable[[Pipeline], bool]
    set: Callable[[Pipeline, float], None]
    output: Callable[[Pipeline, list[Sentence]], list[Sentence]]  # dev run as the measure needs it
    description: str


def first_tagger(pipeline: Pipeline) -> Tagger:
    """The tagger whose dictionaries and lemma settings decide (an ensemble's first member)."""
    assert pipeline.tagger is not None
    model = pipeline.tagger.model
    return getattr(model, "members", [model])[0]


def has_lemmas(pipeline: Pipeline) -> bool:
    return pipeline.tagger is not None and first_tagger(pipeline).dims.lemmas


def tagged(pipeline: Pipeline, gold: list[Sentence]) -> list[Sentence]:
    return list(pipeline.tag(gold, retag=True))


def parsed_at(pipeline: Pipeline, gold: list[Sentence]) -> list[Sentence]:
    """Dev tagged and parsed at the pipeline's current beam."""
    assert pipeline.parser is not None
    return [best for best, *_ in pipeline.candidates(tagged(pipeline, gold), pipeline.parser.beam, 1)]


def set_tagger(name: str) -> Callable[[Pipeline, float], None]:
    def set_value(pipeline: Pipeline, value: float) -> None:
        setattr(first_tagger(pipeline), name, float(value))

    return set_value


def set_tagger_flag(name: str) -> Callable[[Pipeline, float], None]:
    """Set one of the first tagger's switches (``use_analyses``, ``use_companions``) on (1) or off (0)."""

    def set_value(pipeline: Pipeline, value: float) -> None:
        setattr(first_tagger(pipeline), name, bool(value))

    return set_value


def has_dictionary(name: str) -> Callable[[Pipeline], bool]:
    """Whether the first tagger stores the dictionary a switch turns on (``analyses``, ``companions``)."""

    def applies(pipeline: Pipeline) -> bool:
        return pipeline.tagger is not None and getattr(first_tagger(pipeline), name) is not None

    return applies


LOADED_MEMBERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # pipeline -> its parts' members as loaded


def loaded_members(pipeline: Pipeline, part: str) -> list:
    """The members of the pipeline's tagger or parser as it was loaded (one: the model itself), whatever the choices
    have set since."""
    loaded = LOADED_MEMBERS.setdefault(pipeline, {})
    if part not in loaded:
        model = getattr(pipeline, part).model
        loaded[part] = list(getattr(model, "members", [model]))
    return loaded[part]


def has_members(part: str) -> Callable[[Pipeline], bool]:
    def applies(pipeline: Pipeline) -> bool:
        return getattr(pipeline, part) is not None and len(loaded_members(pipeline, part)) > 1

    return applies


def set_taggers(pipeline: Pipeline, value: float) -> None:
    """The first ``value`` taggers of the loaded ensemble tag (their mean; one: the first alone)."""
    from lstmparse.tagger.api import POSTagger
    from lstmparse.tagger.ensemble import TaggerEnsemble

    members = loaded_members(pipeline, "tagger")[: int(value)]
    model = TaggerEnsemble(members) if len(members) > 1 else members[0]
    pipeline.tagger = POSTagger(model, pipeline.tagger.source)


def set_parsers(pipeline: Pipeline, value: float) -> None:
    """The first ``value`` parsers of the loaded ensemble parse (one: the tag-reading parser alone)."""
    from lstmparse.stacklstm.api import Parser
    from lstmparse.stacklstm.ensemble import StackLSTMEnsemble

    members = loaded_members(pipeline, "parser")[: int(value)]
    beam = pipeline.parser.beam
    pipeline.parser = Parser(StackLSTMEnsemble(members) if len(members) > 1 else members[0], pipeline.parser.name)
    pipeline.parser.beam = beam


def has_multiword_lookup(pipeline: Pipeline) -> bool:
    """Whether the pipeline's tokenizer stores the training tokens' multi-word lookup (tokenizer/words.py)."""
    return pipeline.tokenizer is not None and pipeline.tokenizer.labeller.splitter.lookup is not None


def set_multiword_lookup(pipeline: Pipeline, value: float) -> None:
    pipeline.tokenizer.labeller.splitter.use_lookup = bool(value)


def tokenized(pipeline: Pipeline, gold: list[Sentence]) -> list[Sentence]:
    """Dev's raw text (rebuilt from the gold file) as the tokenizer cuts it into sentences and words."""
    from lstmparse.tokenizer.api import RawParagraph
    from lstmparse.tokenizer.data import raw_text_paragraphs

    texts, _ = raw_text_paragraphs(gold)
    return list(pipeline.tokenizer.tokenize_paragraphs([RawParagraph(text) for text in texts]))


def set_beam(pipeline: Pipeline, value: float) -> None:
    assert pipeline.parser is not None
    pipeline.parser.beam = int(value)


CHOICES = (
    Choice(
        "multiword_lookup",
        (0, 1),
        0,
        "Words",
        0.01,
        has_multiword_lookup,
        set_multiword_lookup,
        tokenized,
        "the training tokens' own multi-word decisions over the tokenizer's marks (tokenizer/words.py), from raw text",
    ),
    Choice(
        "taggers",
        (1, 2, 3, 4, 5),
        1,
        "AllTags",
        0.1,
        has_members("tagger"),
        set_taggers,
        tagged,
        "the taggers whose mean tags, the first ones of the trained ensemble",
    ),
    Choice(
        "parsers",
        (1, 2),
        1,
        "LAS",
        0.1,
        has_members("parser"),
        set_parsers,
        parsed_at,
        "the parsers whose mean parses: the tag-reading parser, and the joint-UPOS one beside it",
    ),
    Choice(
        "seen_analyses",
        (0, 1),
        0,
        "UFeats",
        0.2,
        has_dictionary("analyses"),
        set_tagger_flag("use_analyses"),
        tagged,
        "a word seen in training with its UPOS takes the best-scored of the FEATS it had (tagger/analyses.py)",
    ),
    Choice(
        "upos_companions",
        (1, 0),
        1,
        "AllTags",
        0.1,
        has_dictionary("companions"),
        set_tagger_flag("use_companions"),
        tagged,
        "a word's XPOS and FEATS among those seen with its UPOS (tagger/companions.py)",
    ),
    Choice(
        "known_lemma_weight",
        (0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0),
        0.0,
        "Lemmas",
        0.1,
        has_lemmas,
        set_tagger("known_lemma_weight"),
        tagged,
        "lemma rules that make a training lemma favoured by this weight (tagger/lemmas.py)",
    ),
    Choice(
        "lemma_casing_weight",
        (0.0, 0.5, 1.0, 2.0, 4.0),
        0.0,
        "Lemmas",
        0.1,
        has_lemmas,
        set_tagger("lemma_casing_weight"),
        tagged,
        "a lemma cased unusually for its UPOS disfavoured by this weight (tagger/lemmas.py)",
    ),
    Choice(
        "beam",
        (1, 2, 4),  # beam 8 gained at most 0.11 LAS over 4 on the languages' dev sets, for twice the time
        1,
        "LAS",
        0.1,
        lambda pipeline: pipeline.parser is not None,
        set_beam,
        parsed_at,
        "the parser's beam (the narrowest within the margin of the best)",
    ),
)
BY_NAME = {choice.name: choice for choice in CHOICES}
MEMBER_CHOICES = {"taggers": "tagger", "parsers": "parser"}  # choices of an ensemble's members: the part they set


def keep_chosen_members(directory: str | Path) -> list[str]:
    """Make a pipeline's directory hold only the ensemble members its choices use; the directories removed.

    Training keeps every member it trained, so that ``lstmparse refit`` may choose among them again; a shipped
    model keeps the first ``taggers`` taggers and ``parsers`` parsers its block chose (an ensemble's manifest
    listing them, or the part naming its one member), since a member left out is never run yet costs space and
    loading time.  The pipeline then loads and parses as before (:func:`apply_choices` of the same block).
    """
    from lstmparse.core.ensembles import write_ensemble
    from lstmparse.pipeline.manifest import component_directories, part_directories

    root = Path(directory).resolve()
    manifest = json.loads((root / CONFIG).read_text(encoding="utf-8"))
    if not manifest.get("parts"):  # not a pipeline
        return []
    block, parts, directories = manifest.get(CHOICES_KEY, {}), manifest["parts"], part_directories(root)
    left_out: list[Path] = []
    for choice, part in MEMBER_CHOICES.items():
        if choice not in block or part not in directories:
            continue
        ensemble = directories[part]
        members, kept = component_directories(ensemble), int(block[choice]["value"])  # one member: no ensemble
        if kept >= len(members):
            continue
        left_out += members[kept:]
        if kept > 1:
            write_ensemble(members[:kept], ensemble)
        else:
            parts[part] = Path(os.path.relpath(members[0], root)).as_posix()
            left_out.append(ensemble)
    if not left_out:
        return []
    text = json.dumps(manifest, indent=2)
    atomic_write(root / CONFIG, lambda handle: handle.write(text.encode("utf-8")))
    removed = [gone for gone in left_out if gone.is_relative_to(root)]  # a model beside it (../NAME) stays
    for gone in removed:
        shutil.rmtree(gone)
    return sorted(gone.relative_to(root).as_posix() for gone in removed)


def dev_figure(choice: Choice, pipeline: Pipeline, gold: list[Sentence]) -> float:
    return round(score_documents(document(gold), document(choice.output(pipeline, gold)))[choice.measure].f1, 2)


def narrowed(choice: Choice, values: Sequence[float]) -> Choice:
    """The choice with only ``values`` among its candidates (the first of them neutral where its own neutral is
    left out); a value that is not one of its candidates is a ConfigurationError naming the choice."""
    strange = [value for value in values if value not in choice.candidates]
    if strange or not values:
        known = ", ".join(f"{value:g}" for value in choice.candidates)
        given = f"{strange[0]:g} is not one of" if strange else "give some of"
        raise ConfigurationError(f"{choice.name}: {given} its values {known}")
    kept = tuple(value for value in choice.candidates if value in values)
    return dataclasses.replace(choice, candidates=kept, neutral=choice.neutral if choice.neutral in kept else kept[0])


def checked_grids(grids: Mapping[str, Sequence[float]]) -> dict[str, tuple[float, ...]]:
    """Choices narrowed to some of their candidates (``{"beam": [1]}``), checked: each a choice, each value one of
    its candidates (a ConfigurationError otherwise), in the choice's own order."""
    for name in grids:
        if name not in BY_NAME:
            raise ConfigurationError(f"{name}: not a choice; choices: {', '.join(BY_NAME)}")
    return {name: narrowed(BY_NAME[name], [float(v) for v in values]).candidates for name, values in grids.items()}


def choose(choice: Choice, pipeline: Pipeline, gold: list[Sentence]) -> dict:
    """Try every candidate on dev; keep the best (the earlier candidate on ties; the neutral one unless another
    gains the margin), set it, and return the figures."""
    figures = {}
    for value in choice.candidates:
        if choice.name in MEMBER_CHOICES and value > len(loaded_members(pipeline, MEMBER_CHOICES[choice.name])):
            continue
        choice.set(pipeline, value)
        figures[value] = dev_figure(choice, pipeline, gold)
    if not figures:
        raise ConfigurationError(f"choice {choice.name}: none of its values fits this pipeline's members")
    best = max(figures, key=lambda value: figures[value])
    if choice.name == "beam":  # the narrowest within the margin of the best: a wider beam costs time
        best = min(value for value in figures if figures[value] >= figures[best] - choice.margin)
    elif figures[best] < figures[choice.neutral] + choice.margin:
        best = choice.neutral
    choice.set(pipeline, best)
    tried = {f"{value:g}": figure for value, figure in figures.items()}
    return {"value": best, f"dev_{choice.measure}": tried}


def choose_on_dev(
    pipeline: Pipeline,
    directory: str | Path,
    dev: str,
    names: Sequence[str] | None = None,
    log: TextIO | None = None,
    grids: Mapping[str, Sequence[float]] | None = None,
) -> dict:
    """Run the choices (all that apply, or ``names``) on ``pipeline``, loaded from ``directory`` as it ships, with
    the gold ``dev`` file, each over its candidates (narrowed where ``grids`` names it; by default, as the recipe
    that trained it narrowed them: its manifest's training record); write them into its manifest's block and return
    it."""
    gold = list(read_sentences(dev))
    chosen = dict(read_choices(directory))
    narrowing = checked_grids(stored_grids(directory) if grids is None else grids)
    for choice in CHOICES:
        if (names is not None and choice.name not in names) or not choice.applies(pipeline):
            continue
        if choice.name in narrowing:
            choice = narrowed(choice, narrowing[choice.name])
        chosen[choice.name] = choose(choice, pipeline, gold)
        line = ", ".join(
            f"{value} {figure:.2f}" for value, figure in chosen[choice.name][f"dev_{choice.measure}"].items()
        )
        if log is not None:
            print(f"{choice.name} on dev ({choice.measure}): {line}; kept {chosen[choice.name]['value']:g}", file=log)
    write_choices(directory, chosen)
    return chosen


def read_choices(directory: str | Path) -> dict:
    manifest = json.loads((Path(directory) / CONFIG).read_text(encoding="utf-8"))
    return manifest.get(CHOICES_KEY, {})


def stored_grids(directory: str | Path) -> dict[str, list[float]]:
    """The candidates the recipe that trained the pipeline narrowed its choices to (its training record's)."""
    manifest = json.loads((Path(directory) / CONFIG).read_text(encoding="utf-8"))
    return manifest.get("training", {}).get(GRIDS_KEY, {})


def write_choices(directory: str | Path, chosen: dict) -> None:
    """The block written into the manifest (the beam also as ``decoding``, which older readers take)."""
    path = Path(directory) / CONFIG
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest[CHOICES_KEY] = chosen
    if "beam" in chosen:
        manifest["decoding"] = {"beam": int(chosen["beam"]["value"])}
    text = json.dumps(manifest, indent=2)
    atomic_write(path, lambda handle: handle.write(text.encode("utf-8")))


def apply_choices(pipeline: Pipeline, block: dict) -> None:
    """Set what a manifest's block chose on the loaded pipeline (names this version does not know are left)."""
    for name, entry in block.items():
        choice = BY_NAME.get(name)
        if choice is not None and choice.applies(pipeline):
            choice.set(pipeline, entry["value"])


def reasons(block: dict) -> list[str]:
    """One line per choice for the card: what was chosen and the dev figures it was chosen by."""
    lines = []
    for name, entry in block.items():
        choice = BY_NAME.get(name)
        figures: dict = next((value for key, value in entry.items() if key.startswith("dev_")), {})
        tried = ", ".join(f"{figure:.2f} at {value}" for value, figure in figures.items())
        what = choice.description if choice is not None else name
        lines.append(f"{name} {entry['value']:g}: {what} (dev {tried})")
    return lines
