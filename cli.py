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
MEMORY_MB = click.IntRange(min=1)  # DyNet aborts on an empty pool
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
        except BrokenPipeError:  # the reader went away (| head): stop quietly, as a shell tool would
            _silence_stdout()
            sys.exit(141)
        except OSError as error:  # a directory given as a file, no permission, a full disk
            where = f"{error.filename}: " if error.filename else ""
            click.echo(f"lstmparse: {where}{error.strerror or error}", err=True)
            sys.exit(2)
        except KeyboardInterrupt:
            click.echo("lstmparse: interrupted", err=True)
            sys.exit(130)

    return wrapper


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that Python's final flush does not fail on the closed pipe again."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def parse_features(value: str) -> list[str]:
    from lstmparse.tokens import FEATURES

    features = [f.strip() for f in value.split(",") if f.strip()]
    unknown = [f for f in features if f not in FEATURES]
    if unknown or not features:
        raise click.BadParameter(f"unknown features {unknown}; {FEATURE_HELP}")
    return features


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="lstmparse")
@click.option("--gpu", is_flag=True, help="run DyNet on the GPU (needs DyNet built with CUDA: make dynet-gpu)")
@click.option("--dynet-gpus", type=click.IntRange(min=1), help="DyNet's --dynet-gpus: how many GPUs")
@click.option("--dynet-devices", help="DyNet's --dynet-devices, e.g. GPU:0 or GPU:0,GPU:1")
def main(gpu, dynet_gpus, dynet_devices) -> None:
    """Dependency parsing with stack LSTMs, and TreeLSTM reranking, on DyNet.

    GPU options go before the command: lstmparse --gpu train ...
    """
    if gpu or dynet_gpus or dynet_devices:
        backend.request_gpu(dynet_gpus or 1, dynet_devices)


ARCH_DEFAULTS = {  # batch size, learning rate, dropout, DyNet memory (MB; autobatching needs it preallocated)
    "stacklstm": (1, 0.1, 0.0, 512),
    "treelstm": (32, 1.0, 0.2, 1536),
    "ldtreelstm": (32, 1.0, 0.2, 1536),
    "seq2seq": (16, 0.002, 0.2, 2048),
}
NETWORK_DEFAULTS = {"treelstm": (2, 200), "ldtreelstm": (2, 200), "seq2seq": (3, 256)}  # LSTM layers, size


@main.command()
@click.option(
    "--arch",
    type=click.Choice(list(ARCH_DEFAULTS)),
    default="stacklstm",
    show_default=True,
    help="stacklstm: the parser; treelstm/ldtreelstm: tree language models for reranking, scoring, sampling; "
    "seq2seq: the constituency parser (PTB bracketed trees)",
)
@click.option("--train", "train_file", required=True, type=EXISTING_FILE, help="training treebank")
@click.option("--dev", "dev_file", type=EXISTING_FILE, help="development treebank (model selection)")
@click.option("--model-dir", required=True, type=click.Path(file_okay=False), help="where the best model is written")
@click.option("--features", default="words,pos,chars", show_default=True, help=FEATURE_HELP)
@click.option(
    "--system",
    type=click.Choice(list(SYSTEMS)),
    default="arc-standard",
    show_default=True,
    help="transition system (stored in the model)",
)
@click.option(
    "--oracle",
    type=click.Choice(["static", "dynamic"]),
    default="static",
    show_default=True,
    help="dynamic: the system's dynamic oracle (arc-hybrid, arc-eager) with training by exploration",
)
@click.option("--alpha", default=0.75, show_default=True, type=click.FloatRange(min=0), help="explore with p^alpha")
@click.option(
    "--explore-p",
    default=0.9,
    show_default=True,
    type=click.FloatRange(0, 1),
    help="probability of following a sampled action when exploring",
)
@click.option("--explore-after", default=1, show_default=True, type=click.IntRange(min=0), help="epochs before it")
@click.option("--pseudo-projective", is_flag=True, help="train on projectivized trees, deprojectivize the output")
@click.option("--epochs", default=30, show_default=True, type=click.IntRange(min=1))
@click.option(
    "--max-minutes", type=click.FloatRange(min=0, min_open=True), help="wall-clock budget, dev evaluation included"
)
@click.option(
    "--batch-size", type=click.IntRange(min=1), help="sentences per update [default: 1; TreeLSTMs 32; seq2seq 16]"
)
@click.option(
    "--learning-rate",
    type=float,
    help="eta0 of SGD [default: 0.1; TreeLSTMs 1.0, halved on dev]; seq2seq: Adam's alpha [0.002]",
)
@click.option(
    "--dropout",
    type=click.FloatRange(0, 1, max_open=True),
    help="dropout on token vectors and inside the LSTMs, training only [default: 0; TreeLSTMs and seq2seq 0.2]",
)
@click.option(
    "--context-layers",
    default=0,
    show_default=True,
    type=click.IntRange(min=0),
    help="bi-LSTM layers over the token vectors before parsing (0: the papers' model)",
)
@click.option("--pretrained", type=EXISTING_FILE, help="word2vec text-format embeddings")
@click.option("--input-format", type=click.Choice(["conllu", "conllx"]), default="conllu", show_default=True)
@click.option(
    "--objective",
    type=click.Choice(["nll", "nce"]),
    default="nll",
    show_default=True,
    help="TreeLSTMs: full softmax, or noise-contrastive estimation for large vocabularies",
)
@click.option(
    "--min-count",
    default=1,
    show_default=True,
    type=click.IntRange(min=0),
    help="TreeLSTMs: words seen at most this often become UNK",
)
@click.option("--layers", type=click.IntRange(min=1), help="LSTM depth [TreeLSTMs: 2; seq2seq: 3]")
@click.option("--hidden", type=click.IntRange(min=1), help="LSTM size [TreeLSTMs: 200; seq2seq: 256]")
@click.option(
    "--bidirectional",
    is_flag=True,
    help="seq2seq: encode with a forward LSTM too (the paper reads the input reversed only)",
)
@click.option(
    "--word-pointer",
    is_flag=True,
    help="seq2seq: feed the decoder the encoding of the next word to place, besides attention (not in the paper)",
)
@click.option(
    "--chars",
    "char_lstm",
    is_flag=True,
    help="seq2seq: add a character bi-LSTM's vector (100) to each word's, for rare or unseen words (not in the paper)",
)
@click.option(
    "--resume",
    is_flag=True,
    help="continue an interrupted run from MODEL_DIR's last checkpoint (stack-LSTM) or best model (seq2seq); "
    "same data and options",
)
@click.option("--overwrite", is_flag=True, help="replace the model already in MODEL_DIR (otherwise refused)")
@click.option("--seed", default=1, show_default=True, type=int, help="seeds Python, NumPy and DyNet")
@click.option("--memory-mb", type=MEMORY_MB, help="DyNet's memory pool [default: 512; TreeLSTMs 1536; seq2seq 2048]")
@clean_errors
def train(
    arch,
    train_file,
    dev_file,
    model_dir,
    features,
    system,
    oracle,
    alpha,
    explore_p,
    explore_after,
    pseudo_projective,
    epochs,
    max_minutes,
    batch_size,
    learning_rate,
    dropout,
    context_layers,
    pretrained,
    input_format,
    objective,
    min_count,
    layers,
    hidden,
    bidirectional,
    word_pointer,
    char_lstm,
    resume,
    overwrite,
    seed,
    memory_mb,
) -> None:
    """Train a parser (or a TreeLSTM with --arch); the best model on dev is kept in MODEL_DIR."""
    from lstmparse.model_io import check_training_directory

    check_training_directory(model_dir, resume, overwrite)
    defaults = ARCH_DEFAULTS[arch]
    batch_size = defaults[0] if batch_size is None else batch_size
    learning_rate = defaults[1] if learning_rate is None else learning_rate
    dropout = defaults[2] if dropout is None else dropout
    memory_mb = defaults[3] if memory_mb is None else memory_mb
    if arch in ("treelstm", "ldtreelstm") and resume:
        raise click.BadParameter("TreeLSTM training cannot be resumed", param_hint="--resume")
    layers = layers or NETWORK_DEFAULTS.get(arch, (2, 200))[0]
    hidden = hidden or NETWORK_DEFAULTS.get(arch, (2, 200))[1]
    if arch == "seq2seq":
        backend.configure(seed=seed, memory_mb=memory_mb)
        from lstmparse.seq2seq import CHAR_LSTM_SIZE, Seq2SeqDimensions
        from lstmparse.seq2seq_training import Seq2SeqOptions, train_seq2seq

        options = Seq2SeqOptions(
            train=train_file,
            dev=dev_file,
            model_dir=model_dir,
            epochs=epochs,
            max_minutes=max_minutes,
            batch_size=batch_size,
            learning_rate=learning_rate,
            dropout=dropout,
            seed=seed,
            pretrained=pretrained,
            dims=Seq2SeqDimensions(
                word=hidden,
                hidden=hidden,
                layers=layers,
                attention=hidden,
                bidirectional=bidirectional,
                word_pointer=word_pointer,
                chars=CHAR_LSTM_SIZE if char_lstm else 0,
            ),
            resume=resume,
        )
        record = train_seq2seq(options)
        click.echo(
            f"best dev F1 {record.get('best_dev_f1')} at epoch {record.get('best_epoch')}; "
            f"{record['total_seconds']:.0f} s in all; model in {model_dir}",
            err=True,
        )
        return
    if arch != "stacklstm":
        backend.configure(seed=seed, memory_mb=memory_mb)
        from lstmparse.treelstm import TreeLSTMDimensions
        from lstmparse.treelstm_training import TreeLSTMOptions, train_treelstm

        options = TreeLSTMOptions(
            train=train_file,
            dev=dev_file,
            model_dir=model_dir,
            arch=arch,
            objective=objective,
            min_count=min_count,
            epochs=epochs,
            max_minutes=max_minutes,
            batch_size=batch_size,
            learning_rate=learning_rate,
            dropout=dropout,
            seed=seed,
            input_format=input_format,
            dims=TreeLSTMDimensions(embedding=hidden, hidden=hidden, layers=layers),
        )
        record = train_treelstm(options)
        click.echo(
            f"best dev perplexity {record.get('best_dev_perplexity')} at epoch {record.get('best_epoch')}; "
            f"{record['total_seconds']:.0f} s in all; model in {model_dir}",
            err=True,
        )
        return
    backend.configure(seed=seed, memory_mb=memory_mb, weight_decay=1e-6)
    features = parse_features(features)
    from lstmparse.tokens import Dimensions
    from lstmparse.training import TrainingOptions
    from lstmparse.training import train as run_training

    options = TrainingOptions(
        train=train_file,
        dev=dev_file,
        model_dir=model_dir,
        features=features,
        system=system,
        oracle=oracle,
        alpha=alpha,
        explore_p=explore_p,
        explore_after=explore_after,
        pseudo_projective=pseudo_projective,
        epochs=epochs,
        max_minutes=max_minutes,
        batch_size=batch_size,
        learning_rate=learning_rate,
        dropout=dropout,
        seed=seed,
        pretrained=pretrained,
        input_format=input_format,
        dims=Dimensions(context_layers=context_layers),
        resume=resume,
    )
    record = run_training(options)
    best = record.get("best_dev_las")
    summary = f"best dev LAS {best:.2f} at epoch {record['best_epoch']}" if best is not None else "model saved"
    click.echo(f"{summary}; {record['total_seconds']:.0f} s in all; model in {model_dir}", err=True)


@main.command()
@click.option("--model", "model_dir", type=click.Path(file_okay=False), help="model directory [default: shipped]")
@click.option("--input", "input_file", default="-", show_default=True, help="input file, - for stdin")
@click.option("--output", "output_file", default="-", show_default=True, help="output file, - for stdout")
@click.option(
    "--input-format",
    type=click.Choice(FORMATS + ("ptb",)),
    default="conllu",
    show_default=True,
    help="ptb: bracketed trees, for constituency models (their words are parsed, their POS tags kept)",
)
@click.option("--beam", type=click.IntRange(min=1), help="beam width, 1: greedy [default: 1; constituency models 10]")
@click.option(
    "--kbest",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="write the K best trees per sentence, ranked and scored (needs --beam >= K)",
)
@click.option(
    "--jobs",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="parse with N processes (output stays in input order)",
)
@click.option(
    "--batch-size",
    default=32,
    show_default=True,
    type=click.IntRange(min=1),
    help="dependency models: parses advanced together in lock-step, sentences x beam (1: one sentence at a time; "
    "the output is the same, larger batches are faster and take more memory)",
)
@click.option(
    "--constrained/--unconstrained",
    default=True,
    show_default=True,
    help="constituency models: search only well-formed trees, or (the paper's way) repair malformed output",
)
@click.option("--quiet", is_flag=True, help="no progress or speed report on stderr")
@click.option("--memory-mb", default=backend.DEFAULT_MEMORY_MB, show_default=True, type=MEMORY_MB)
@clean_errors
def parse(
    model_dir, input_file, output_file, input_format, beam, kbest, batch_size, constrained, jobs, quiet, memory_mb
) -> None:
    """Parse CoNLL-U, CoNLL-X or tokenized text; write CoNLL-U (bracketed trees with a constituency model)."""
    from lstmparse.model_io import DEFAULT_MODEL, model_arch
    from lstmparse.outputs import check_output_path

    if model_arch(model_dir or DEFAULT_MODEL) == "seq2seq":
        _parse_constituency(
            model_dir, input_file, output_file, input_format, beam or 10, constrained, kbest, jobs, quiet, memory_mb
        )
        return
    check_output_path(output_file, (input_file,))  # before the model is loaded: fail fast
    beam = beam or 1
    if input_format == "ptb":
        raise click.BadParameter("bracketed input needs a constituency (seq2seq) model", param_hint="--input-format")
    if kbest > beam:
        raise click.BadParameter(f"--kbest {kbest} needs a beam at least as wide", param_hint="--beam")
    backend.configure(seed=1, memory_mb=memory_mb)
    from lstmparse.api import Parser

    load_start = time.time()
    parser = Parser.load(model_dir)  # with --jobs too: a bad model fails here, with a clean error, not in a worker
    load_seconds = time.time() - load_start
    start, sentences, words = time.time(), 0, 0
    parsed = _parsed(parser, input_file, input_format, beam, kbest, batch_size, jobs, model_dir, memory_mb)
    for candidates in _written(output_file, parsed, lambda cs: "".join(c.to_conllu() for c in cs), quiet, input_file):
        sentences += 1
        words += len(candidates[0])
    seconds = max(time.time() - start, 1e-9)
    if not quiet:
        click.echo(
            f"parsed {sentences} sentences, {words} words in {seconds:.1f} s "
            f"({sentences / seconds:.1f} sentences/s, {words / seconds:.0f} words/s); "
            f"model loaded in {load_seconds:.2f} s",
            err=True,
        )


def _written(output_file: str, results, text_of, quiet: bool, input_file: str = "-"):
    """Each result, after its text is written to ``output_file``; progress every 1000 on stderr.

    A named output file appears only when all went well (:mod:`lstmparse.outputs`).
    """
    from lstmparse.outputs import open_output

    with open_output(output_file, (input_file,)) as out:
        for count, result in enumerate(results, start=1):
            out.write(text_of(result))
            if not quiet and count % 1000 == 0:
                click.echo(f"parsed {count} sentences", err=True)
            yield result


def _bracketed_line(parsed) -> str:
    return parsed.to_bracketed() + "\n"


def _parse_constituency(
    model_dir, input_file, output_file, input_format, beam, constrained, kbest, jobs, quiet, memory_mb
):
    """Parse with a seq2seq model: one bracketed tree per line, and how many outputs needed repair."""
    if kbest > 1 or jobs > 1:
        raise click.BadParameter("constituency models parse with --beam only (no --kbest, --jobs)")
    backend.configure(seed=1, memory_mb=memory_mb)
    from lstmparse.api import ConstituencyParser
    from lstmparse.formats import read_sentences
    from lstmparse.ptb import iter_ptb

    load_start = time.time()
    parser = ConstituencyParser.load(model_dir)
    load_seconds = time.time() - load_start
    inputs = iter_ptb(input_file) if input_format == "ptb" else read_sentences(input_file, input_format)
    start, sentences, repaired = time.time(), 0, 0
    for parsed in _written(output_file, parser.parse(inputs, beam, constrained), _bracketed_line, quiet, input_file):
        sentences += 1
        repaired += parsed.repaired
    seconds = max(time.time() - start, 1e-9)
    if not quiet:
        click.echo(
            f"parsed {sentences} sentences in {seconds:.1f} s ({sentences / seconds:.1f} sentences/s, beam {beam}, "
            f"{'constrained' if constrained else 'unconstrained'}); {repaired} outputs repaired into well-formed "
            f"trees; model loaded in {load_seconds:.2f} s",
            err=True,
        )


def _parsed(
    parser, input_file: str, input_format: str, beam: int, kbest: int, batch_size: int, jobs: int, model_dir, memory_mb
):
    """Lists of parsed candidates per input sentence: greedy or beam search, ``batch_size`` at a time."""
    from lstmparse.formats import read_sentences
    from lstmparse.parallel import parse_in_processes

    sentences = read_sentences(input_file, input_format)
    if jobs > 1:
        return parse_in_processes(model_dir, sentences, jobs, beam, kbest, memory_mb, batch_size)
    if beam == 1:
        return ([sentence] for sentence in parser.parse(sentences, batch_size))
    return parser.parse_kbest(sentences, beam, kbest, batch_size)


@main.command()
@click.argument("gold", type=EXISTING_FILE)
@click.argument("system", type=EXISTING_FILE)
@click.option("--json", "as_json", is_flag=True, help="print the scores as JSON")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["conllu", "ptb"]),
    default="conllu",
    show_default=True,
    help="ptb: labelled brackets with EVALB's COLLINS.prm conventions",
)
@clean_errors
def evaluate(gold, system, as_json, fmt) -> None:
    """Score SYSTEM against GOLD: UAS, LAS, CLAS as the CoNLL 2018 scorer, and without punctuation;
    with --format ptb, labelled bracket recall, precision and F1 as EVALB."""
    import json

    if fmt == "ptb":
        from lstmparse.evalb import evaluate_ptb_files

        scores = evaluate_ptb_files(gold, system)
        click.echo(json.dumps(scores.as_dict(), indent=2) if as_json else scores.report())
        return
    from lstmparse.evaluation import evaluate_files

    scores = evaluate_files(gold, system)
    click.echo(json.dumps(scores.as_dict(), indent=2) if as_json else scores.report())


@main.command()
@click.argument("treebank", type=EXISTING_FILE)
@click.option(
    "--system",
    type=click.Choice(list(SYSTEMS)),
    default="arc-standard",
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


@main.command()
@click.argument("kbest", required=False)
@click.option("--model", "model_dir", required=True, type=click.Path(file_okay=False), help="TreeLSTM model directory")
@click.option("--k", "k", type=click.IntRange(min=1), help="candidates considered per sentence [default: tuned]")
@click.option("--weight", type=click.FloatRange(0, 1), help="W of the TreeLSTM's log-probability [default: tuned]")
@click.option("--tune", "tune_file", type=EXISTING_FILE, help="dev k-best file: pick W and K by UAS against --gold")
@click.option("--gold", "gold_file", type=EXISTING_FILE, help="gold trees of the --tune sentences")
@click.option("--save", is_flag=True, help="store the tuned W and K in the model directory")
@click.option("--output", "output_file", default="-", show_default=True, help="output file, - for stdout")
@click.option("--memory-mb", default=backend.AUTOBATCH_MEMORY_MB, show_default=True, type=MEMORY_MB)
@clean_errors
def rerank(kbest, model_dir, k, weight, tune_file, gold_file, save, output_file, memory_mb) -> None:
    """Pick the best of each sentence's k-best trees (KBEST, - for stdin) with a TreeLSTM.

    Score = W * log P_treelstm(S|T) + (1 - W) * parser_score over the first K
    candidates; writes the chosen trees as CoNLL-U.
    """
    if bool(tune_file) != bool(gold_file):
        raise click.UsageError("--tune and --gold go together")
    if kbest is None and tune_file is None:
        raise click.UsageError("give a KBEST file to rerank, or --tune and --gold")
    backend.configure(seed=1, memory_mb=memory_mb)
    from lstmparse import rerank as reranking
    from lstmparse.model_io import update_config
    from lstmparse.outputs import check_output_path, open_output
    from lstmparse.treelstm import TreeLSTM

    model = TreeLSTM.load(model_dir)
    settings = dict(model.tuned)
    if tune_file:
        tuning = _tuned(model, tune_file, gold_file)
        settings = {"weight": tuning.weight, "k": tuning.k, "dev_uas": round(tuning.uas, 2)}
        if save:
            update_config(model_dir, {"rerank": settings})
    if kbest is None:
        return
    weight = settings.get("weight") if weight is None else weight
    k = settings.get("k", 10**9) if k is None else k
    if weight is None:
        raise click.UsageError(f"{model_dir} has no tuned weight: give --weight, or --tune and --gold (with --save)")
    check_output_path(output_file, (kbest,))
    groups = _scored_kbest(model, kbest)
    with open_output(output_file, (kbest,)) as out:
        for sentence in reranking.rerank(groups, weight, k):
            out.write(sentence.to_conllu())
    click.echo(f"reranked {len(groups)} sentences with W = {weight}, K = {k}", err=True)


def _scored_kbest(model, path: str):
    from lstmparse import rerank as reranking

    groups = reranking.read_kbest(path)
    with click.progressbar(length=sum(map(len, groups)), label="scoring candidates", file=sys.stderr) as bar:
        reranking.score_candidates(model, groups, bar.update)
    return groups


def _tuned(model, tune_file: str, gold_file: str):
    from lstmparse import rerank as reranking
    from lstmparse.formats import read_treebank

    tuning = reranking.tune(_scored_kbest(model, tune_file), read_treebank(gold_file))
    click.echo(
        f"tuned on {tune_file}: W = {tuning.weight}, K = {tuning.k}; UAS 1-best {tuning.one_best_uas:.2f}, "
        f"reranked {tuning.uas:.2f}, oracle {tuning.oracle_uas:.2f}",
        err=True,
    )
    return tuning


@main.command()
@click.argument("treebank")
@click.option("--model", "model_dir", required=True, type=click.Path(file_okay=False), help="TreeLSTM model directory")
@click.option("--memory-mb", default=backend.AUTOBATCH_MEMORY_MB, show_default=True, type=MEMORY_MB)
@clean_errors
def score(treebank, model_dir, memory_mb) -> None:
    """Print log P(S|T), word count and perplexity of each tree in TREEBANK (- for stdin)."""
    backend.configure(seed=1, memory_mb=memory_mb)
    from lstmparse.rerank import comment_value
    from lstmparse.treelstm import TreeLSTM
    from lstmparse.treelstm_training import corpus_perplexity, read_trees, score_sentences

    model = TreeLSTM.load(model_dir)
    sentences = read_trees(treebank)
    scores = score_sentences(model, sentences)
    click.echo("sent_id\tlog_prob\twords\tperplexity")
    for number, (sentence, tree) in enumerate(zip(sentences, scores, strict=True), start=1):
        sent_id = comment_value(sentence, "sent_id") or str(number)
        click.echo(f"{sent_id}\t{tree.log_prob:.4f}\t{tree.words}\t{tree.perplexity:.2f}")
    click.echo(f"{len(sentences)} trees, perplexity {corpus_perplexity(scores):.2f}", err=True)


@main.command()
@click.option("--model", "model_dir", required=True, type=click.Path(file_okay=False), help="TreeLSTM model directory")
@click.option("-n", "count", default=10, show_default=True, type=click.IntRange(min=1), help="trees to generate")
@click.option("--max-words", default=60, show_default=True, type=click.IntRange(min=1))
@click.option("--seed", default=1, show_default=True, type=int, help="seeds Python, NumPy and DyNet")
@clean_errors
def sample(model_dir, count, max_words, seed) -> None:
    """Generate trees from a TreeLSTM and write them as CoNLL-U (HEAD filled, DEPREL _)."""
    backend.configure(seed=seed)
    from lstmparse.formats import Sentence
    from lstmparse.treelstm import TreeLSTM

    model = TreeLSTM.load(model_dir)
    for number in range(1, count + 1):
        forms, heads = model.sample_tree(max_words)
        sentence = Sentence.from_forms(forms, [f"# sent_id = sample-{number}", f"# text = {' '.join(forms)}"])
        click.echo(sentence.to_conllu(heads, [None] * len(forms)), nl=False)


if __name__ == "__main__":
    main()
