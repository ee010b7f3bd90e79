"""The models of ``models/`` that are not language pipelines, each remade from its recipe and shipped by one command.

``lstmparse release make NAME`` trains ``models/NAME/recipe.toml`` on its treebank in the
shared data (``lstmparse train --recipe``, in a process of its own, into
``WORK_DIR/models/NAME``; a run that stopped is continued as ``train --resume`` continues
it), scores the model once on the treebank's dev and test files as its family is scored,
and puts it into ``models/NAME`` in place of the old one, with its card of the schema
(:mod:`lstmparse.app.release.cards`).  An ensemble whose recipe reuses a model made
before (``models = ["../en_gum_seq2seq"]``) has that model made and shipped first, so
that the shipped ensemble reads the shipped member.

How a family is scored: a dependency parser by the CoNLL 2018 measures from gold
tokens (a parser that reads UPOS reads the gold tags, as it was trained to); a
constituency parser by EVALB's labelled brackets, beam 10, gold tags on the
preterminals; a tree language model by the perplexity of the gold trees.  Language
pipelines are remade by the farm instead, beside UDPipe 1 (``models/remake.toml``, then
``lstmparse release ship``).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from lstmparse.app.farm.commands import add_spent, spent_seconds
from lstmparse.app.recipes import RESUMABLE, Recipe, data_folder, read_recipe
from lstmparse.app.release.shipping import (
    copy_model,
    one_thread,
    put_in_place,
    recipe_card,
    same_model_files,
    without_paths,
)
from lstmparse.core.model_io import CARD, CONFIG
from lstmparse.errors import ConfigurationError

RECIPE = "recipe.toml"
CONSTITUENCY_BEAM = 10  # the beam the constituency parsers' figures are of (the paper's)
TREE_MODELS = ("treelstm", "ldtreelstm")  # scored by perplexity


@dataclass(frozen=True)
class Scored:
    """What scoring a model on one file gave: its figures by source (``tokens``, ``trees``) and its speed."""

    figures: dict[str, dict[str, float]]
    sentences: int
    seconds: float


def make(names: list[str], models_dir: Path, data_dir: Path, work_dir: Path, log: TextIO) -> list[str]:
    """Remake each model ``models_dir/NAME`` from its recipe and ship it (an ensemble's reused models first); the
    names of the models shipped, in order, each once."""
    shipped: list[str] = []
    for name in names:
        make_one(name, models_dir, data_dir, work_dir, log, shipped)
    return shipped


def make_one(
    name: str,
    models_dir: Path,
    data_dir: Path,
    work_dir: Path,
    log: TextIO,
    shipped: list[str],
    within: tuple[str, ...] = (),
) -> None:
    """One model (after the models its ensemble reuses, unless ``shipped`` has them), appended to ``shipped``;
    ``within``: the ensembles being made that reuse it (a model cannot reuse itself)."""
    if name in shipped:
        return
    if name in within:
        raise ConfigurationError(f"{models_dir / name / RECIPE}: the ensemble reuses itself ({' -> '.join(within)})")
    recipe = model_recipe(models_dir, name)
    for reused in reused_models(recipe):
        make_one(reused, models_dir, data_dir, work_dir, log, shipped, (*within, name))
    folder = data_dir / data_folder(recipe)
    if not folder.is_dir():
        raise ConfigurationError(f"{recipe.path}: its treebank {recipe.treebank} is not in {data_dir} ({folder})")
    model_dir = work_dir / "models" / name
    if not (model_dir / CARD).is_file():  # train writes the card last: without it the model is not finished
        train_model(recipe, folder, model_dir, work_dir / "jobs" / name, log)
    ship_made(recipe, model_dir, folder, models_dir, spent_seconds(work_dir / "jobs" / name) / 60, log)
    shipped.append(name)


def model_recipe(models_dir: Path, name: str) -> Recipe:
    """``models_dir/NAME/recipe.toml``, read and checked: a model ``release make`` can make."""
    path = models_dir / name / RECIPE
    if not path.is_file():
        known = sorted(recipe.parent.name for recipe in models_dir.glob(f"*/{RECIPE}"))
        raise ConfigurationError(f"{name}: no {path}; models with a recipe: {', '.join(known)}")
    recipe = read_recipe(path)
    if recipe.arch == "pipeline":
        raise ConfigurationError(
            f"{path}: a language pipeline is remade by the farm beside UDPipe 1 (lstmparse farm "
            f"{models_dir / 'remake.toml'} --work-dir W), then shipped by lstmparse release ship W"
        )
    if recipe.treebank is None:
        raise ConfigurationError(f"{path}: [model] names no treebank to make the model from")
    return recipe


def reused_models(recipe: Recipe) -> list[str]:
    """The models of ``models/`` an ensemble's recipe reuses as members (its ``models``, siblings of it)."""
    if recipe.ensemble is None:
        return []
    names = []
    for member in recipe.ensemble.models:
        path = Path(member)
        if len(path.parts) != 2 or path.parts[0] != "..":
            raise ConfigurationError(
                f"{recipe.path}: [ensemble] models: {member!r} is not a model beside it (../NAME), which "
                "release make could make and ship first"
            )
        names.append(path.parts[1])
    return names


def train_model(recipe: Recipe, folder: Path, model_dir: Path, job_dir: Path, log: TextIO) -> None:
    """``lstmparse train --recipe`` in a process of its own (DyNet takes its seed once a process), showing its
    progress on this process's stderr; its CPU time added to the job's total, an interrupted attempt's too."""
    job_dir.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "lstmparse", "train", "--recipe", str(recipe.path), "--treebank", str(folder)]
    command += ["--model-dir", str(model_dir)]
    if model_dir.exists():
        resumable = recipe.arch in RESUMABLE or recipe.ensemble is not None
        command.append("--resume" if resumable else "--overwrite")
    print(f"lstmparse: making {recipe.name}: {' '.join(command[1:])}", file=log, flush=True)
    before = children_cpu_seconds()
    env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    try:
        code = subprocess.call(command, env=env)
    finally:
        add_spent(job_dir, children_cpu_seconds() - before)
    if code != 0:
        raise ConfigurationError(f"{recipe.name}: lstmparse train stopped with exit code {code}; run again to continue")


def children_cpu_seconds() -> float:
    """CPU seconds of the finished processes this one started (and theirs): an ensemble trains its members in
    processes of their own."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def ship_made(recipe: Recipe, model_dir: Path, folder: Path, models_dir: Path, cpu_minutes: float, log) -> None:
    """The made model scored on dev and test, and written over ``models_dir/NAME`` with its card and recipe."""
    from lstmparse.pipeline.recipe import treebank_folder

    check_reused_members(model_dir, models_dir)
    treebank = treebank_folder(folder, "ptb" if (folder / "train.ptb").is_file() else "conllu")
    built = json.loads((model_dir / CARD).read_text(encoding="utf-8"))
    print(f"lstmparse: scoring {recipe.name} on {folder.name}'s dev and test", file=log, flush=True)
    scored_dev = score_model(model_dir, treebank.dev) if treebank.dev is not None else None
    scored_test = score_model(model_dir, treebank.test) if treebank.test is not None else None
    staging = copy_model(model_dir, models_dir / recipe.name, {model_dir: "", folder: f"{folder.name}/"}, siblings=True)
    (staging / RECIPE).write_bytes(recipe.path.read_bytes())
    seed = built.get("seeds") or (recipe.seed if recipe.seed is not None else 1)
    card = recipe_card(recipe, treebank, built, seed, round(cpu_minutes, 2) if cpu_minutes > 0 else None, model_dir) | {
        "notes": without_paths(built.get("notes", [])),
        "dev": {} if scored_dev is None else scored_dev.figures,
        "test": {} if scored_test is None else scored_test.figures,
        "speed": None if scored_test is None else speed(scored_test, folder.name),
        "figures": figures_line(folder.name, scored_test, reads_tags(model_dir)),
    }
    put_in_place(staging, models_dir / recipe.name, card)
    print(f"lstmparse: models/{recipe.name}: {card['figures']}", file=log, flush=True)


def check_reused_members(model_dir: Path, models_dir: Path) -> None:
    """An ensemble's members outside it must be the models shipped beside it, byte for byte (they are read from
    there once shipped)."""
    from lstmparse.pipeline.manifest import component_directories

    for member in component_directories(model_dir):
        if member.resolve().is_relative_to(model_dir.resolve()):
            continue
        shipped = models_dir / member.name
        if not same_model_files(member, shipped):
            raise ConfigurationError(
                f"{model_dir}: its member {member} is not the shipped {shipped}: make {member.name} first"
            )


def score_model(model_dir: Path, gold: Path) -> Scored:
    """The model on ``gold`` as its family is scored (see the module), one thread."""
    from lstmparse.core.backend import configure_defaults
    from lstmparse.core.families import CONSTITUENCY_ARCHS
    from lstmparse.core.model_io import model_arch

    configure_defaults()
    arch = model_arch(model_dir)
    with one_thread():
        if arch in TREE_MODELS:
            return tree_perplexity(model_dir, gold)
        if arch in CONSTITUENCY_ARCHS:
            return bracket_scores(model_dir, gold)
        return dependency_scores(model_dir, gold)


PARSER_MEASURES = ("UAS", "LAS")  # what a parser without a tagger predicts (its tag columns are the gold ones)


def dependency_scores(model_dir: Path, gold: Path) -> Scored:
    from lstmparse.app.accuracy import evaluate_model

    began = time.process_time()
    run = evaluate_model(model_dir, str(gold), "tokens")
    seconds = time.process_time() - began
    figures = {name: value for name, value in run.f1().items() if name in PARSER_MEASURES}
    return Scored({"tokens": figures}, len(run.sentences), seconds)


def reads_tags(model_dir: Path) -> bool:
    """Whether a parser reads the gold tag columns (its features name UPOS or FEATS)."""
    config = json.loads((model_dir / CONFIG).read_text(encoding="utf-8"))
    return bool({"pos", "feats"} & set(config.get("features", [])))


def bracket_scores(model_dir: Path, gold: Path) -> Scored:
    from lstmparse.io.ptb import read_ptb
    from lstmparse.scoring.evalb import score_bracketings
    from lstmparse.seq2seq.api import ConstituencyParser

    trees = read_ptb(gold)
    parser = ConstituencyParser.load(model_dir)
    began = time.process_time()
    system = [parsed.tree for parsed in parser.parse(trees, beam=CONSTITUENCY_BEAM)]
    seconds = time.process_time() - began
    brackets = score_bracketings(trees, system)
    figures = {"Recall": brackets.recall, "Precision": brackets.precision, "F1": brackets.f1}
    return Scored({"trees": {name: round(value, 2) for name, value in figures.items()}}, len(trees), seconds)


def tree_perplexity(model_dir: Path, gold: Path) -> Scored:
    from lstmparse.treelstm.model import TreeLSTM
    from lstmparse.treelstm.training import corpus_perplexity, read_trees, tree_scores

    sentences = read_trees(str(gold))
    model = TreeLSTM.load(str(model_dir))
    began = time.process_time()
    perplexity = corpus_perplexity(tree_scores(model, sentences))
    return Scored({"trees": {"Perplexity": round(perplexity, 2)}}, len(sentences), time.process_time() - began)


def speed(scored: Scored, treebank: str) -> dict:
    """Sentences a second on the test set, one thread (what ``lstmparse models`` shows)."""
    return {
        "sentences_per_second": round(scored.sentences / max(scored.seconds, 1e-9), 1),
        "measured_on": f"{treebank} test, gold tokens, one thread",
    }


def figures_line(treebank: str, scored: Scored | None, with_gold_tags: bool) -> str:
    """The card's one line: the test figures a user compares models by, and what they are of."""
    if scored is None:
        return f"no test file in {treebank}"
    tokens, trees = scored.figures.get("tokens", {}), scored.figures.get("trees", {})
    if tokens:
        shown = ", ".join(f"{name} {tokens[name]:.2f}" for name in ("LAS", "UAS") if name in tokens)
        return f"{treebank} test {shown} from gold tokens" + (" with gold tags" if with_gold_tags else "")
    if "F1" in trees:
        return f"{treebank} test F1 {trees['F1']:.2f} (beam {CONSTITUENCY_BEAM})"
    return f"{treebank} test perplexity {trees['Perplexity']:.2f} of the gold trees"
