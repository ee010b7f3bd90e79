"""A farm plan: treebanks × settings × seeds, read from TOML and turned into a graph of jobs.

The plan file (documented in docs/corpora-and-farm.md)::

    budget_minutes = 10            # each training job's wall-clock budget (train's --max-minutes)
    seeds = [1]

    [treebanks.ta_ttb]
    path = "../../../shared/data/ud/ta_ttb"   # a UD folder: train, dev, test files; relative to the plan file
    train_sentences = 60                       # optional: only the first N sentences of each file
    dev_sentences = 20
    test_sentences = 20

    [[settings]]
    name = "words+pos"             # the results' "setting"
    arch = "stacklstm"             # stacklstm, tagger, tokenizer, pipeline or udpipe (UDPipe 1, a reference)
    options = { features = "words,pos", system = "arc-swap" }   # train's options, without the dashes
    budget_minutes = 5             # overrides the plan's for this setting's jobs
    evaluate = ["tokens"]          # raw and/or tokens (lstmparse evaluate --from); default by arch
    treebanks = ["en_ewt"]         # only these of the plan's treebanks (default: all)

A pipeline setting's jobs are its tagger, tokenizer and fold taggers (trained in
parallel, into the places the pipeline trainer reuses), then the pipeline run that
tags the folds and trains the parser (its features and transition system chosen
from the data unless the options give them), then the evaluation.  A pipeline's
``budget_minutes`` is the whole pipeline's, cut into the parts' as ``lstmparse
train --arch pipeline --max-minutes`` cuts it (:mod:`lstmparse.pipeline.recipe`).
Nothing here runs anything or imports DyNet: a plan is checked whole before the
first job starts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lstmparse.app.recipes import RESUMABLE, read_recipe
from lstmparse.errors import ConfigurationError

ARCHS = ("stacklstm", "tagger", "tokenizer", "pipeline", "udpipe")
SOURCES = ("raw", "tokens")
DEFAULT_SOURCES = {
    "stacklstm": ("tokens",),
    "tagger": ("tokens",),
    "tokenizer": ("raw",),
    "pipeline": ("raw", "tokens"),
    "udpipe": ("raw", "tokens"),
}
NO_RECIPE = "none"  # train --recipe none: the options given, in one process (a pipeline's last step)
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")
SPLITS = ("train", "dev", "test")


@dataclass(frozen=True)
class Treebank:
    """A treebank of the plan: its folder and how many sentences of each file to keep (``None``: all)."""

    name: str
    path: Path
    sentences: dict[str, int | None] = field(default_factory=dict)

    def file(self, split: str) -> Path | None:
        """The folder's ``train``/``dev``/``test`` file, found as ``train --treebank`` finds it."""
        from lstmparse.pipeline.recipe import treebank_file

        return treebank_file(self.path, split)


@dataclass(frozen=True)
class Setting:
    """One way of training a model: the results' rows are treebank × setting × seed."""

    name: str
    arch: str
    options: dict[str, object]
    budget_minutes: float | None
    evaluate: tuple[str, ...]
    recipe: str | None = None  # a recipe file for each treebank: "{treebank}" in it is the treebank's name
    treebanks: tuple[str, ...] = ()  # the plan's treebanks it trains (all when empty)
    own_budget: bool = False  # a recipe's setting names its budget: it wins over the recipe's max_minutes

    def trains(self, treebank: str) -> bool:
        """Whether this setting has a cell for ``treebank``."""
        return not self.treebanks or treebank in self.treebanks

    def for_treebank(self, treebank: str) -> Setting:
        """The setting as it trains ``treebank``: its recipe's arch, options (the setting's own over them, an
        empty one leaving the recipe's out; the parts' own as ``part_options``) and budget where it names one."""
        if self.recipe is None:
            return self
        recipe = read_recipe(self.recipe.replace("{treebank}", treebank))
        if recipe.ensemble is not None or recipe.stages:
            raise ConfigurationError(
                f"{recipe.path}: a farm plan's recipe makes its model in one run; an ensemble's or a recipe in "
                "stages is made by lstmparse train --recipe"
            )
        options = {key: value for key, value in recipe.options.items() if key != "max_minutes"} | self.options
        options = {key: value for key, value in options.items() if value != ""}  # "": the setting leaves it out
        if recipe.parts:
            options["part_options"] = recipe.parts
        if recipe.choices:
            options["choice_grids"] = recipe.choices
        budget = self.budget_minutes if self.own_budget else recipe.options.get("max_minutes", self.budget_minutes)
        minutes = None if budget is None else float(str(budget))
        sources = self.evaluate or DEFAULT_SOURCES.get(recipe.arch, ("tokens",))
        return Setting(self.name, recipe.arch, options, minutes, sources, treebanks=self.treebanks)


@dataclass(frozen=True)
class Plan:
    """A whole plan, checked: every treebank has a train file, every setting a known arch."""

    path: Path
    treebanks: dict[str, Treebank]
    settings: list[Setting]
    seeds: list[int]


@dataclass(frozen=True)
class Job:
    """One node of the graph: commands run one after another in a process each, after the jobs it needs.

    ``commands`` are argument lists; ``lstmparse`` as the first element means this
    toolkit's command line (``python -m lstmparse`` on the worker).  ``call`` is a
    DyNet-free function run in the worker itself (``"module:function"``, arguments).
    """

    id: str
    treebank: str
    setting: str
    seed: int
    step: str  # train, tagger, tagger-K, tokenizer, folds, fold-K, parser-joint, pipeline, evaluate, udpipe
    commands: tuple[tuple[str, tuple[str, ...]], ...] = ()
    call: tuple[str, tuple] | None = None
    inputs: tuple[str | None, ...] = ()  # a reference job's train, dev and test files
    needs: tuple[str, ...] = ()
    model_dir: str | None = None  # the directory a training command writes (--resume or --overwrite on a rerun)
    resumable: bool = False
    budget_minutes: float | None = None
    trains: bool = True  # counted in the results' training CPU-minutes

    @property
    def group(self) -> tuple[str, str, int]:
        return (self.treebank, self.setting, self.seed)


NEGATIVE_FLAGS = {"factored_feats": "--whole-feats", "length_batches": "--random-batches"}  # train's off switches


def option_arguments(options: dict[str, object]) -> list[str]:
    """``{"features": "words,pos", "pseudo_projective": True}`` as ``--features words,pos --pseudo-projective``; a
    flag set to false is its off switch where it has one (``factored_feats = false``: ``--whole-feats``)."""
    arguments: list[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            arguments.append(flag)
        elif value is False:
            arguments += [NEGATIVE_FLAGS[key]] if key in NEGATIVE_FLAGS else []
        else:
            arguments += [flag, str(value)]
    return arguments


def part_option_arguments(parts: dict[str, dict[str, object]]) -> list[str]:
    """``{"tagger": {"hidden": 200}}`` as ``--part-option tagger.hidden=200`` (a pipeline's parts' own options)."""
    arguments = []
    for part, options in parts.items():
        for key, value in options.items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            arguments += ["--part-option", f"{part}.{key}={text}"]
    return arguments


def choice_arguments(grids: dict[str, Sequence[float]]) -> list[str]:
    """``{"beam": [1]}`` as ``--choice beam=1`` (a pipeline's choices on dev narrowed to these values)."""
    arguments = []
    for name, values in grids.items():
        arguments += ["--choice", f"{name}={','.join(f'{float(value):g}' for value in values)}"]
    return arguments


@dataclass(frozen=True)
class TreebankFiles:
    """The files a treebank's jobs read (the originals, or the plan's cuts of them)."""

    train: str
    dev: str | None
    test: str | None


def plan_jobs(plan: Plan, files: dict[str, TreebankFiles], work_dir: Path) -> list[Job]:
    """Every job of the plan, dependencies before dependents."""
    jobs: list[Job] = []
    for treebank in plan.treebanks:
        for setting in (setting for setting in plan.settings if setting.trains(treebank)):
            for seed in plan.seeds:
                jobs += setting_jobs(treebank, setting.for_treebank(treebank), seed, files[treebank], work_dir)
    return jobs


def setting_jobs(treebank: str, setting: Setting, seed: int, files: TreebankFiles, work_dir: Path) -> list[Job]:
    """The jobs of one cell: its training jobs, then its evaluation."""
    prefix = f"{treebank}/{setting.name}/s{seed}"
    model_dir = str(work_dir / "models" / prefix)
    base: dict[str, Any] = {"treebank": treebank, "setting": setting.name, "seed": seed}
    if setting.arch == "udpipe":
        inputs = (files.train, files.dev, files.test)
        return [Job(f"{prefix}/udpipe", **base, step="udpipe", inputs=inputs, model_dir=model_dir)]
    if setting.arch == "pipeline":
        training = pipeline_jobs(prefix, base, setting, files, model_dir)
    else:
        command = _train_command(setting.arch, files.train, files.dev, model_dir, seed, setting.budget_minutes)
        command += option_arguments(setting.options)
        resumable = setting.arch in RESUMABLE
        training = [
            Job(
                f"{prefix}/train",
                **base,
                step="train",
                commands=(("train", tuple(command)),),
                model_dir=model_dir,
                resumable=resumable,
                budget_minutes=setting.budget_minutes,
            )
        ]
    return [*training, _evaluation_job(prefix, base, setting, files, model_dir, training[-1].id)]


def _train_command(arch: str, train: str, dev: str | None, model_dir: str, seed: int, budget: float | None) -> list:
    command = ["lstmparse", "train", "--arch", arch, "--train", train, "--model-dir", model_dir, "--seed", str(seed)]
    if dev is not None:
        command += ["--dev", dev]
    if budget is not None:
        command += ["--max-minutes", f"{budget:g}"]
    return command


def pipeline_jobs(prefix: str, base: dict, setting: Setting, files: TreebankFiles, model_dir: str) -> list[Job]:
    """A pipeline's parts as jobs, trained into the places ``train --arch pipeline --resume`` reuses them from."""
    from lstmparse.pipeline.folds import fold_tagger_directory, fold_training_file
    from lstmparse.pipeline.manifest import JOINT_PARSER, tagger_member
    from lstmparse.pipeline.recipe import encoder_for, part_budgets, reads_tags

    options = dict(setting.options)
    if options.get("encoder") and encoder_for(str(options["encoder"]), files.train)[0] is None:
        del options["encoder"]  # its text is mostly unknown to the encoder: the pipeline step drops it too
    given_epochs = options.pop("part_epochs", {})  # train --epochs-of: each part's epochs, and no time budget
    part_epochs: dict[str, int] = given_epochs if isinstance(given_epochs, dict) else {}
    given_parts = options.pop("part_options", {})  # the tagger's and tokenizer's own options
    given_grids = options.pop("choice_grids", {})  # the pipeline step's choices on dev, narrowed
    grids: dict[str, Sequence[float]] = given_grids if isinstance(given_grids, dict) else {}
    parts: dict[str, dict[str, object]] = given_parts if isinstance(given_parts, dict) else {}
    folds = int(str(options.get("jackknife", 4)))
    tagged = reads_tags(str(options["features"]).split(",") if "features" in options else None)
    part_options = {key: options[key] for key in ("epochs",) if key in options}
    tagger_options = part_options | {key: options[key] for key in ("pretrained", "encoder") if key in options}
    tagger_options |= parts.get("tagger", {})
    taggers = int(str(options.get("taggers", 1)))
    parsers = 2 if options.get("joint_member") else 1
    cores = int(str(options.get("cores", 1)))
    total = None if part_epochs else setting.budget_minutes
    budget = part_budgets(total, folds if tagged else 0, taggers, parsers, cores)  # the trainer's cut
    seed = base["seed"]

    def part_job(
        step: str, arch: str, train: str, directory: str, extra: dict, needs: tuple = (), member: int = 1
    ) -> Job:
        minutes = budget[step.split("-")[0]]  # fold-K: one fold tagger's; tagger-K: one member's
        command = _train_command(arch, train, files.dev, directory, seed + member - 1, minutes)
        command += option_arguments(extra | ({"epochs": part_epochs[step]} if step in part_epochs else {}))
        return Job(
            f"{prefix}/{step}",
            **base,
            step=step,
            commands=((step, tuple(command)),),
            needs=needs,
            model_dir=directory,
            resumable=arch in RESUMABLE,  # an interrupted parser continues from its checkpoint
            budget_minutes=minutes,
        )

    split = Job(
        f"{prefix}/folds",
        **base,
        step="folds",
        call=("lstmparse.pipeline.folds:write_all_fold_training_files", (model_dir, files.train, folds)),
    )
    jobs = [
        part_job("tagger", "tagger", files.train, f"{model_dir}/tagger", tagger_options),
        part_job(
            "tokenizer", "tokenizer", files.train, f"{model_dir}/tokenizer", part_options | parts.get("tokenizer", {})
        ),
    ]
    for k in range(2, taggers + 1):  # the other members of the tagger ensemble: the next seeds
        directory = f"{model_dir}/{tagger_member(k)}"
        jobs.append(part_job(f"tagger-{k}", "tagger", files.train, directory, tagger_options, member=k))
    if tagged:  # a parser reading no tag column trains on the gold treebank: no folds
        jobs.append(split)
    for k in range(1, folds + 1 if tagged else 1):
        train = str(fold_training_file(model_dir, k))
        directory = str(fold_tagger_directory(model_dir, k))
        jobs.append(part_job(f"fold-{k}", "tagger", train, directory, tagger_options, (split.id,)))
    if options.get("joint_member"):  # trained here in the place the pipeline reuses it from, as it would train it
        joint = joint_parser_arguments(options, files.train)
        jobs.append(part_job("parser-joint", "stacklstm", files.train, f"{model_dir}/{JOINT_PARSER}", joint))
    if not tagged:  # it needs no tagger: trained beside the other parts, and the pipeline reuses it
        if "pipeline" in part_epochs:
            part_epochs["parser"] = part_epochs["pipeline"]
        jobs.append(
            part_job("parser", "stacklstm", files.train, f"{model_dir}/parser", tagless_parser_arguments(options))
        )
    if part_epochs:
        missing = sorted(({job.step for job in jobs if job.step != "folds"} | {"pipeline"}) - set(part_epochs))
        if missing:
            raise ConfigurationError(f"--epochs-of: the model's card gives no epochs for {', '.join(missing)}")
        options["epochs"] = part_epochs["pipeline"]
    command = _train_command("pipeline", files.train, files.dev, model_dir, seed, total)
    command += [*option_arguments(options), *part_option_arguments(parts), *choice_arguments(grids)]
    command += ["--resume", "--recipe", NO_RECIPE]
    jobs.append(
        Job(
            f"{prefix}/pipeline",
            **base,
            step="pipeline",
            commands=(("pipeline", tuple(command)),),
            needs=tuple(job.id for job in jobs if job.step != "folds"),
            model_dir=model_dir,
            resumable=True,
            budget_minutes=budget["parser"] if tagged else 1.0,  # what it trains: the parser, if any
        )
    )
    return jobs


PIPELINE_ONLY = ("jackknife", "taggers", "joint_member", "half_precision", "pretrained_by_name", "cores")  # its own


def tagless_parser_arguments(options: dict) -> dict[str, object]:
    """The options the pipeline trains a parser that reads no tags with: its own, without the pipeline's (the
    pretrained vectors only where its features name them, as :class:`~lstmparse.pipeline.options.PipelineOptions`
    gives them)."""
    parser = {key: value for key, value in options.items() if key not in PIPELINE_ONLY}
    if "pretrained" not in str(options.get("features", "")).split(","):
        parser.pop("pretrained", None)
    return parser


PART_STEPS = {"tokenizer": "tokenizer", "parser": "pipeline", "parser_joint": "parser-joint"}


def part_step(directory: str) -> str | None:
    """The build step that trains a pipeline's part, by the part's directory in the model (a card's ``epochs``
    key): ``tagger_2`` is ``tagger-2``, ``jackknife/fold-1`` is ``fold-1``; None for one no step trains."""
    name = directory.rsplit("/", 1)[-1]
    if name in PART_STEPS:
        return PART_STEPS[name]
    if name == "tagger" or re.fullmatch(r"tagger_\d+|fold-\d+", name):
        return name.replace("_", "-")
    return None


def joint_parser_arguments(options: dict, train: str) -> dict[str, object]:
    """The options ``train --arch pipeline --joint-member`` trains its joint-UPOS parser with
    (:func:`lstmparse.pipeline.training.joint_parser_options`): the transition system chosen from the data as the
    tag-reading parser's is (or given), words and characters (and the encoder), one context layer."""
    from lstmparse.pipeline.recipe import choose_settings, treebank_facts

    system = options.get("system") or choose_settings(treebank_facts(train), {"features": "words,chars"}).system
    features = "words,chars,encoder" if options.get("encoder") else "words,chars"
    joint: dict[str, object] = {"features": features, "system": system, "context_layers": 1, "joint_upos": True}
    joint |= {key: options[key] for key in ("epochs", "encoder") if key in options}
    return joint


def _evaluation_job(
    prefix: str, base: dict, setting: Setting, files: TreebankFiles, model_dir: str, trained: str
) -> Job:
    """``lstmparse evaluate --model`` on dev and test, from each of the setting's sources."""
    commands: list[tuple[str, tuple[str, ...]]] = []
    for split, gold in (("dev", files.dev), ("test", files.test)):
        for source in setting.evaluate if gold is not None else ():
            command = ("lstmparse", "evaluate", str(gold), "--model", model_dir, "--from", source, "--json")
            commands.append((f"{split}.{source}", command))
    return Job(f"{prefix}/evaluate", **base, step="evaluate", commands=tuple(commands), needs=(trained,), trains=False)


def needed_by(jobs: Iterable[Job]) -> dict[str, list[str]]:
    """Each job's id mapped to the ids of the jobs that need it directly."""
    needing: dict[str, list[str]] = {}
    for job in jobs:
        for need in job.needs:
            needing.setdefault(need, []).append(job.id)
    return needing


def dependents(jobs: Iterable[Job], failed: str) -> set[str]:
    """Every job that needs ``failed``, directly or through others."""
    needing = needed_by(jobs)
    found, frontier = set(), [failed]
    while frontier:
        for dependent in needing.get(frontier.pop(), []):
            if dependent not in found:
                found.add(dependent)
                frontier.append(dependent)
    return found
