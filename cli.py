"""The ``lstmparse`` command line: a thin shell over the :mod:`lstmparse` API.

Data goes to stdout, progress and figures to stderr.  Malformed input ends with
``file:line: message`` and exit code 2; an interrupt exits with 130.
"""

from __future__ import annotations

import sys
import time
from functools import wraps

import click

from lstmparse import backend
from lstmparse.errors import ConfigurationError, InputError, ModelError
from lstmparse.formats import FORMATS
from lstmparse.systems import SYSTEMS

EXISTING_FILE = click.Path(exists=True, dir_okay=False)
FEATURE_HELP = "comma-separated token features from words,pretrained,pos,feats,chars"


def clean_errors(command):
    """Turn the toolkit's expected errors into one line on stderr and exit code 2."""

    @wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except (InputError, ModelError, ConfigurationError) as error:
            click.echo(f"lstmparse: {error}", err=True)
            sys.exit(2)
        except FileNotFoundError as error:
            click.echo(f"lstmparse: {error.filename}: no such file", err=True)
            sys.exit(2)
        except KeyboardInterrupt:
            click.echo("lstmparse: interrupted", err=True)
            sys.exit(130)

    return wrapper


def parse_features(value: str) -> list[str]:
    from lstmparse.tokens import FEATURES

    features = [f.strip() for f in value.split(",") if f.strip()]
    unknown = [f for f in features if f not in FEATURES]
    if unknown or not features:
        raise click.BadParameter(f"unknown features {unknown}; {FEATURE_HELP}")
    return features


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="lstmparse")
def main() -> None:
    """Stack-LSTM dependency parsing with DyNet: train, parse, evaluate."""


@main.command()
@click.option("--train", "train_file", required=True, type=EXISTING_FILE, help="training treebank")
@click.option("--dev", "dev_file", type=EXISTING_FILE, help="development treebank (model selection)")
@click.option("--model-dir", required=True, type=click.Path(file_okay=False), help="where the best model is written")
@click.option("--features", default="words,pos,chars", show_default=True, help=FEATURE_HELP)
@click.option(
    "--system", type=click.Choice(list(SYSTEMS)), default="arc-standard",
    show_default=True, help="transition system (stored in the model)",
)
@click.option(
    "--oracle", type=click.Choice(["static", "dynamic"]), default="static", show_default=True,
    help="dynamic: arc-hybrid's dynamic oracle with training by exploration",
)
@click.option("--alpha", default=0.75, show_default=True, type=click.FloatRange(min=0), help="explore with p^alpha")
@click.option(
    "--explore-p", default=0.9, show_default=True, type=click.FloatRange(0, 1),
    help="probability of following a sampled action when exploring",
)
@click.option("--explore-after", default=1, show_default=True, type=click.IntRange(min=0), help="epochs before it")
@click.option("--pseudo-projective", is_flag=True, help="train on projectivized trees, deprojectivize the output")
@click.option("--epochs", default=30, show_default=True, type=click.IntRange(min=1))
@click.option(
    "--max-minutes", type=click.FloatRange(min=0, min_open=True), help="wall-clock budget, dev evaluation included"
)
@click.option("--batch-size", default=1, show_default=True, type=click.IntRange(min=1), help="sentences per update")
@click.option("--learning-rate", default=0.1, show_default=True, type=float, help="eta0 of SGD")
@click.option(
    "--dropout", default=0.0, show_default=True, type=click.FloatRange(0, 1, max_open=True),
    help="dropout on token vectors and inside the stack LSTMs (training only)",
)
@click.option(
    "--context-layers", default=0, show_default=True, type=click.IntRange(min=0),
    help="bi-LSTM layers over the token vectors before parsing (0: the papers' model)",
)
@click.option("--pretrained", type=EXISTING_FILE, help="word2vec text-format embeddings")
@click.option("--input-format", type=click.Choice(["conllu", "conllx"]), default="conllu", show_default=True)
@click.option("--seed", default=1, show_default=True, type=int, help="seeds Python, NumPy and DyNet")
@click.option("--memory-mb", default=512, show_default=True, type=int, help="DyNet's initial memory pool")
@clean_errors
def train(train_file, dev_file, model_dir, features, system, oracle, alpha, explore_p, explore_after,
          pseudo_projective, epochs, max_minutes, batch_size, learning_rate, dropout, context_layers, pretrained,
          input_format, seed, memory_mb) -> None:
    """Train a stack-LSTM parser; the best model on dev is kept in MODEL_DIR."""
    backend.configure(seed=seed, memory_mb=memory_mb, weight_decay=1e-6)
    features = parse_features(features)
    from lstmparse.tokens import Dimensions
    from lstmparse.training import TrainingOptions
    from lstmparse.training import train as run_training

    if pseudo_projective and system == "arc-swap":
        raise click.BadParameter("arc-swap builds non-projective trees itself", param_hint="--pseudo-projective")
    options = TrainingOptions(
        train=train_file, dev=dev_file, model_dir=model_dir, features=features, system=system, oracle=oracle,
        alpha=alpha, explore_p=explore_p, explore_after=explore_after, pseudo_projective=pseudo_projective,
        epochs=epochs, max_minutes=max_minutes, batch_size=batch_size, learning_rate=learning_rate, dropout=dropout,
        seed=seed, pretrained=pretrained, input_format=input_format, dims=Dimensions(context_layers=context_layers),
    )
    record = run_training(options)
    best = record.get("best_dev_las")
    summary = f"best dev LAS {best:.2f} at epoch {record['best_epoch']}" if best is not None else "model saved"
    click.echo(f"{summary}; {record['total_seconds']:.0f} s in all; model in {model_dir}", err=True)


@main.command()
@click.option("--model", "model_dir", type=click.Path(file_okay=False), help="model directory [default: shipped]")
@click.option("--input", "input_file", default="-", show_default=True, help="input file, - for stdin")
@click.option("--output", "output_file", default="-", show_default=True, help="output file, - for stdout")
@click.option("--input-format", type=click.Choice(FORMATS), default="conllu", show_default=True)
@click.option("--beam", default=1, show_default=True, type=click.IntRange(min=1), help="beam width (1: greedy)")
@click.option(
    "--kbest", default=1, show_default=True, type=click.IntRange(min=1),
    help="write the K best trees per sentence, ranked and scored (needs --beam >= K)",
)
@click.option("--quiet", is_flag=True, help="no progress or speed report on stderr")
@click.option("--memory-mb", default=backend.DEFAULT_MEMORY_MB, show_default=True, type=int)
@clean_errors
def parse(model_dir, input_file, output_file, input_format, beam, kbest, quiet, memory_mb) -> None:
    """Parse CoNLL-U, CoNLL-X or tokenized text; write CoNLL-U."""
    if kbest > beam:
        raise click.BadParameter(f"--kbest {kbest} needs a beam at least as wide", param_hint="--beam")
    backend.configure(seed=1, memory_mb=memory_mb)
    from lstmparse.api import Parser

    load_start = time.time()
    parser = Parser.load(model_dir)
    load_seconds = time.time() - load_start
    start, sentences, words = time.time(), 0, 0
    with click.open_file(output_file, "w", encoding="utf-8") as out:
        for candidates in _parsed(parser, input_file, input_format, beam, kbest):
            sentence = candidates[0]
            out.write("".join(c.to_conllu() for c in candidates))
            sentences += 1
            words += len(sentence)
            if not quiet and sentences % 1000 == 0:
                click.echo(f"parsed {sentences} sentences", err=True)
    seconds = max(time.time() - start, 1e-9)
    if not quiet:
        click.echo(
            f"parsed {sentences} sentences, {words} words in {seconds:.1f} s "
            f"({sentences / seconds:.1f} sentences/s, {words / seconds:.0f} words/s); "
            f"model loaded in {load_seconds:.2f} s",
            err=True,
        )


def _parsed(parser, input_file: str, input_format: str, beam: int, kbest: int):
    """Lists of parsed candidates per input sentence: greedy one at a time, or beam search."""
    from lstmparse.formats import read_sentences

    sentences = read_sentences(input_file, input_format)
    if beam == 1:
        return ([sentence] for sentence in parser.parse(sentences))
    return parser.parse_kbest(sentences, beam, kbest)


@main.command()
@click.argument("gold", type=EXISTING_FILE)
@click.argument("system", type=EXISTING_FILE)
@click.option("--json", "as_json", is_flag=True, help="print the scores as JSON")
@clean_errors
def evaluate(gold, system, as_json) -> None:
    """Score SYSTEM against GOLD: UAS, LAS, CLAS as the CoNLL 2018 scorer, and without punctuation."""
    import json

    from lstmparse.evaluation import evaluate_files

    scores = evaluate_files(gold, system)
    click.echo(json.dumps(scores.as_dict(), indent=2) if as_json else scores.report())


@main.command()
@click.argument("treebank", type=EXISTING_FILE)
@click.option(
    "--system", type=click.Choice(list(SYSTEMS)), default="arc-standard",
    show_default=True,
)
@click.option("--pseudo-projective", is_flag=True, help="run on projectivized trees")
@click.option("--transitions", is_flag=True, help="print each sentence's action sequence on stdout")
@click.option("--check", is_flag=True, help="exit 1 unless every tree the system can build is reproduced")
@click.option("--input-format", type=click.Choice(["conllu", "conllx"]), default="conllu", show_default=True)
@clean_errors
def oracle(treebank, system, pseudo_projective, transitions, check, input_format) -> None:
    """Run the static oracle on every tree of TREEBANK and report what it reproduces."""
    from lstmparse.oracle import run_oracle

    report = run_oracle(treebank, system, pseudo_projective, input_format)
    if transitions:
        for sent_id, actions in report.transitions:
            click.echo(f"{sent_id}\t{' '.join(actions) if actions is not None else '-'}")
    click.echo(report.summary(), err=transitions)
    if check and not report.complete:
        sys.exit(1)


if __name__ == "__main__":
    main()
