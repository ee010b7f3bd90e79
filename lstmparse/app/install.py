"""Models packed into archives and installed from a path, a URL or a catalogue, checked before anything is written.

An archive (``lstmparse models --package NAME --output FILE``) is a gzipped tar of
one directory, ``NAME/``, holding the model's files and ``NAME/manifest.json``
(the model's name and each file's SHA-256).  Installing
(``lstmparse models --install SOURCE``) reads the whole archive first and refuses,
before it writes a byte, an archive that is corrupt or truncated, that does not
match ``--sha256``, whose members are not plain files and directories under
``NAME/`` (an absolute path, ``..``, a symbolic or hard link, a device), or whose
files do not match its manifest.  The files are then written into a temporary
directory beside the destination and renamed into place in one step, so a
failure leaves nothing half-installed.  Nothing of an archive is ever run or
unpickled: models are JSON and NumPy arrays read with ``allow_pickle=False``.

A catalogue (``--catalogue``, default ``$LSTMPARSE_CATALOGUE``) is a JSON list of
``{"name", "language", "url", "sha256", ...}`` entries; ``--install fr`` installs
the entry of that name, or the first pipeline of that language.  ``lstmparse
models --catalogue-of DIR`` writes one for the archives in a directory, with URLs
relative to it, ready to be served as it is.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import shutil
import tarfile
import tempfile
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from lstmparse.app.catalog import model_info, resolve_model
from lstmparse.core.model_io import CONFIG, atomic_write
from lstmparse.errors import ConfigurationError, ModelError
from lstmparse.pipeline.manifest import component_directories

MANIFEST = "manifest.json"
CATALOGUE_ENV = "LSTMPARSE_CATALOGUE"
CHUNK = 1 << 20
MAX_ARCHIVE_BYTES = 2 << 30  # a model archive larger than this is refused while downloading


def install_directory() -> Path:
    """Where models are installed: the first directory of ``LSTMPARSE_MODELS``, else the user's data directory."""
    from lstmparse.core.model_io import user_models_directory

    listed = [entry for entry in os.environ.get("LSTMPARSE_MODELS", "").split(os.pathsep) if entry]
    return Path(listed[0]) if listed else user_models_directory()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


# --- packing ---------------------------------------------------------------------------------------------------


def package(model: str, output: Path) -> str:
    """Write ``model``'s archive to ``output`` (atomically); its SHA-256.

    A model whose manifest names directories outside its own (a pipeline borrowing
    another's tagger) is refused: each archive installs one self-contained model.
    """
    directory = resolve_model(model).resolve()
    outside = [str(d) for d in component_directories(directory) if not d.resolve().is_relative_to(directory)]
    if outside:
        raise ModelError(
            f"{model}: it reads {', '.join(outside)}, outside its own directory; an archive holds one "
            "self-contained model (copy those parts in, or build it with train --arch pipeline --parser ...)"
        )
    name = directory.name
    files = sorted(p for p in directory.rglob("*") if p.is_file() and not _skipped(p.relative_to(directory)))
    manifest = {"name": name, "files": {str(p.relative_to(directory).as_posix()): sha256_of(p) for p in files}}
    card = model_info(directory)
    manifest |= {"language": card.language, "task": card.task, "licence": card.licence}

    def write(handle) -> None:
        with tarfile.open(fileobj=handle, mode="w:gz") as archive:
            for path in files:
                archive.add(path, arcname=f"{name}/{path.relative_to(directory).as_posix()}", recursive=False)
            data = json.dumps(manifest, indent=1, ensure_ascii=False).encode("utf-8")
            info = tarfile.TarInfo(f"{name}/{MANIFEST}")
            info.size, info.mode = len(data), 0o644
            archive.addfile(info, io.BytesIO(data))

    atomic_write(output, write)
    return sha256_of(output)


def _skipped(relative: Path) -> bool:
    """Training leftovers an installed model does not read (resume checkpoints, kept epochs)."""
    return relative.parts[0] in ("checkpoint", "epochs", "heldout") or relative.name.startswith(".")


def write_catalogue(directory: Path) -> Path:
    """``DIR/catalogue.json`` for the archives in ``directory`` (URLs relative to the catalogue)."""
    entries = []
    for archive in sorted(directory.glob("*.tar.gz")):
        manifest = _checked_members(archive)[1]
        entries.append(
            {
                "name": manifest["name"],
                "language": manifest.get("language"),
                "task": manifest.get("task"),
                "licence": manifest.get("licence"),
                "url": archive.name,
                "sha256": sha256_of(archive),
                "size_mb": round(archive.stat().st_size / 1e6, 1),
            }
        )
    target = directory / "catalogue.json"
    text = json.dumps(entries, indent=1, ensure_ascii=False) + "\n"
    atomic_write(target, lambda handle: handle.write(text.encode("utf-8")))
    return target


# --- installing ------------------------------------------------------------------------------------------------


def install(source: str, sha256: str | None = None, catalogue: str | None = None, force: bool = False) -> Path:
    """Install the archive at ``source`` (a path, an http(s) URL, or a catalogue entry's name or language)."""
    url_or_path, expected = _locate(source, catalogue)
    expected = (sha256 or expected or "").lower() or None
    with tempfile.TemporaryDirectory(prefix="lstmparse-install-") as scratch:
        archive = _fetch(url_or_path, Path(scratch) / "model.tar.gz")
        digest = sha256_of(archive) if expected is not None else None
        if digest != expected:
            raise ModelError(f"{source}: the archive's SHA-256 is {digest}, not the expected {expected}")
        members, manifest = _checked_members(archive)
        return _unpack(archive, members, manifest, install_directory(), force)


def _locate(source: str, catalogue: str | None) -> tuple[str, str | None]:
    """The archive's path or URL, and the SHA-256 its catalogue entry gives (if it came from one)."""
    if urllib.parse.urlparse(source).scheme in ("http", "https") or Path(source).is_file():
        return source, None
    catalogue = catalogue or os.environ.get(CATALOGUE_ENV)
    if not catalogue:
        raise ConfigurationError(
            f"--install {source}: no such archive file, and no catalogue to look the name up in "
            f"(--catalogue FILE_OR_URL or {CATALOGUE_ENV})"
        )
    entries = json.loads(_read_small(catalogue).decode("utf-8"))
    if not isinstance(entries, list):
        raise ModelError(f"{catalogue}: not a catalogue (a JSON list of models)")
    by_name = [e for e in entries if isinstance(e, dict) and e.get("name") == source]
    by_language = [e for e in entries if isinstance(e, dict) and e.get("language") == source]
    found = by_name or sorted(by_language, key=lambda e: (not str(e.get("task", "")).startswith("raw text"), e["name"]))
    if not found:
        names = ", ".join(sorted(str(e.get("name")) for e in entries if isinstance(e, dict)))
        raise ModelError(f"--install {source}: {catalogue} has no model of that name or language ({names})")
    base = catalogue if "://" in catalogue else Path(catalogue).resolve().as_uri()
    return urllib.parse.urljoin(base, found[0]["url"]), found[0].get("sha256")


def _read_small(location: str) -> bytes:
    if "://" in location:
        with urllib.request.urlopen(location, timeout=60) as response:  # noqa: S310 (http(s) and file URLs only)
            return response.read(16 << 20)
    return Path(location).read_bytes()


def _fetch(location: str, target: Path) -> Path:
    """The archive as a local file: a path as it is, a URL downloaded into ``target``."""
    scheme = urllib.parse.urlparse(location).scheme
    if scheme == "":
        return Path(location)
    if scheme == "file":
        return Path(urllib.parse.unquote(urllib.parse.urlparse(location).path))
    if scheme not in ("http", "https"):
        raise ConfigurationError(f"--install {location}: only paths and http(s) URLs")
    try:
        with urllib.request.urlopen(location, timeout=60) as response, open(target, "wb") as out:  # noqa: S310
            received = 0
            for chunk in iter(lambda: response.read(CHUNK), b""):
                received += len(chunk)
                if received > MAX_ARCHIVE_BYTES:
                    raise ModelError(f"{location}: larger than {MAX_ARCHIVE_BYTES >> 20} MiB; not a model archive")
                out.write(chunk)
    except OSError as error:
        raise ModelError(f"{location}: download failed ({getattr(error, 'reason', None) or error})") from None
    return target


def _checked_members(archive: Path) -> tuple[list[tarfile.TarInfo], dict]:
    """Every member checked (plain files and directories under one ``NAME/``) and the manifest, before writing."""
    try:
        with tarfile.open(archive, mode="r:gz") as tar:
            members = tar.getmembers()  # reads the whole archive: a truncated or corrupt one fails here
            manifest_member = next((m for m in members if PurePosixPath(m.name).name == MANIFEST), None)
            handle = (
                tar.extractfile(manifest_member) if manifest_member is not None and manifest_member.isfile() else None
            )
            manifest_data = handle.read() if handle is not None else b""
    except (tarfile.TarError, EOFError, OSError, ValueError) as error:
        raise ModelError(f"{archive}: not a readable model archive ({error or type(error).__name__})") from None
    roots = {PurePosixPath(m.name).parts[0] for m in members if PurePosixPath(m.name).parts}
    for member in members:
        _check_member(archive, member)
    if len(roots) != 1:
        raise ModelError(f"{archive}: an archive holds one model directory, not {sorted(roots)}")
    try:
        manifest = json.loads(manifest_data.decode("utf-8"))
    except ValueError:
        raise ModelError(f"{archive}: no readable {MANIFEST} (each file's SHA-256)") from None
    name = roots.pop()
    files = {PurePosixPath(m.name).relative_to(name).as_posix() for m in members if m.isfile()} - {MANIFEST}
    listed = manifest.get("files") if isinstance(manifest, dict) else None
    if manifest.get("name") != name or not isinstance(listed, dict) or set(listed) != files:
        raise ModelError(f"{archive}: its {MANIFEST} does not list exactly the files it holds")
    if CONFIG not in files:
        raise ModelError(f"{archive}: {name}/{CONFIG} is missing; not a model")
    return members, manifest


def _check_member(archive: Path, member: tarfile.TarInfo) -> None:
    """Refuse what Python's ``tarfile`` data filter refuses: links, devices, absolute paths, ``..``."""
    path = PurePosixPath(member.name)
    if member.issym() or member.islnk():
        raise ModelError(f"{archive}: refused: {member.name} is a link (to {member.linkname})")
    if not (member.isfile() or member.isdir()):
        raise ModelError(f"{archive}: refused: {member.name} is neither a file nor a directory")
    if path.is_absolute() or member.name.startswith(("/", "\\")) or ".." in path.parts or not path.parts:
        raise ModelError(f"{archive}: refused: {member.name} would be written outside the model's directory")


def _unpack(archive: Path, members: list[tarfile.TarInfo], manifest: dict, destination: Path, force: bool) -> Path:
    """Write the files into a temporary directory beside ``destination``, check them, and rename it into place."""
    name = manifest["name"]
    target = destination / name
    if target.exists() and not force:
        raise ModelError(f"{target}: a model of that name is installed; --force replaces it")
    destination.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.installing.", dir=destination))
    try:
        with tarfile.open(archive, mode="r:gz") as tar:
            for member, relative in _files(members, name):
                written = staging / relative
                written.parent.mkdir(parents=True, exist_ok=True)
                digest = hashlib.sha256()
                source = tar.extractfile(member)
                if source is None:  # checked: every member written is a file
                    raise ModelError(f"{archive}: {member.name} cannot be read")
                with source, open(written, "wb") as out:
                    for chunk in iter(functools.partial(source.read, CHUNK), b""):
                        digest.update(chunk)
                        out.write(chunk)
                if digest.hexdigest() != manifest["files"][relative]:
                    raise ModelError(f"{archive}: {name}/{relative} does not match its SHA-256 in {MANIFEST}")
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False), encoding="utf-8")
        if target.exists():
            retired = destination / f".{name}.replaced"
            shutil.rmtree(retired, ignore_errors=True)
            target.rename(retired)
            staging.rename(target)
            shutil.rmtree(retired, ignore_errors=True)
        else:
            staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def _files(members: list[tarfile.TarInfo], name: str) -> Iterator[tuple[tarfile.TarInfo, str]]:
    for member in members:
        relative = PurePosixPath(member.name).relative_to(name).as_posix()
        if member.isfile() and relative != MANIFEST:
            yield member, relative
