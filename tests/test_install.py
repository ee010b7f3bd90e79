"""Model archives: packed, served over HTTP on 127.0.0.1, installed, and refused when corrupt, truncated or hostile."""

from __future__ import annotations

import functools
import http.server
import io
import json
import tarfile
import threading
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

from lstmparse.app import install
from lstmparse.errors import ModelError

MODEL = ROOT / "models" / "en_ewt_wp"


@pytest.fixture
def models_dir(tmp_path, monkeypatch) -> Path:
    target = tmp_path / "installed"
    monkeypatch.setenv("LSTMPARSE_MODELS", str(target))
    return target


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("archives")
    install.package(str(MODEL), folder / "en_ewt_wp.tar.gz")
    return folder / "en_ewt_wp.tar.gz"


@pytest.fixture
def server(tmp_path):
    """A static HTTP server on 127.0.0.1 over a folder (the only network there is here)."""
    served = tmp_path / "served"
    served.mkdir()
    handler = functools.partial(QuietHandler, directory=str(served))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield served, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def nothing_installed(models_dir: Path) -> bool:
    return not models_dir.exists() or not any(models_dir.iterdir())


def test_a_packed_model_installs_and_parses_as_the_original(archive, models_dir):
    target = install.install(str(archive))
    assert target == models_dir / "en_ewt_wp" and (target / "manifest.json").is_file()
    text = (ROOT / "data" / "sample.conllu").read_text(encoding="utf-8")
    env = {"LSTMPARSE_MODELS": str(models_dir)}
    installed = run_cli("parse", "--model", "en_ewt_wp", "--quiet", stdin=text, env=env)
    original = run_cli("parse", "--model", MODEL, "--quiet", stdin=text)
    assert installed.returncode == 0 and installed.stdout == original.stdout
    with pytest.raises(ModelError, match="--force replaces it"):
        install.install(str(archive))
    assert install.install(str(archive), force=True) == target


def test_downloads_by_url_by_name_and_by_language_from_a_catalogue(archive, models_dir, server, tmp_path):
    served, base = server
    (served / archive.name).write_bytes(archive.read_bytes())
    install.write_catalogue(served)
    entry = json.loads((served / "catalogue.json").read_text(encoding="utf-8"))[0]
    assert entry["name"] == "en_ewt_wp" and entry["language"] == "en" and entry["url"] == archive.name
    result = run_cli(
        "models", "--install", "en", "--catalogue", f"{base}/catalogue.json", env={"LSTMPARSE_MODELS": str(models_dir)}
    )
    assert result.returncode == 0, result.stderr
    assert (models_dir / "en_ewt_wp" / "config.json").is_file()
    again = run_cli(
        "models", "--install", f"{base}/{archive.name}", "--sha256", install.sha256_of(archive), "--force",
        env={"LSTMPARSE_MODELS": str(models_dir)},
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    wrong = run_cli(
        "models",
        "--install",
        f"{base}/{archive.name}",
        "--sha256",
        "0" * 64,
        "--force",
        env={"LSTMPARSE_MODELS": str(tmp_path / "x")},
    )
    assert wrong.returncode == 2 and "not the expected" in wrong.stderr and not (tmp_path / "x").exists()
    missing = run_cli(
        "models",
        "--install",
        "xx",
        "--catalogue",
        f"{base}/catalogue.json",
        env={"LSTMPARSE_MODELS": str(tmp_path / "y")},
    )
    assert missing.returncode == 2 and "no model of that name or language (en_ewt_wp)" in missing.stderr


@pytest.mark.parametrize("damage", ["corrupt", "truncated"])
def test_a_corrupt_or_truncated_download_is_refused_and_nothing_is_half_installed(damage, archive, models_dir, server):
    served, base = server
    data = bytearray(archive.read_bytes())
    if damage == "corrupt":
        middle = len(data) // 2
        data[middle : middle + 64] = bytes(64)
    else:
        data = data[: len(data) * 2 // 3]
    (served / "damaged.tar.gz").write_bytes(bytes(data))
    with pytest.raises(ModelError):
        install.install(f"{base}/damaged.tar.gz")
    assert nothing_installed(models_dir)


def hand_made_archive(path: Path, extra: tarfile.TarInfo | None = None, data: bytes = b"", digest=None) -> Path:
    """The model's files and a manifest (each file's SHA-256, or ``digest(file)``), and an ``extra`` member."""
    digest = digest or install.sha256_of
    with tarfile.open(path, "w:gz") as tar:
        files = sorted(p for p in MODEL.iterdir() if p.is_file())
        manifest = {"name": "en_ewt_wp", "files": {p.name: digest(p) for p in files}}
        for p in files:
            tar.add(p, arcname=f"en_ewt_wp/{p.name}")
        body = json.dumps(manifest).encode()
        info = tarfile.TarInfo("en_ewt_wp/manifest.json")
        info.size = len(body)
        tar.addfile(info, io.BytesIO(body))
        if extra is not None:
            extra.size = len(data) if extra.isfile() else 0
            tar.addfile(extra, io.BytesIO(data) if extra.isfile() else None)
    return path


def _member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    return info


@pytest.mark.parametrize(
    ("member", "message"),
    [
        (_member("/tmp/evil.txt"), "outside the model's directory"),
        (_member("en_ewt_wp/../../evil.txt"), "outside the model's directory"),
        (_member("en_ewt_wp/link", tarfile.SYMTYPE, "/etc/passwd"), "is a link"),
        (_member("en_ewt_wp/hard", tarfile.LNKTYPE, "en_ewt_wp/config.json"), "is a link"),
        (_member("en_ewt_wp/fifo", tarfile.FIFOTYPE), "neither a file nor a directory"),
    ],
)
def test_a_hostile_archive_is_refused_before_anything_is_written(member, message, models_dir, tmp_path):
    archive = hand_made_archive(tmp_path / "hostile.tar.gz", member, b"owned")
    with pytest.raises(ModelError, match=message):
        install.install(str(archive))
    assert nothing_installed(models_dir) and not (tmp_path / "evil.txt").exists()


def test_files_that_do_not_match_their_manifest_are_refused(models_dir, tmp_path):
    extra = hand_made_archive(tmp_path / "extra.tar.gz", _member("en_ewt_wp/extra.json"), b"{}")
    with pytest.raises(ModelError, match="does not list exactly the files it holds"):
        install.install(str(extra))
    changed = hand_made_archive(tmp_path / "changed.tar.gz", digest=lambda path: "0" * 64)
    with pytest.raises(ModelError, match="does not match its SHA-256"):
        install.install(str(changed))
    assert nothing_installed(models_dir) or not any(p.name == "en_ewt_wp" for p in models_dir.iterdir())
    assert not any(p.name.startswith(".") for p in models_dir.iterdir())  # no staging directory left


def test_a_model_that_reads_outside_its_directory_is_not_packed(tmp_path):
    """A pipeline whose manifest borrows another model's parts (as a hand-made ensemble may) is refused."""
    borrowing = tmp_path / "borrowing"
    borrowing.mkdir()
    shipped = ROOT / "models" / "en_ewt_pipeline"
    parts = {part: str(shipped / part) for part in ("tokenizer", "tagger", "parser")}
    manifest = {"arch": "pipeline", "parts": parts}
    (borrowing / "config.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ModelError, match="outside its own directory"):
        install.package(str(borrowing), tmp_path / "x.tar.gz")
    assert not (tmp_path / "x.tar.gz").exists()


def test_without_lstmparse_models_it_installs_into_the_users_data_directory_where_model_finds_it(archive, tmp_path):
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "LSTMPARSE_MODELS": ""}
    result = run_cli("models", "--install", archive, env=env)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "data" / "lstmparse" / "models" / "en_ewt_wp" / "config.json").is_file()
    listed = run_cli("models", "en_ewt_wp", env=env)
    assert str(tmp_path / "data" / "lstmparse" / "models" / "en_ewt_wp") in listed.stdout


def test_the_wheel_keeps_english_models_only(tmp_path):
    """setup.py ships models whose card says English (or that have no card); other languages install separately,
    and a folder holding only a recipe (a model still to make: a fast pipeline before the farm made it) is no model."""
    source = (ROOT / "setup.py").read_text(encoding="utf-8").replace("setup(data_files=model_files())", "")
    namespace: dict = {"__file__": str(ROOT / "setup.py")}
    exec(compile(source, "setup.py", "exec"), namespace)  # noqa: S102 - our own setup.py, without its setup() call
    in_the_wheel = namespace["in_the_wheel"]
    for name, card in (("fr_model", {"language": "fr"}), ("en_model", {"language": "en"}), ("old_model", None)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "config.json").write_text("{}", encoding="utf-8")
        if card is not None:
            (tmp_path / name / "card.json").write_text(json.dumps(card), encoding="utf-8")
    (tmp_path / "en_to_make").mkdir()
    (tmp_path / "en_to_make" / "recipe.toml").write_text('[model]\nname = "en_to_make"\n', encoding="utf-8")
    names = ("fr_model", "en_model", "old_model", "en_to_make")
    assert [in_the_wheel(tmp_path / name) for name in names] == [False, True, True, False]
    shipped = {target.split("/")[3] for target, _ in namespace["model_files"]()}
    assert shipped and all(name.startswith("en_") for name in shipped)
