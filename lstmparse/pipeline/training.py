"""Building a pipeline from one treebank: tokenizer, tagger, jack-knifed tags, then the parser on them.

A parser trained on gold tags meets predicted ones at parsing time, with their
errors; trained on tags predicted the way parsing will see them, it learns to
live with them.  Tags predicted for a treebank by a tagger trained on it are too
good, so the training set is cut into ``jackknife`` folds and each fold is tagged
by a tagger trained on the other folds; the dev set is tagged by the pipeline's
own tagger.  Each part is trained with its family's defaults (``--epochs`` applies to
each part; ``--max-minutes`` is the whole pipeline's, cut into the parts' by
:data:`lstmparse.pipeline.recipe.BUDGET_SHARES`).  The parser's features and
transition system, unless given, are chosen from the training data
(:mod:`lstmparse.pipeline.recipe`).  With ``resume``, a part whose directory
already holds a model trained on the same data is reused, so a stopped run
continues where it stopped (and parts can be trained beforehand, in parallel, into
the same places); the tokenizer, which nothing else needs, is trained last.  A
parser that reads no tag column (``--features words,chars``, or ``--joint-upos``, which
learns the gold UPOS) trains on the gold treebank, without folds.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
import time
from pathlib import Path
from typing import TextIO

from lstmparse.core.ensembles import ARCHS as ENSEMBLE_ARCHS
from lstmparse.core.ensembles import member_directories, write_ensemble
from lstmparse.core.families import family
from lstmparse.core.model_io import CARD, CONFIG, atomic_write, model_arch, store_for_shipping
from lstmparse.core.options import RunOptions
from lstmparse.core.records import read_record, training_ended
from lstmparse.errors import ConfigurationError, ModelError
from lstmparse.io.formats import read_sentences
from lstmparse.pipeline.api import Pipeline, parts_of
from lstmparse.pipeline.choices import CHOICES_KEY, GRIDS_KEY, choose_on_dev
from lstmparse.pipeline.folds import (
    FOLD_EPOCHS,
    fold_tagger_directory,
    jackknife_directory,
    split_folds,
    write_fold_training_file,
    write_sentences,
)
from lstmparse.pipeline.manifest import (
    ARCH,
    JOINT_PARSER,
    PARSERS_DIRECTORY,
    TAGGERS_DIRECTORY,
    component_directories,
    tagger_member,
)
from lstmparse.pipeline.options import PipelineOptions
from lstmparse.pipeline.recipe import (
    TAG_FEATURES,
    choose_settings,
    encoder_for,
    part_budgets,
    reads_tags,
    treebank_facts,
)
from lstmparse.stacklstm.options import StackLSTMOptions, parse_features
from lstmparse.tagger.api import POSTagger
from lstmparse.tagger.options import TaggerOptions
from lstmparse.tokenizer.options import TokenizerOptions


def train_pipeline(options: PipelineOptions, log: TextIO = sys.stderr) -> dict:
    """Train (or reuse) each part into ``model_dir`` and write the manifest; the pipeline's record."""
    started = time.time()
    if options.taggers > 1 and "tagger" in options.given_parts:
        raise ConfigurationError("--taggers trains the pipeline's taggers; with --tagger the given tagger tags")
    directory = Path(options.model_dir)
    directory.mkdir(parents=True, exist_ok=True)
    record: dict = {"train": options.train, "dev": options.dev, "jackknife": options.jackknife, "parts": {}}
    if options.choice_grids:  # in the manifest, so that lstmparse refit narrows them as the recipe did
        record[GRIDS_KEY] = {name: list(values) for name, values in options.choice_grids.items()}
    encoder, why_not = encoder_for(options.encoder, options.train) if options.train else (options.encoder, None)
    if why_not is not None:  # the farm's part jobs follow the same rule (app/farm/plan.py)
        options = dataclasses.replace(options, encoder=encoder)
        record["recipe"] = [why_not]
        print(f"recipe: {why_not}", file=log)
    budgets = budgets_of(options)
    if options.max_minutes is not None:
        record["budget_minutes"] = {part: round(minutes, 2) for part, minutes in budgets.items() if minutes is not None}
    for name, source in options.given_parts.items():
        record["parts"][name] = _given_part(name, source, directory, log)
    if "tagger" in options.given_parts:  # the given tagger tags, not an earlier run's ensemble (--taggers)
        shutil.rmtree(directory / TAGGERS_DIRECTORY, ignore_errors=True)
    if "parser" in options.given_parts:
        if "tagger" not in options.given_parts:
            record["parts"]["tagger"] = _trained_taggers(options, log)
        if "tokenizer" not in options.given_parts:
            record["parts"]["tokenizer"] = _trained("tokenizer", TokenizerOptions, options, log)
        return _finished(directory, record, started, options, log)
    parser_settings = _chosen_parser_settings(options, record, log)
    if "tagger" not in options.given_parts:
        record["parts"]["tagger"] = _trained_taggers(options, log)
    parser_options = dataclasses.replace(
        options.parser or StackLSTMOptions(train=options.train, model_dir=""),
        train=options.train,
        dev=options.dev,
        model_dir=str(directory / "parser"),
        seed=options.seed,
        **parser_settings,
    )
    if parser_options.dims.joint_upos and TAG_FEATURES & set(parser_options.features):
        raise ConfigurationError("--joint-upos learns the gold UPOS, so the parser reads no tags: drop pos and feats")
    if TAG_FEATURES & set(parser_options.features):
        train_tagged, dev_tagged = jackknifed(options, log)
        parser_options.train, parser_options.dev = str(train_tagged), None if dev_tagged is None else str(dev_tagged)
    else:
        print("parser: it reads no tag column, so it trains on the gold treebank (no jack-knife folds)", file=log)
    if options.epochs:
        parser_options.epochs = options.epochs
    parser_options.max_minutes = budgets["parser"]
    record["parts"]["parser"] = _train_or_reuse("parser", "stacklstm", parser_options, options.resume, log)
    if options.joint_member:
        joint = joint_parser_options(parser_options, options)
        record["parts"][JOINT_PARSER] = _train_or_reuse(JOINT_PARSER, "stacklstm", joint, options.resume, log)
    if "tokenizer" not in options.given_parts:
        record["parts"]["tokenizer"] = _trained("tokenizer", TokenizerOptions, options, log)
    return _finished(directory, record, started, options, log)


def budgets_of(options: PipelineOptions) -> dict[str, float | None]:
    """The parts' minutes of the pipeline's budget (:func:`~lstmparse.pipeline.recipe.part_budgets`)."""
    parsers = 2 if options.joint_member else 1
    features = None if "features" in options.choose or options.parser is None else options.parser.features
    folds = options.jackknife if reads_tags(features) else 0  # a parser reading no tags trains on the gold treebank
    return part_budgets(options.max_minutes, folds, options.taggers, parsers, options.cores)


def pipeline_tagger(model_dir: str | Path) -> str:
    """The directory the pipeline tags with: its tagger ensemble where training made one, else its tagger."""
    return TAGGERS_DIRECTORY if (Path(model_dir) / TAGGERS_DIRECTORY / CONFIG).is_file() else "tagger"


def joint_parser_options(parser: StackLSTMOptions, options: PipelineOptions) -> StackLSTMOptions:
    """The joint-UPOS member's options: the tag-reading parser's transition system, data and budget, reading words
    and characters (and the encoder where the pipeline has one) through one context bi-LSTM that also predicts UPOS.

    In the pipeline the two parsers' ensemble parses, and UPOS is the likeliest under
    the mean of the tagger's and the joint parser's probabilities (``Pipeline.tag``).
    """
    features = ["words", "chars", *(["encoder"] if options.encoder else [])]
    dims = dataclasses.replace(parser.dims, context_layers=1, joint_upos=True, encoder=options.encoder or "")
    return dataclasses.replace(
        parser,
        train=options.train,
        dev=options.dev,
        model_dir=str(Path(options.model_dir) / JOINT_PARSER),
        features=features,
        dims=dims,
    )


def _finished(directory: Path, record: dict, started: float, options: PipelineOptions, log: TextIO) -> dict:
    """The manifest written; the parameters halved and the packaged tables named if asked; the choices made on dev
    with the pipeline as it ships (its ensembles, at its precision: :mod:`lstmparse.pipeline.choices`), into the
    manifest's block."""
    if options.joint_member:
        write_ensemble([directory / "parser", directory / JOINT_PARSER], directory / PARSERS_DIRECTORY)
    else:
        shutil.rmtree(directory / PARSERS_DIRECTORY, ignore_errors=True)  # an earlier run's, with a joint member
    _write_manifest(directory, record, started)
    for component in component_directories(directory):
        store_for_shipping(component, options.half_precision, options.pretrained_by_name)
    if options.half_precision:
        record["half_precision"] = True
    if options.dev:
        record["choices"] = choose_on_dev(Pipeline.load(directory), directory, options.dev, log=log)
    return _write_manifest(directory, record, started)


def _write_manifest(directory: Path, record: dict, started: float) -> dict:
    """The pipeline's manifest, naming its parts in their places under ``directory``, with the choices made on dev
    (its ``choices`` block, and the beam as ``decoding`` too); the record, timed."""
    parser = PARSERS_DIRECTORY if (directory / PARSERS_DIRECTORY / CONFIG).is_file() else "parser"
    parts = {"tokenizer": "tokenizer", "tagger": pipeline_tagger(directory), "parser": parser}
    manifest: dict = {"arch": ARCH, "parts": parts, "training": record}
    if record.get("choices"):
        manifest[CHOICES_KEY] = record["choices"]
        if "beam" in record["choices"]:
            manifest["decoding"] = {"beam": int(record["choices"]["beam"]["value"])}
    atomic_write(directory / CONFIG, lambda handle: handle.write(json.dumps(manifest, indent=2).encode("utf-8")))
    record["total_seconds"] = round(time.time() - started, 1)
    return record


def _given_part(name: str, source: str, directory: Path, log: TextIO) -> dict:
    """A part trained before, copied into the pipeline's place for it (a pipeline given: its part of that name)."""
    found = parts_of(source).get(name)
    if found is None:
        raise ModelError(f"--{name} {source}: a {model_arch(source)} model, not a {name}")
    target = directory / name
    if target.resolve() != found.resolve():
        if target.exists():
            shutil.rmtree(target)
        if model_arch(found) in ENSEMBLE_ARCHS:
            _copy_ensemble(found, target)
        else:
            shutil.copytree(found, target, ignore=shutil.ignore_patterns("checkpoint", "epochs"))
    print(f"{name}: {found} (given, not trained)", file=log)
    return {"given": str(found), **_summary(_finished_record(target) or {})}


def _copy_ensemble(source: Path, target: Path) -> None:
    """An ensemble given as a part: its members copied beside it (``target``'s name with ``_1``, ``_2``, ...) and a
    manifest in ``target`` naming the copies, in the same order (the manifest alone would name missing places)."""
    copies = []
    for k, member in enumerate(member_directories(source), start=1):
        copy = target.parent / f"{target.name}_{k}"
        if copy.exists():
            shutil.rmtree(copy)
        shutil.copytree(member, copy, ignore=shutil.ignore_patterns("checkpoint", "epochs"))
        copies.append(copy)
    write_ensemble(copies, target)


def _chosen_parser_settings(options: PipelineOptions, record: dict, log: TextIO) -> dict:
    """The parser's features and system that the recipe chose from the data (those the user left open)."""
    if not options.choose:
        return {}
    parser = options.parser or StackLSTMOptions(train=options.train, model_dir="")
    given = {name: getattr(parser, name) for name in ("features", "system") if name not in options.choose}
    if "features" in given:
        given["features"] = ",".join(given["features"])
    recipe = choose_settings(treebank_facts(options.train), given, parser.dims.joint_upos, bool(options.encoder))
    record["recipe"] = record.get("recipe", []) + recipe.reasons
    for reason in recipe.reasons:
        print(f"recipe: {reason}", file=log)
    return {"features": parse_features(recipe.features), "system": recipe.system}


def _part_options(
    options_class: type[TaggerOptions] | type[TokenizerOptions],
    options: PipelineOptions,
    model_dir: Path,
    train: str,
    budget: str,
) -> RunOptions:
    """A part's options, as ``train --arch PART`` reads them: the pipeline's data and seed, ``budget``'s share of
    its minutes (tagger, fold, ...), the taggers' vectors and encoder, and the part's own options
    (``part_options``)."""
    kind = "tokenizer" if options_class is TokenizerOptions else "tagger"
    given: dict[str, object] = {"train_file": train, "dev_file": options.dev, "model_dir": str(model_dir)}
    given |= {"seed": options.seed, "max_minutes": budgets_of(options)[budget]}
    if options.epochs:
        given["epochs"] = options.epochs
    if kind == "tagger":
        given |= {
            key: value for key, value in (("pretrained", options.pretrained), ("encoder", options.encoder)) if value
        }
    return options_class.from_command_line(given | options.part_options.get(kind, {}))


def _trained_taggers(options: PipelineOptions, log: TextIO) -> dict:
    """The tagger; with ``taggers`` > 1, also the other members (the next seeds) and their ensemble.

    Members are ``tagger``, ``tagger_2``, ... (each trained or reused as a part is);
    the ensemble's manifest in ``tagger_ensemble`` names them in that order (the
    choices on dev keep the first ones).  The fold taggers stay single: they only tag
    the parser's training data.
    """
    first = _trained("tagger", TaggerOptions, options, log)
    directory = Path(options.model_dir)
    if options.taggers == 1:
        shutil.rmtree(directory / TAGGERS_DIRECTORY, ignore_errors=True)  # an earlier run's, with more taggers
        return first
    members = {"tagger": first}
    for k in range(2, options.taggers + 1):
        part = _part_options(TaggerOptions, options, directory / tagger_member(k), options.train, "tagger")
        part.seed = None if options.seed is None else options.seed + k - 1  # None: each draws its own
        members[tagger_member(k)] = _train_or_reuse(tagger_member(k), "tagger", part, options.resume, log)
    order = [directory / name for name in members]  # by seed: the choices on dev keep the first ones
    write_ensemble(order, directory / TAGGERS_DIRECTORY)
    print(f"tagger: the ensemble of {', '.join(path.name for path in order)} in {TAGGERS_DIRECTORY}", file=log)
    return {"members": members, "order": [path.name for path in order]}


def _trained(name: str, options_class: type, options: PipelineOptions, log: TextIO) -> dict:
    """Train one part into ``model_dir/name`` unless a model trained on the same data is there."""
    part = _part_options(options_class, options, Path(options.model_dir) / name, options.train, name)
    return _train_or_reuse(name, name, part, options.resume, log)


def _train_or_reuse(label: str, arch: str, part: RunOptions, resume: bool, log: TextIO) -> dict:
    """Train ``arch`` (tokenizer, tagger, stacklstm) with ``part``, unless resuming and it is trained already.

    A part is trained when its training ran to the end: the shared training loop
    marks that (:func:`~lstmparse.core.records.mark_training`), whoever started it
    (the pipeline, or the farm's part jobs).  A part interrupted half-way (its directory holds the best epoch so far)
    continues from its checkpoint where the family can (``resume``), else starts again.
    """
    directory = Path(part.model_dir)
    previous = _finished_record(directory)
    same_data = previous is not None and (previous.get("train"), previous.get("dev")) == (part.train, part.dev)
    if resume and same_data and previous is not None and _ran_to_the_end(directory):
        print(f"{label}: reusing the model in {part.model_dir}", file=log)
        return _summary(previous)
    if resume and same_data and isinstance(part, StackLSTMOptions):  # the part that can resume: the parser
        print(f"{label}: continuing the interrupted training in {part.model_dir}", file=log)
        part = dataclasses.replace(part, resume=True)
    else:
        if previous is not None:
            shutil.rmtree(part.model_dir)
        print(f"{label}: training into {part.model_dir}", file=log)
    return _summary(_trainer(arch)(part, log))


def _ran_to_the_end(directory: Path) -> bool:
    """Whether the part's training ended: the training loop's mark (directories trained before it wrote one: the
    card ``lstmparse train`` writes last)."""
    return training_ended(directory) or (directory / CARD).is_file()


def _trainer(arch: str):
    """The part's training function (``tokenizer``, ``tagger``, ``stacklstm``), from the family registry."""
    return family(arch).trainer_function()


def _finished_record(directory: Path) -> dict | None:
    """The training record of the model in ``directory``, if one is there."""
    return read_record(directory).config.get("training")


def _summary(record: dict) -> dict:
    return {key: value for key, value in record.items() if key.startswith("best_") or key in ("train", "dev")}


def jackknifed(options: PipelineOptions, log: TextIO) -> tuple[Path, Path | None]:
    """The training set tagged fold by fold, and the dev set tagged by the pipeline's tagger (CoNLL-U files).

    Only the UPOS, XPOS and FEATS columns are replaced (``retag``); trees and
    every other column stay gold.
    """
    directory = jackknife_directory(options.model_dir)
    directory.mkdir(parents=True, exist_ok=True)
    train_out, dev_out = directory / "train.tagged.conllu", directory / "dev.tagged.conllu"
    if not options.resume:
        dev_out.unlink(missing_ok=True)
        train_out.unlink(missing_ok=True)
    if options.dev and not dev_out.exists():
        tagger = POSTagger.load(Path(options.model_dir) / pipeline_tagger(options.model_dir))
        write_sentences(dev_out, tagger.tag(read_sentences(options.dev), retag=True))
    if not train_out.exists():
        sentences = list(read_sentences(options.train))
        folds = split_folds(sentences, options.jackknife)
        tagged_folds, reached = [], {}
        for k, fold in enumerate(folds):
            fold_dir = fold_tagger_directory(options.model_dir, k + 1)
            rest = write_fold_training_file(options.model_dir, folds, k + 1)
            print(f"jack-knife fold {k + 1} of {options.jackknife}", file=log)
            fold_options = _part_options(TaggerOptions, options, fold_dir, str(rest), "fold")
            _train_or_reuse(f"fold {k + 1} tagger", "tagger", fold_options, options.resume, log)
            tagged_folds.append(list(POSTagger.load(fold_dir).tag(fold, retag=True)))
            reached[fold_dir.name] = len(read_record(fold_dir).config.get("training", {}).get("epochs", []))
        # back in the training set's order: sentence i is in fold i % k, at place i // k
        ordered = [tagged_folds[i % options.jackknife][i // options.jackknife] for i in range(len(sentences))]
        write_sentences(train_out, iter(ordered))
        text = json.dumps(reached, indent=1)  # what a remake needs of the fold taggers (train --epochs-of)
        atomic_write(directory / FOLD_EPOCHS, lambda handle: handle.write(text.encode("utf-8")))
        for k in range(options.jackknife):  # only the tagged data is needed from now on
            shutil.rmtree(fold_tagger_directory(options.model_dir, k + 1), ignore_errors=True)
            (directory / f"fold-{k + 1}.train.conllu").unlink(missing_ok=True)
    return train_out, dev_out if options.dev else None
