"""Model directories, written atomically.

A model directory holds ``config.json`` (architecture, settings, training record)
and, per saved generation, ``vocab-G.json`` and ``params-G.npz`` (the parameter
values by name, float32).  Format 2 names each parameter by its place in the model
(``stack_lstm/layer0/3``, ``tokens/words``), as the model's ``named_parameters()``
says, so adding a parameter renames nothing and two parameters of equal shape can
never load into each other's place.  Format 1 used the names DyNet gives in order of
creation (``/_0``, ``/lstm-builder_1/_3``); it still loads, because every model
creates its parameters in the same order as then.  A save writes and syncs the new generation's
files first and then replaces ``config.json`` (which names them) with one atomic
rename; old generations are removed only after that.  A save that is interrupted at
any point therefore leaves the previous model complete and loadable.  ``--pretrained-by-name``
names a packaged pretrained table rather than storing it (:mod:`lstmparse.core.packaged_tables`).
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from lstmparse.core import families
from lstmparse.core.packaged_tables import asking_to_name, with_packaged_tables, without_packaged_tables
from lstmparse.core.records import CONFIG, ModelRecord, directory_of, read_record
from lstmparse.errors import ConfigurationError, ModelError
from lstmparse.io.outputs import file_mode

if TYPE_CHECKING:
    import dynet as dy


def model_search_path() -> list[Path]:
    """Where models are found by name, first match wins: ``$LSTMPARSE_MODELS`` (directories separated by
    ``os.pathsep``), the user's installed models (``~/.local/share/lstmparse/models``), a checkout's
    ``models/``, the installed copy.

    ``pip install .`` copies the shipped models to ``<prefix>/share/lstmparse/models``
    (see setup.py); an editable install or a checkout reads them in place.
    """
    user = [Path(entry) for entry in os.environ.get("LSTMPARSE_MODELS", "").split(os.pathsep) if entry]
    checkout = Path(__file__).resolve().parents[2] / "models"
    return [*user, user_models_directory(), checkout, Path(sys.prefix) / "share" / "lstmparse" / "models"]


def user_models_directory() -> Path:
    """Where ``lstmparse models --install`` puts models without ``LSTMPARSE_MODELS``: the user's data directory."""
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "lstmparse" / "models"


CARD = "card.json"  # a model's description: language, data, task, figures, licence (lstmparse.app.catalog)


def read_card(directory: str | Path) -> dict:
    """A model directory's ``card.json`` (a pipeline's part: the pipeline's), or an empty dict."""
    directory = Path(directory)
    for place in (directory, directory.parent):
        try:
            card = json.loads((place / CARD).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(card, dict):
            return card
    return {}


def model_repr(kind: str, source: str | Path | None, details: str = "") -> str:
    """How a loaded model shows itself: ``<lstmparse parser 'en_ewt_upos' (en): ...>``."""
    if source is None:
        return f"<lstmparse {kind}{': ' + details if details else ''}>"
    language = read_card(source).get("language")
    where = f" {Path(source).name!r}" + (f" ({language})" if language else "")
    return f"<lstmparse {kind}{where}{': ' + details if details else ''}>"


def models_directory(holding: str = "en_ewt_pipeline") -> Path:
    """The first directory of the search path that holds the model ``holding`` (else the last one)."""
    directories = model_search_path()
    return next((d for d in directories if (d / holding).is_dir()), directories[-1])


MODELS_DIR = models_directory()
DEFAULT_MODEL = MODELS_DIR / "en_ewt_pipeline"  # what ``lstmparse parse`` uses without --model: raw text to trees
TAG_FREE_MODEL = models_directory("en_ewt") / "en_ewt"  # the shipped parser that reads words and characters only
CONSTITUENCY_ARCHS = families.CONSTITUENCY_ARCHS  # a seq2seq model, or an ensemble's manifest
FORMAT_VERSION = 2
READABLE_FORMATS = (1, 2)


def save_directory(
    directory: str | Path, config: dict, vocab: dict, params: dict[str, np.ndarray], version: int = FORMAT_VERSION
) -> None:
    """Write a model generation and switch ``config.json`` to it atomically.

    ``params`` are named as model format ``version`` names them (a packaged table may be named, not stored).
    """
    directory = Path(directory)
    config, vocab, params = without_packaged_tables(config, vocab, params)
    directory.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(directory)
    generation = _next_generation(directory)
    vocab_name, params_name = f"vocab-{generation}.json", f"params-{generation}.npz"
    config = dict(config, format_version=version, vocab_file=vocab_name, params_file=params_name)
    try:
        atomic_write(directory / vocab_name, lambda handle: handle.write(json.dumps(vocab).encode("utf-8")))
        atomic_write(directory / params_name, lambda handle: np.savez_compressed(handle, **params))  # type: ignore[arg-type]
        atomic_write(directory / CONFIG, lambda handle: handle.write(json.dumps(config, indent=2).encode("utf-8")))
    except BaseException:
        if _current_params(directory) != params_name:  # the switch did not happen: drop the new files
            for name in (vocab_name, params_name):
                (directory / name).unlink(missing_ok=True)
        raise
    _remove_other_generations(directory, generation)


def save_model(
    directory: str | Path,
    arch: str,
    dims,
    training: dict,
    vocab: dict,
    model: dy.ParameterCollection,
    named: dict,
    **settings,
) -> None:
    """Write a family's model: its ``arch``, ``settings`` (what else its loader reads, such as a transition
    system) and ``dims`` (a dataclass), with its training record, vocabularies and parameters by name (``named``,
    the model's ``named_parameters()``); every family saves through here."""
    config = {"arch": arch, **settings, "dims": asdict(dims), "training": training}
    save_directory(directory, config, vocab, effective_values(model, named))


def load_model(directory: str | Path | ModelRecord, arch: str, kind: str) -> tuple[dict, dict, dict[str, np.ndarray]]:
    """(config, vocab, params) of a model directory that must hold an ``arch`` model (a ``kind``, for messages)."""
    config, vocab, params = load_directory(directory)
    if config.get("arch") != arch:
        raise ModelError(f"{directory_of(directory)}: a {config.get('arch')!r} model, not a {kind}")
    return config, vocab, params


def load_directory(source: str | Path | ModelRecord) -> tuple[dict, dict, dict[str, np.ndarray]]:
    """(config, vocab, params) of a model directory (a record's config as it was read: read once on its way in); a
    missing or damaged file is named in the error."""
    directory = directory_of(source)
    config_path = directory / CONFIG
    given = source.config if isinstance(source, ModelRecord) and source.problem is None else None
    if given is None and not config_path.is_file():
        raise ModelError(f"{directory}: not a model directory (no {CONFIG})")
    config = given if given is not None else _read_json(config_path)
    if config.get("format_version") not in READABLE_FORMATS:
        raise ModelError(
            f"{directory}: model format {config.get('format_version')} is not one this version reads "
            f"({', '.join(map(str, READABLE_FORMATS))}); a newer lstmparse wrote it"
        )
    vocab_file, params_file = config.get("vocab_file"), config.get("params_file")
    if not all(isinstance(name, str) and name and "/" not in name for name in (vocab_file, params_file)):
        raise ModelError(f"{config_path}: names no vocabulary and parameter files")
    vocab, params = _read_json(directory / str(vocab_file)), _read_params(directory / str(params_file))
    with_packaged_tables(directory, config, vocab, params)
    return config, vocab, params


def _read_json(path: Path) -> dict:
    """A JSON object from ``path``; anything else is a damaged model file."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ModelError(f"{path}: unreadable model file ({error})") from None
    if not isinstance(value, dict):
        raise ModelError(f"{path}: damaged model file (a JSON object was expected, found {type(value).__name__})")
    return value


def _read_params(path: Path) -> dict[str, np.ndarray]:
    """Every array of a parameter archive, read (and CRC-checked) now rather than on first use."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except FileNotFoundError:
        raise ModelError(f"{path}: missing model file") from None
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as error:
        reason = str(error) or type(error).__name__
        raise ModelError(f"{path}: damaged model file ({reason}); restore or retrain it") from None


@contextmanager
def model_contents(directory: str | Path) -> Iterator[None]:
    """Turn what a model built from ill-shaped config or vocabulary entries raises into one ModelError."""
    try:
        yield
    except (KeyError, TypeError, AttributeError, ValueError) as error:
        raise ModelError(f"{directory}: config or vocabulary entries unlike this model's ({error!r})") from None


def check_training_directory(directory: str | Path, resume: bool, overwrite: bool) -> None:
    """Refuse to train into a directory that holds something, unless resuming or told to overwrite.

    The first improved epoch would otherwise replace a model the user may have
    spent hours on.
    """
    if resume and overwrite:
        raise ConfigurationError("--resume continues the model in the directory, --overwrite replaces it: pick one")
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise ConfigurationError(f"{directory}: not a directory")
    if resume or overwrite or not directory.exists() or not any(directory.iterdir()):
        return
    what = "a model" if (directory / CONFIG).is_file() else "files"
    raise ConfigurationError(
        f"{directory} already holds {what}: --resume continues its training, --overwrite replaces it, "
        "or choose another --model-dir"
    )


def read_manifest(directory: str | Path | ModelRecord, arch: str, kind: str) -> dict:
    """The ``config.json`` of a manifest directory (a pipeline's, an ensemble's): {} unless it is an ``arch`` object.

    An unreadable file is a :class:`ModelError` naming it and the ``kind`` of manifest;
    the caller checks the fields its kind needs.
    """
    record = read_record(directory)
    if record.problem is not None:
        raise ModelError(f"{record.path / CONFIG}: unreadable {kind} manifest ({record.problem})")
    return record.config if record.config.get("arch") == arch else {}


def model_arch(directory: str | Path | ModelRecord) -> str:
    """The architecture a model directory holds (``stacklstm`` for models that predate the field)."""
    return read_record(directory).arch


def _current_params(directory: Path) -> str | None:
    return read_record(directory).config.get("params_file")


def _next_generation(directory: Path) -> int:
    found = [int(m.group(1)) for p in directory.iterdir() if (m := re.fullmatch(r"params-(\d+)\.npz", p.name))]
    return max(found, default=0) + 1


def atomic_write(path: Path, write) -> None:
    """Write ``path`` through ``write(handle)`` into a temporary file, synced and then renamed into place."""
    handle = tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", delete=False)
    try:
        with handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, file_mode())  # as any new file: a shared model directory stays readable
        os.replace(handle.name, path)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise


def _remove_stale_temporaries(directory: Path) -> None:
    """Temporary files that a killed save left behind (``atomic_write`` names them ``.NAME.XXXX``)."""
    for path in directory.iterdir():
        if re.fullmatch(r"\.(?:config\.json|vocab-\d+\.json|params-\d+\.npz)\..+", path.name):
            path.unlink(missing_ok=True)


def _remove_other_generations(directory: Path, keep: int) -> None:
    for path in directory.iterdir():
        match = re.fullmatch(r"(?:params-(\d+)\.npz|vocab-(\d+)\.json)", path.name)
        if match and int(match.group(1) or match.group(2)) != keep:
            path.unlink(missing_ok=True)


def builder_parameters(prefix: str, builder) -> dict:
    """A DyNet RNN builder's parameters by layer and position: ``prefix/layer0/0`` ..."""
    return {
        f"{prefix}/layer{layer}/{index}": parameter
        for layer, parameters in enumerate(builder.get_parameters())
        for index, parameter in enumerate(parameters)
    }


def birnn_parameters(prefix: str, birnn) -> dict:
    """A DyNet ``BiRNNBuilder``'s parameters: ``prefix/layer0/forward/layer0/0`` ..."""
    named: dict = {}
    for layer, (forward, backward) in enumerate(birnn.builder_layers):
        named |= builder_parameters(f"{prefix}/layer{layer}/forward", forward)
        named |= builder_parameters(f"{prefix}/layer{layer}/backward", backward)
    return named


def effective_values(model: dy.ParameterCollection, named: dict) -> dict[str, np.ndarray]:
    """Every parameter's effective value under its name in ``named`` (a model's ``named_parameters()``), float32.

    DyNet applies L2 weight decay as one global scale kept outside the stored
    values, so ``as_array()`` misses it (DyNet issue #1201); reading each
    parameter through an expression includes it.  A parameter of the collection
    missing from ``named`` would not be saved: that is a programming error.
    """
    import dynet as dy

    _check_complete(model, named)
    dy.renew_cg()
    values = {}
    for name, parameter in named.items():
        if not _in_dynet(parameter):  # a table loaded to parse (layers/tables.py): its array as it was read
            values[name] = parameter.as_array()
        elif isinstance(parameter, dy.LookupParameters):
            rows, dim = parameter.as_array().shape
            values[name] = parameter.expr().npvalue().reshape(dim, rows).T
        else:
            values[name] = parameter.expr().npvalue().reshape(parameter.as_array().shape)
    return {name: value.astype(np.float32) for name, value in values.items()}


def assign_values(model: dy.ParameterCollection, named: dict, values: dict[str, np.ndarray], version: int) -> None:
    """Load values saved by :func:`effective_values` (format 2) or by format 1 (DyNet's names); shapes must match."""
    import dynet as dy

    _check_complete(model, named)
    for name, parameter in named.items():
        if not _in_dynet(parameter):  # a table loaded to parse holds its values already
            continue
        value = _value_for(name if version >= 2 else parameter.name(), parameter, values)
        if isinstance(parameter, dy.LookupParameters):
            parameter.init_from_array(value)
        else:
            parameter.set_value(value)


def _in_dynet(parameter) -> bool:
    """Whether a named parameter is DyNet's (the others are tables loaded to parse, kept as arrays)."""
    import dynet as dy

    return isinstance(parameter, dy.Parameters | dy.LookupParameters)


def _check_complete(model: dy.ParameterCollection, named: dict) -> None:
    everything = {p.name() for p in model.parameters_list()} | {p.name() for p in model.lookup_parameters_list()}
    in_dynet = [p for p in named.values() if _in_dynet(p)]
    missing = everything - {p.name() for p in in_dynet}
    if missing or len(in_dynet) != len(everything):
        raise AssertionError(f"named_parameters() does not name each parameter once (unnamed: {sorted(missing)})")


def _value_for(name: str, parameter, values: dict[str, np.ndarray]) -> np.ndarray:
    value = values.get(name)
    expected = tuple(parameter.shape())  # not as_array().shape: that copies the whole table (half of a load's time)
    if value is None or value.shape != expected:
        found = None if value is None else value.shape
        raise ModelError(f"parameter {name}: expected shape {expected}, found {found}")
    return value.astype(np.float32)  # models stored at half precision come back as float32


def name_packaged_tables(directory: str | Path) -> None:
    """Rewrite a model to name its packaged pretrained table, now and in later saves (``--pretrained-by-name``)."""
    config, vocab, params = load_directory(directory)  # save_directory writes the files' names afresh
    save_directory(directory, asking_to_name(config), vocab, params, config["format_version"])


def store_for_shipping(directory: str | Path, half_precision: bool, pretrained_by_name: bool) -> None:
    """Its packaged tables named, then its parameters halved: only float32 tells the weight decay's factor exactly."""
    if pretrained_by_name:
        name_packaged_tables(directory)
    if half_precision:
        store_half_precision(directory)


def store_half_precision(directory: str | Path) -> None:
    """Rewrite a model's parameters as float16, halving its size (for shipping large models); they keep about three
    significant digits, so measure a halved model itself before quoting its accuracy."""
    config, vocab, params = load_directory(directory)
    stored = {key: value for key, value in config.items() if key not in ("format_version", "vocab_file", "params_file")}
    halved = {name: value.astype(np.float16) for name, value in params.items()}
    save_directory(directory, stored, vocab, halved, config["format_version"])


def average_directories(sources: list[str | Path], target: str | Path, training: dict | None = None) -> None:
    """Write the model whose every parameter is the mean of the ``sources``' (checkpoint averaging).

    The sources must be one run's checkpoints (``train --keep-epochs``): the same
    architecture, vocabularies and parameter shapes; averaging the weights of a
    run's last epochs often beats each of them (Polyak averaging), at no cost in
    parsing time.  The target keeps the last source's configuration, with the
    sources named in its training record, or ``training`` as its record.
    """
    if len(sources) < 2:
        raise ModelError("averaging needs at least two models")
    loaded = [load_directory(source) for source in sources]
    config, vocab, params = loaded[-1]
    for source, (other_config, other_vocab, other_params) in zip(sources, loaded, strict=True):
        same_shapes = other_params.keys() == params.keys() and all(
            other_params[name].shape == value.shape for name, value in params.items()
        )
        if other_config.get("arch") != config.get("arch") or other_vocab != vocab or not same_shapes:
            raise ModelError(
                f"{source}: not a checkpoint of the same model as {sources[-1]} (architecture, "
                "vocabulary or parameter shapes differ)"
            )
    averaged = {
        name: np.mean([p[name].astype(np.float64) for _, _, p in loaded], axis=0).astype(value.dtype)
        for name, value in params.items()
    }
    stored = {key: value for key, value in config.items() if key not in ("format_version", "vocab_file", "params_file")}
    if training is None:  # the last source's record, naming the sources
        training = dict(stored.get("training", {}), averaged_from=[str(source) for source in sources])
    save_directory(target, stored | {"training": training}, vocab, averaged, config["format_version"])


def upgrade_directory(directory: str | Path, named: dict) -> None:
    """Rewrite a format-1 model directory as format 2: the same arrays (and precision) under format-2 names.

    ``named`` is the loaded model's ``named_parameters()``; each parameter's DyNet
    name is the key it had in format 1.
    """
    config, vocab, params = load_directory(directory)
    if config["format_version"] != 1:
        raise ModelError(f"{directory}: already model format {config['format_version']}")
    renamed = {name: params[parameter.name()] for name, parameter in named.items()}
    stored = {key: value for key, value in config.items() if key not in ("format_version", "vocab_file", "params_file")}
    save_directory(directory, stored, vocab, renamed)


def update_vocab(directory: str | Path, entries: dict, training: dict, drop: Iterable[str] = ()) -> None:
    """Replace entries of a model's vocabulary, ``drop`` others, add to its training record; parameters as stored.

    For what a trained model learns after training from data alone (a tokenizer's
    multi-word lookup, a tagger's seen analyses): a half-precision model stays one.
    """
    config, vocab, params = load_directory(directory)
    stored = {key: value for key, value in config.items() if key not in ("format_version", "vocab_file", "params_file")}
    stored["training"] = stored.get("training", {}) | training
    kept = {name: value for name, value in vocab.items() if name not in set(drop)}
    save_directory(directory, stored, kept | entries, params, config["format_version"])


def update_config(directory: str | Path, updates: dict) -> None:
    """Change entries of a model's ``config.json`` in place, atomically."""
    path = Path(directory) / CONFIG
    config = json.loads(path.read_text(encoding="utf-8"))
    config.update(updates)
    atomic_write(path, lambda handle: handle.write(json.dumps(config, indent=2).encode("utf-8")))
