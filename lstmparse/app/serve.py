"""``lstmparse serve``: a local web service that answers UDPipe 2's REST API, and a page that draws the trees.

UDPipe's clients script against two calls, which are answered here as UDPipe
answers them: ``GET /models`` (the models and their stages, and the default) and
``GET``/``POST /process`` with ``model``, ``tokenizer``, ``tagger``, ``parser`` (a
stage runs when its parameter is present, even empty; with ``tokenizer`` the data is
raw text), ``input`` (``conllu``, ``horizontal``, ``vertical``), ``output``
(``conllu``, ``horizontal``, ``vertical``, and ``json``, this toolkit's document
schema) and ``data``, as a query string, URL-encoded or multipart form; ``confidence`` (``greedy``
or ``kbest``, this toolkit's addition) puts each word's confidence in MISC.  The answer is
JSON ``{"model", "acknowledgements", "result"}``; a bad request is HTTP 400 with a
plain-text message.  ``/`` is a page with a text box whose parse is drawn with the
renderer of ``lstmparse render``.

DyNet holds the GIL, so the parsing happens in worker processes (each loads a model
once); the event loop only moves requests and answers, and each request gets its
own answer object, so concurrent requests never mix.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from html import escape
from pathlib import Path

from lstmparse import __version__
from lstmparse.app.catalog import model_info, resolve_model
from lstmparse.core import backend
from lstmparse.core.model_io import CONSTITUENCY_ARCHS, model_arch
from lstmparse.core.processes import loaded, submit, worker_pool
from lstmparse.errors import PLAIN_TEXT, InputError, ModelError
from lstmparse.io.document import sentences_text
from lstmparse.io.formats import Sentence, sentences_from_text
from lstmparse.pipeline.manifest import ARCH as PIPELINE_ARCH
from lstmparse.pipeline.manifest import PART_ARCHS, default_tokenizer, part_directories

STAGES = ("tokenizer", "tagger", "parser")  # UDPipe's names for tokenize, tag, parse
INPUTS = {"conllu": "conllu", "horizontal": "text", "vertical": "vertical"}
OUTPUTS = ("conllu", "horizontal", "vertical", "json")


class RequestError(ValueError):
    """A request the service refuses: answered with HTTP 400 and this message, as UDPipe does."""


@dataclass(frozen=True)
class Limits:
    """What one request may ask for."""

    max_chars: int = 1_000_000
    max_sentences: int = 10_000


@dataclass(frozen=True)
class ServedModel:
    """A model the service offers: its name, directory and the stages it can run."""

    name: str
    path: str
    stages: tuple[str, ...]
    constituency: bool = False

    @classmethod
    def of(cls, name_or_path: str) -> ServedModel:
        path = resolve_model(name_or_path)
        arch = model_arch(path)
        if arch in CONSTITUENCY_ARCHS:  # raw text goes through the default pipeline's tokenizer
            return cls(path.name, str(path), ("tokenizer", "parser"), constituency=True)
        if arch == PIPELINE_ARCH:
            parts = part_directories(path)
            return cls(path.name, str(path), tuple(stage for stage in STAGES if stage in parts))
        if arch not in PART_ARCHS:  # a parser, tagger or tokenizer, or an ensemble of parsers or taggers
            raise ModelError(f"{path}: a {arch} model cannot be served (pipelines, parsers, taggers, tokenizers)")
        return cls(path.name, str(path), (PART_ARCHS[arch],))


@dataclass(frozen=True)
class Job:
    """One request's work, as a worker process receives it."""

    model: ServedModel
    stages: tuple[str, ...]
    input_format: str  # ``raw`` with the tokenizer, else a reader's format
    output_format: str
    data: str
    max_sentences: int
    memory_mb: int = backend.DEFAULT_MEMORY_MB
    confidence: str | None = None  # this toolkit's addition: greedy or kbest (see ``parse --confidence``)


def job_of(params: Mapping[str, str], models: list[ServedModel], limits: Limits, memory_mb: int) -> Job:
    """The work a request asks for, or :class:`RequestError` saying what is wrong with it."""
    model = choose_model(params.get("model", ""), models)
    stages = tuple(stage for stage in STAGES if stage in params)
    missing = [stage for stage in stages if stage not in model.stages]
    if missing:
        raise RequestError(f"The model {model.name} has no {' or '.join(missing)} (it has {', '.join(model.stages)}).")
    input_name = params.get("input", "conllu")
    if "tokenizer" not in stages and input_name not in INPUTS:
        raise RequestError(f"Unknown input format '{input_name}' (conllu, horizontal, vertical).")
    output_format = params.get("output", "conllu")
    if output_format not in OUTPUTS:
        raise RequestError(f"Unknown output format '{output_format}' ({', '.join(OUTPUTS)}).")
    data = params.get("data", "")
    if len(data) > limits.max_chars:
        raise RequestError(f"The data has {len(data)} characters; this server takes at most {limits.max_chars}.")
    confidence = params.get("confidence") or None
    if confidence not in (None, "greedy", "kbest") or (confidence and model.constituency):
        raise RequestError(f"Unknown confidence '{confidence}' (greedy or kbest, for dependency models).")
    input_format = "raw" if "tokenizer" in stages else INPUTS[input_name]
    return Job(model, stages, input_format, output_format, data, limits.max_sentences, memory_mb, confidence)


def choose_model(requested: str, models: list[ServedModel]) -> ServedModel:
    """The model named, else the first whose name starts with the request (as UDPipe matches), else the default."""
    if not requested:
        return models[0]
    for model in models:
        if model.name == requested:
            return model
    for model in models:
        if model.name.startswith(requested):
            return model
    raise RequestError(f"Unknown model '{requested}' (served: {', '.join(m.name for m in models)}).")


REST_HINTS = {  # what to do about known bad input, in this API's parameters (not the command line's options)
    PLAIN_TEXT: "this looks like plain text: give tokenizer= (running text) or input=horizontal "
    "(one tokenized sentence a line)",
}
DATA = "data"  # how messages name the request's text: its REST parameter


def in_rest_terms(error: InputError) -> str:
    """The input error as the REST API's user can act on it: its line in ``data`` and what to send instead."""
    where = f"{error.path}:{error.line}" if error.line is not None else error.path
    advice = f"; {REST_HINTS[error.hint]}" if error.hint in REST_HINTS else ""
    return f"{where}: {error.message}{advice}"


def run_job(job: Job) -> tuple[str, list[Sentence]]:
    """The answer's text and its sentences (runs in a worker process); bad input raises :class:`RequestError`."""
    try:
        sentences = _processed(job)
    except InputError as error:
        raise RequestError(in_rest_terms(error)) from None
    return _written(sentences, job.output_format), sentences


def _processed(job: Job) -> list[Sentence]:
    if job.model.constituency:
        return _constituency_parses(job)
    pipeline = loaded(job.model.path, job.memory_mb, "lstmparse.pipeline.api:Pipeline.assemble")
    sentences = _read(job, pipeline)
    if "tagger" in job.stages:
        sentences = pipeline.tag(sentences, retag=True)  # UDPipe's tagger replaces the input's tags
    if "parser" in job.stages and job.confidence:
        beam_and_k = (8, 8) if job.confidence == "kbest" else (pipeline.parser.beam, 1)
        return [trees[0] for trees in pipeline.parser.candidates(sentences, *beam_and_k, 32, job.confidence)]
    if "parser" in job.stages:
        sentences = pipeline.parser.parse(sentences)
    return list(sentences)


def _constituency_parses(job: Job) -> list[Sentence]:
    """A constituency model's trees as ``# constituency`` comments of the input sentences."""
    tokenizer = None
    if job.input_format == "raw":
        tokenizer = loaded(str(default_tokenizer()), job.memory_mb, "lstmparse.tokenizer.api:Tokenizer.load")
    sentences = list(_read(job, tokenizer))
    if "parser" not in job.stages:
        return sentences
    from lstmparse.seq2seq.outputs import annotated_sentences, with_inputs

    parser = loaded(job.model.path, job.memory_mb, "lstmparse.seq2seq.api:ConstituencyParser.load")
    return [annotated_sentences(item, trees, False)[0] for item, trees in with_inputs(parser.parse_kbest, sentences)]


def _read(job: Job, tokenizer) -> Iterator[Sentence]:
    """The request's sentences: raw text split by ``tokenizer`` (anything with ``tokenize``), else read as given;
    more than the server's limit is a :class:`RequestError`."""
    if job.input_format == "raw":
        sentences = iter(tokenizer.tokenize(job.data))
    else:
        sentences = iter(sentences_from_text(job.data, job.input_format, DATA))
    return _at_most(sentences, job.max_sentences)


def _at_most(sentences, limit: int):
    for count, sentence in enumerate(sentences, start=1):
        if count > limit:
            raise RequestError(f"The data has more than {limit} sentences, the most this server takes in one request.")
        yield sentence


def _written(sentences: list[Sentence], output_format: str) -> str:
    if output_format == "horizontal":
        return "".join(" ".join(s.forms) + "\n" for s in sentences)
    if output_format == "vertical":
        return "".join("".join(f + "\n" for f in s.forms) + "\n" for s in sentences)
    return sentences_text(sentences, output_format)


def acknowledgements(model: ServedModel) -> list[str]:
    """Who to credit, as UDPipe lists its papers and models."""
    card = model_info(Path(model.path))
    return [
        f"lstmparse {__version__}",
        f"model {model.name}: {card.task}" + (f", {card.figures}" if card.figures else ""),
    ]


def create_app(
    models: list[ServedModel], workers: int = 1, limits: Limits = Limits(), memory_mb: int = backend.DEFAULT_MEMORY_MB
):
    """The Starlette application: ``/models``, ``/process`` and the page at ``/``."""
    from contextlib import asynccontextmanager

    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse
    from starlette.routing import Route

    state: dict = {}

    @asynccontextmanager
    async def lifespan(app):
        state["pool"] = worker_pool(workers)
        try:
            yield
        finally:
            # Waiting lets the pool's manager thread close its pipes before the interpreter's
            # exit hook writes to them (without it, a stop could end in a traceback); the
            # workers ignore SIGINT, so only requests already running are waited for.
            state["pool"].shutdown(wait=True, cancel_futures=True)

    async def answer(job: Job) -> tuple[str, list[Sentence]]:
        return await asyncio.wrap_future(submit(state["pool"], run_job, job))

    async def list_models(request):
        return JSONResponse(
            {"models": {m.name: list(m.stages) for m in models}, "default_model": models[0].name},
            headers={"Access-Control-Allow-Origin": "*"},
        )

    async def process(request):
        try:
            _check_body_size(request, limits)
            job = job_of(await _parameters(request), models, limits, memory_mb)
            result, _ = await answer(job)
        except RequestError as error:
            return PlainTextResponse(str(error), status_code=400, headers={"Access-Control-Allow-Origin": "*"})
        body = {"model": job.model.name, "acknowledgements": acknowledgements(job.model), "result": result}
        return JSONResponse(body, headers={"Access-Control-Allow-Origin": "*"})

    async def page(request):
        params = dict(request.query_params)
        text, chosen = params.get("text", ""), params.get("model", models[0].name)
        drawn, error = "", ""
        if text.strip():
            try:
                model = choose_model(chosen, models)
                request = {**dict.fromkeys(model.stages, ""), "model": model.name, "data": text}
                if not model.constituency:
                    request["confidence"] = "greedy"  # arcs shaded by how sure the parser was
                job = job_of(request, models, limits, memory_mb)
                result, sentences = await answer(job)
                drawn = _drawings(sentences, result, model.constituency)
            except RequestError as problem:
                error = str(problem)
        return HTMLResponse(_page_html(models, chosen, text, drawn, error))

    return Starlette(
        routes=[
            Route("/", page),
            Route("/models", list_models),
            Route("/process", process, methods=["GET", "POST"]),
        ],
        lifespan=lifespan,
    )


def run_server(app, host: str, port: int) -> None:
    """Serve ``app`` until Ctrl-C (or SIGTERM); a second Ctrl-C stops without waiting for open connections.

    uvicorn raises the stopping signal again once it has shut down (so that a caller
    dies of it); here stopping is the normal end of the command, so it is not.
    """
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            super().handle_exit(sig, frame)
            getattr(self, "_captured_signals", []).clear()

    Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).run()


def _check_body_size(request, limits: Limits) -> None:
    """Refuse a body far larger than the data limit before reading it (UTF-8 takes up to 4 bytes a character)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > 4 * limits.max_chars + 65_536:
        raise RequestError(
            f"The request has {declared} bytes; this server takes data of at most {limits.max_chars} characters."
        )


async def _parameters(request) -> dict[str, str]:
    """The query string's parameters and the form's (URL-encoded or multipart; an uploaded file's text)."""
    params = dict(request.query_params)
    if request.method == "POST":
        form = await request.form()
        for key, value in form.multi_items():
            params[key] = value if isinstance(value, str) else (await value.read()).decode("utf-8", "replace")
    return params


def _drawings(sentences: list[Sentence], conllu: str, constituency: bool) -> str:
    """The drawn trees, and the CoNLL-U beside them."""
    from lstmparse.io.ptb import parse_ptb_text
    from lstmparse.io.render import caption_of, constituency_svg, dependency_svg

    parts = []
    for number, sentence in enumerate(sentences, start=1):
        bracketed = sentence.metadata.get("constituency") if constituency else None
        if bracketed:
            svg = constituency_svg(parse_ptb_text(bracketed)[0])
        else:
            svg = dependency_svg(sentence)
        caption = escape(caption_of(sentence, number))
        parts.append(f'<div class="sentence"><h2>{caption}</h2><div class="scroll">{svg}</div></div>')
    return f'<div class="trees">{"".join(parts)}</div><pre class="conllu">{escape(conllu)}</pre>'


def _page_html(models: list[ServedModel], chosen: str, text: str, drawn: str, error: str) -> str:
    from lstmparse.io.render import STYLE

    options = "".join(
        f'<option value="{escape(m.name)}"{" selected" if m.name == chosen else ""}>{escape(m.name)}</option>'
        for m in models
        if "tokenizer" in m.stages
    )
    problem = f'<p class="error">{escape(error)}</p>' if error else ""
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"/><title>lstmparse</title>'
        f"<style>{STYLE} textarea {{ width: 100%; }} .error {{ color: #c62828; }} "
        ".conllu { background: #f6f6f6; padding: 8px; overflow-x: auto; }</style></head><body>"
        '<h1>lstmparse</h1><form method="get" action="/">'
        f'<textarea name="text" rows="5">{escape(text)}</textarea><br/>'
        f'<select name="model">{options}</select> <button type="submit">Parse</button></form>'
        f"{problem}{drawn}</body></html>"
    )
