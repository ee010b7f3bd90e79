"""``lstmparse parse``: dependency or constituency trees, whichever the model builds."""

from __future__ import annotations

import functools
import time

import click

from lstmparse.cli.common import MEMORY_MB, MODEL, MODEL_HELP, clean_errors, comma_separated, configure_dynet, written
from lstmparse.core import backend
from lstmparse.core.batching import PARSE_BATCH_SIZE
from lstmparse.errors import ConfigurationError
from lstmparse.io.document import sentences_text
from lstmparse.io.formats import FORMATS, RAW_FORMATS
from lstmparse.io.inputs import checked_sentences

STAGES = ("tokenize", "tag", "parse")


class StageList(click.ParamType):
    """Comma-separated stages (``tokenize,tag``), each known, given in pipeline order."""

    name = "STAGES"

    def convert(self, value, param, ctx):
        if isinstance(value, list):
            return value
        stages = comma_separated(value)
        unknown = [stage for stage in stages if stage not in STAGES]
        if unknown or not stages:
            self.fail(f"{value!r}: the stages are {', '.join(STAGES)}", param, ctx)
        return [stage for stage in STAGES if stage in stages]


PROCESSORS = StageList()


@click.command()
@click.option("--model", "model_dir", type=MODEL, help=MODEL_HELP)
@click.option("--input", "input_file", default="-", show_default=True, help="input file, - for stdin")
@click.option("--output", "output_file", default="-", show_default=True, help="output file, - for stdout")
@click.option(
    "--input-format",
    type=click.Choice(FORMATS + RAW_FORMATS + ("ptb",)),
    default="conllu",
    show_default=True,
    help="raw: plain text, paragraphs separated by blank lines (a pipeline model tokenizes it); presegmented: "
    "plain text, one sentence per line (tokenized, not split); text: tokens separated by spaces, one sentence "
    "per line; vertical: one token per line, a blank line after each sentence; ptb: bracketed trees, for "
    "constituency models (their words are parsed, their POS tags kept)",
)
@click.option(
    "--output-format",
    type=click.Choice(("conllu", "json", "ptb")),
    help="conllu: every input line kept, the tree filled in (constituency models: the tree in a "
    "'# constituency = ...' comment, as Stanza writes it); json: one JSON object per sentence and line (the "
    "docs/python-api.md's schema); ptb: bracketed trees, one per line (constituency models only) "
    "[default: conllu; constituency models ptb]",
)
@click.option(
    "--retag",
    is_flag=True,
    help="pipeline models: predict UPOS, XPOS and FEATS even where the input has them (by default only blank "
    "columns are tagged)",
)
@click.option(
    "--beam",
    type=click.IntRange(min=1),
    help="beam width, 1: greedy [default: the model's: 1, or what its pipeline chose on dev (lstmparse models NAME); "
    "constituency models 10]",
)
@click.option(
    "--kbest",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="write the K best trees per sentence, ranked and scored (needs --beam >= K); constituency models write "
    "a block per sentence of 'rank<TAB>log-probability<TAB>tree' lines",
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
    default=PARSE_BATCH_SIZE,
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
@click.option(
    "--tagger",
    "tagger_dir",
    type=MODEL,
    help="a tagger, or a pipeline whose tagger to use: it tags for the dependency parser instead of the model's own "
    "(any tagger with any tag-reading parser); constituency models: its XPOS go on the preterminals instead of XX",
)
@click.option(
    "--tokenizer",
    "tokenizer_dir",
    type=MODEL,
    help="a tokenizer, or a pipeline whose tokenizer to use, for raw text [default: the model's own]",
)
@click.option(
    "--processors",
    type=PROCESSORS,
    help="the stages to run, as Stanza names them: tokenize, tag, parse, comma-separated (tokenize,tag: no "
    "parsing; a --model that is a tagger or tokenizer runs only what it has) [default: every stage the model has]",
)
@click.option(
    "--confidence",
    type=click.Choice(["greedy", "kbest"]),
    help="dependency models: write each word's confidence in MISC (Conf=0.93) and the tree's in a "
    "'# parse_confidence' comment. greedy: the probability the parser gave the action that attached the word "
    "(not a marginal); kbest: the share of the k-best list's probability mass whose tree has the word's arc "
    "(beam and k-best 8 unless --beam/--kbest say otherwise; only the best tree is written unless --kbest > 1)",
)
@click.option("--quiet", is_flag=True, help="no progress or speed report on stderr")
@click.option(
    "--memory-mb",
    default=backend.DEFAULT_MEMORY_MB,
    show_default=True,
    type=MEMORY_MB,
    help="DyNet's memory pools at start, MB (they grow as needed; each --jobs process has its own)",
)
@clean_errors
def parse(
    model_dir,
    input_file,
    output_file,
    input_format,
    output_format,
    retag,
    beam,
    kbest,
    batch_size,
    constrained,
    jobs,
    tagger_dir,
    tokenizer_dir,
    processors,
    confidence,
    quiet,
    memory_mb,
) -> None:
    """Parse raw text, tokenized text, CoNLL-U or CoNLL-X; write CoNLL-U or JSON (constituency models: bracketed trees).

    The default model is the English pipeline (tokenizer, tagger, parser): it takes
    all four; CoNLL-U columns the input fills are kept.  --model takes a directory
    or a name (lstmparse models lists them); --processors, --tagger and --tokenizer
    run part of a pipeline or put other parts in it.
    """
    from lstmparse.core.families import family
    from lstmparse.core.model_io import DEFAULT_MODEL
    from lstmparse.core.records import read_record

    record = read_record(model_dir or DEFAULT_MODEL)  # read once, handed on to the loaders
    if family(record.arch).constituency:
        if retag or tokenizer_dir or processors or confidence:
            raise ConfigurationError(
                f"--retag, --tokenizer, --processors and --confidence apply to dependency models and pipelines; "
                f"{model_dir} is a constituency model (raw text goes through the default pipeline's tokenizer)"
            )
        _parse_constituency(
            record,
            input_file,
            output_file,
            (input_format, output_format or "ptb"),
            tagger_dir,
            (beam or 10, constrained, kbest, jobs),
            quiet,
            memory_mb,
        )
        return
    _parse_dependency(
        (record, tagger_dir, tokenizer_dir, processors),
        input_file,
        output_file,
        (input_format, output_format or "conllu", retag),
        _search(beam, kbest, batch_size, jobs, confidence),
        quiet,
        memory_mb,
    )


def _parse_dependency(models, input_file, output_file, formats, search, quiet, memory_mb):
    """Tokenize, tag and parse with the stages asked for; ``models`` is (model, tagger, tokenizer, processors).

    ``formats`` is (input format, output format, retag); ``search`` is what :func:`_search` gives.
    """
    from lstmparse.io.outputs import check_output_path

    input_format, output_format, retag = formats
    beam, kbest, batch_size, jobs, confidence, written_kbest = search
    check_output_path(output_file, (input_file,))  # before the model is loaded: fail fast
    if "ptb" in (input_format, output_format):
        option = "--input-format" if input_format == "ptb" else "--output-format"
        raise click.BadParameter("bracketed trees need a constituency (seq2seq) model", param_hint=option)
    if beam is not None and kbest > beam:
        raise click.BadParameter(f"--kbest {kbest} needs a beam at least as wide", param_hint="--beam")
    configure_dynet(seed=1, memory_mb=memory_mb)
    from lstmparse.pipeline.api import Pipeline

    load_start = time.time()
    # with --jobs too: a bad model fails here, with a clean error, not in a worker
    pipeline = Pipeline.assemble(*models[:3])
    beam = beam or (pipeline.parser.beam if pipeline.parser is not None else 1)
    if kbest > beam:
        raise click.BadParameter(
            f"--kbest {kbest} needs a beam at least as wide (the model's is {beam})", param_hint="--beam"
        )
    stages = _check_stages(pipeline, models[3], input_format, retag, models[0].path)
    load_seconds = time.time() - load_start
    start, sentences, words = time.time(), 0, 0
    streaming = batch_size == 1  # every stage hands on each sentence at once (interactive use)
    inputs = pipeline.read(input_file, input_format, streaming)
    if "tag" in stages:
        inputs = pipeline.tag(inputs, retag, streaming)
    if "parse" in stages:
        parser_dir = str(pipeline.source or pipeline.parts["parser"])  # a pipeline: its parser as its choices make it
        parsed = _parsed(pipeline.parser, inputs, (beam, kbest, batch_size, confidence), jobs, parser_dir, memory_mb)
        parsed = (candidates[:written_kbest] for candidates in parsed)
    else:
        parsed = ([sentence] for sentence in checked_sentences(inputs))
    text_of = functools.partial(sentences_text, output_format=output_format)
    for candidates in written(output_file, parsed, text_of, quiet, input_file):
        sentences += 1
        words += len(candidates[0])
    seconds = max(time.time() - start, 1e-9)
    if sentences == 0:
        click.echo(f"lstmparse: warning: {_input_name(input_file)} holds no sentences; nothing was parsed", err=True)
    elif not quiet:
        click.echo(
            f"{'parsed' if 'parse' in stages else 'processed'} {sentences} sentences, {words} words in "
            f"{seconds:.1f} s ({sentences / seconds:.1f} sentences/s, {words / seconds:.0f} words/s); "
            f"model loaded in {load_seconds:.2f} s",
            err=True,
        )


def _input_name(input_file: str) -> str:
    return "the standard input" if input_file == "-" else input_file


def _pipelines_hint(model) -> str:
    """Pipelines of the model's own language by name, or how to train one; never another language's."""
    from lstmparse.app.catalog import model_language
    from lstmparse.core.languages import pipelines_of_language

    language = model_language(model)
    names = pipelines_of_language(language)
    if names:
        return f"a pipeline model of its language ({', '.join(names)})"
    if language:
        return (
            f"a pipeline model (none for language {language!r} is installed: "
            "lstmparse train --arch pipeline --treebank DIR trains one)"
        )
    return "a pipeline model (lstmparse models lists them)"


def _check_stages(pipeline, processors: list[str] | None, input_format: str, retag: bool, model) -> list[str]:
    """The stages to run: those asked for (default: all the pipeline has), each of which it must have."""
    from lstmparse.core.model_io import DEFAULT_MODEL

    stages = processors or pipeline.processors
    missing = [stage for stage in stages if stage not in pipeline.processors]
    if missing:
        raise ConfigurationError(f"--processors {','.join(stages)}: {model} has no {' or '.join(missing)} stage")
    if input_format in RAW_FORMATS and "tokenize" not in stages:
        raise ConfigurationError(
            f"--input-format {input_format} needs a tokenizer: {_pipelines_hint(model or DEFAULT_MODEL)} or "
            f"--tokenizer; {model} has none"
        )
    if retag and "tag" not in stages:
        raise ConfigurationError(f"--retag needs a tagger: a pipeline model or --tagger; {model} has none")
    return stages


def _parse_constituency(record, input_file, output_file, formats, tagger_dir, search, quiet, memory_mb):
    """Parse with a seq2seq model: trees as ``formats`` (input, output format) say, and how many needed repair.

    ``search`` is (beam, constrained, kbest, jobs).
    """
    input_format, output_format = formats
    beam, constrained, kbest, jobs = search
    if jobs > 1:
        raise click.BadParameter("constituency models parse in one process (batched beam search)", param_hint="--jobs")
    if kbest > beam:
        raise click.BadParameter(f"--kbest {kbest} needs a beam at least as wide", param_hint="--beam")
    configure_dynet(seed=1, memory_mb=memory_mb)
    from lstmparse.pipeline.manifest import default_tokenizer
    from lstmparse.seq2seq.api import ConstituencyParser
    from lstmparse.seq2seq.outputs import constituency_text, read_inputs, with_inputs
    from lstmparse.tokenizer.api import Tokenizer

    load_start = time.time()
    parser = ConstituencyParser.load(record, tagger_dir)
    tokenizer = Tokenizer.load(default_tokenizer()) if input_format in RAW_FORMATS else None
    load_seconds = time.time() - load_start
    start, sentences, repaired = time.time(), 0, 0
    inputs = read_inputs(input_file, input_format, tokenizer)
    parsed = with_inputs(parser.parse_kbest, inputs, beam, kbest, constrained)

    def text_of(pair: tuple) -> str:
        item, candidates = pair
        return constituency_text(item, candidates, output_format, kbest > 1)

    for _, candidates in written(output_file, parsed, text_of, quiet, input_file):
        sentences += 1
        repaired += candidates[0].repaired
    seconds = max(time.time() - start, 1e-9)
    if not quiet:
        click.echo(
            f"parsed {sentences} sentences in {seconds:.1f} s ({sentences / seconds:.1f} sentences/s, beam {beam}, "
            f"{'constrained' if constrained else 'unconstrained'}); {repaired} outputs repaired into well-formed "
            f"trees; model loaded in {load_seconds:.2f} s",
            err=True,
        )


def _search(beam: int | None, kbest: int, batch_size: int, jobs: int, confidence: str | None) -> tuple:
    """(beam, k-best searched, batch size, jobs, confidence, k-best written): ``--confidence kbest`` searches a
    k-best list of 8 (unless told otherwise) and writes only the best tree unless ``--kbest`` asks for more."""
    if confidence == "kbest" and kbest == 1:
        return (max(beam or 8, 8), 8, batch_size, jobs, confidence, 1)
    return (beam, kbest, batch_size, jobs, confidence, kbest)  # beam None: the model's


def _parsed(parser, sentences, search: tuple, jobs: int, parser_dir: str, memory_mb):
    """Lists of parsed candidates per input sentence: greedy or beam search, ``batch_size`` at a time.

    ``search`` is (beam, kbest, batch size, confidence).  With ``--jobs``, tokenizing
    and tagging stay in this process; the parser's processes get tagged sentences.
    """
    from lstmparse.stacklstm.parallel import parse_in_processes

    beam, kbest, batch_size, confidence = search
    if jobs > 1:
        return parse_in_processes(
            parser_dir,
            sentences,
            jobs,
            memory_mb,
            "lstmparse.pipeline.api:pipeline_parser",
            beam=beam,
            kbest=kbest,
            batch_size=batch_size,
            confidence=confidence,
        )
    return parser.candidates(sentences, beam, kbest, batch_size, confidence)
