"""``lstmparse serve``: the parser as a local web service (UDPipe 2's REST API) with a page that draws trees."""

from __future__ import annotations

import socket

import click

from lstmparse.cli.common import MEMORY_MB, MODEL, clean_errors
from lstmparse.core import backend


@click.command()
@click.option(
    "--model",
    "models",
    multiple=True,
    type=MODEL,
    help="a model to serve, by name or directory; repeat for several (the first is the default) "
    "[default: en_ewt_pipeline]",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="address to listen on (0.0.0.0: every interface)")
@click.option("--port", default=8001, show_default=True, type=click.IntRange(1, 65535), help="TCP port to listen on")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(min=1), help="parsing processes")
@click.option("--max-chars", default=1_000_000, show_default=True, type=click.IntRange(min=1), help="per request")
@click.option("--max-sentences", default=10_000, show_default=True, type=click.IntRange(min=1), help="per request")
@click.option(
    "--memory-mb",
    default=backend.DEFAULT_MEMORY_MB,
    show_default=True,
    type=MEMORY_MB,
    help="DyNet's memory pools at start in each worker, MB (they grow as a request needs)",
)
@clean_errors
def serve(models, host, port, workers, max_chars, max_sentences, memory_mb) -> None:
    """Serve models over HTTP: GET /models and GET/POST /process as UDPipe 2's REST server, and a page at /.

    Ctrl-C stops the service.
    """
    from lstmparse.errors import ConfigurationError

    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise ConfigurationError("lstmparse serve needs its web libraries: pip install 'lstmparse[serve]'") from None
    from lstmparse.app.serve import Limits, ServedModel, create_app, run_server
    from lstmparse.core.model_io import DEFAULT_MODEL

    served = [ServedModel.of(model) for model in models or [str(DEFAULT_MODEL)]]
    _check_port_free(host, port)
    app = create_app(served, workers, Limits(max_chars, max_sentences), memory_mb)
    names = ", ".join(model.name for model in served)
    click.echo(f"lstmparse: serving {names} at http://{host}:{port}/ with {workers} worker(s); Ctrl-C stops", err=True)
    run_server(app, host, port)
    click.echo("lstmparse: stopped", err=True)


def _check_port_free(host: str, port: int) -> None:
    """One clear line, before any model is loaded, when the address cannot be listened on."""
    from lstmparse.errors import ConfigurationError

    try:
        with socket.create_server((host, port)):
            pass
    except OSError as error:
        raise ConfigurationError(f"--host {host} --port {port}: cannot listen there ({error.strerror})") from None
