"""What every command shares: one-line errors with the usual exit codes, written output, option types."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import wraps

import click

from lstmparse.core import backend
from lstmparse.errors import ConfigurationError, InputError, ModelError

EXISTING_FILE = click.Path(exists=True, dir_okay=False)


def comma_separated(value: str) -> list[str]:
    """The names of a comma-separated option (``a,b``), blanks dropped."""
    return [name.strip() for name in value.split(",") if name.strip()]


MEMORY_MB = click.IntRange(min=1)  # DyNet aborts on an empty pool


class PretrainedParam(click.ParamType):
    """A word2vec text file, or a packaged table: ``glove:N`` (the N most frequent GloVe words)."""

    name = "FILE|glove:N"

    def convert(self, value, param, ctx):
        from lstmparse.io.glove import is_packaged_vectors

        return value if is_packaged_vectors(value) else EXISTING_FILE.convert(value, param, ctx)


PRETRAINED = PretrainedParam()


class ModelParam(click.ParamType):
    """A model directory or a model's name (``en_ewt_upos``), found as :mod:`lstmparse.app.catalog` says."""

    name = "MODEL"

    def convert(self, value, param, ctx):
        from lstmparse.app.catalog import resolve_model

        try:
            return str(resolve_model(value))
        except ModelError as error:
            self.fail(str(error), param, ctx)


MODEL = ModelParam()
MODEL_HELP = "model directory or name (`lstmparse models` lists them) [default: en_ewt_pipeline]"


@dataclass(frozen=True)
class GpuRequest:
    """What ``lstmparse --gpu/--dynet-gpus/--dynet-devices`` asked for (the main group's context object)."""

    gpus: int = 0
    devices: str | None = None


def configure_dynet(
    seed: int | None, memory_mb: int = backend.DEFAULT_MEMORY_MB, weight_decay: float = 0.0, training: bool = False
) -> None:
    """DyNet set up for this command in one call: its settings and the GPU the main options asked for."""
    context = click.get_current_context(silent=True)
    request = context.find_root().obj if context is not None else None
    gpu = request if isinstance(request, GpuRequest) else GpuRequest()
    backend.configure(
        seed=seed,
        memory_mb=memory_mb,
        weight_decay=weight_decay,
        gpus=gpu.gpus,
        devices=gpu.devices,
        training=training,
        if_loaded="keep",
    )


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


def written(output_file: str, results, text_of, quiet: bool, input_file: str = "-"):
    """Each result, after its text is written to ``output_file``; progress every 1000 on stderr.

    A named output file appears only when all went well (:mod:`lstmparse.io.outputs`).
    """
    from lstmparse.io.outputs import open_output

    with open_output(output_file, (input_file,)) as out:
        for count, result in enumerate(results, start=1):
            out.write(text_of(result))
            if not quiet and count % 1000 == 0:
                click.echo(f"parsed {count} sentences", err=True)
            yield result
