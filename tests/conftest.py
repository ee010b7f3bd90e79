"""Shared fixtures: DyNet is configured (seeded) before any test imports it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from lstmparse.core import backend

backend.configure(seed=1, memory_mb=256)

ROOT = Path(__file__).resolve().parent.parent
FASTEST_MODEL = ROOT / "models" / "en_ewt_wp"  # reads no characters: the fastest shipped parser
DATA = ROOT.parent / "shared" / "data"
EWT = DATA / "ud" / "en_ewt"
HU = DATA / "ud" / "hu_szeged"
GUM = DATA / "const" / "gum"


def run_cli(
    *args, stdin: str | None = None, env: dict | None = None, timeout: int = 300
) -> subprocess.CompletedProcess:
    """``lstmparse ARGS`` in a process of its own (``env``: variables added to this one's environment)."""
    command = [sys.executable, "-m", "lstmparse", *map(str, args)]
    environment = {**os.environ, **env} if env else None
    return subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=timeout, env=environment)


def assert_one_error_line(result: subprocess.CompletedProcess, *fragments: str) -> None:
    """Exit code 2 and one line on stderr, ``lstmparse: ...``, holding each fragment."""
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lstmparse: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


def blank_tags(text: str) -> str:
    """CoNLL-U text with the UPOS, XPOS and FEATS columns blanked."""
    rows = [line.split("\t") for line in text.split("\n")]
    for row in rows:
        if len(row) == 10 and row[0].isdigit():
            row[3:6] = ["_", "_", "_"]
    return "\n".join("\t".join(row) for row in rows)


def first_sentences(path: Path, count: int) -> str:
    """The first ``count`` sentence blocks of a CoNLL-U file, as text."""
    blocks = path.read_text(encoding="utf-8").split("\n\n")
    return "\n\n".join(blocks[:count]) + "\n\n"


@pytest.fixture(scope="session")
def ewt() -> Path:
    if not EWT.is_dir():
        pytest.fail(f"{EWT} is missing: the tests read the shared treebanks (see data/README.md)")
    return EWT


@pytest.fixture(scope="session")
def small_treebank(tmp_path_factory, ewt) -> dict[str, Path]:
    """200 training and 50 dev sentences cut from EWT."""
    folder = tmp_path_factory.mktemp("small")
    train = folder / "train.conllu"
    dev = folder / "dev.conllu"
    train.write_text(first_sentences(ewt / "train.conllu", 200), encoding="utf-8")
    dev.write_text(first_sentences(ewt / "dev.conllu", 50), encoding="utf-8")
    return {"train": train, "dev": dev}


def start_in_own_group(command: list[str]) -> subprocess.Popen:
    """The command as a terminal's foreground job: its own process group, Ctrl-C not ignored."""
    return subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_default_interrupt,
    )


def _default_interrupt() -> None:
    """Undo an ignored SIGINT inherited from a background shell, as a terminal's foreground job has it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def processes_in_group(group: int) -> list[int]:
    """Live (not zombie) processes of the group; the resource tracker may take a moment to follow."""
    deadline = time.time() + 10
    while True:
        listing = subprocess.run(["ps", "-o", "pid=,stat=", "-g", str(group)], capture_output=True, text=True)
        alive = [int(pid) for pid, stat in (line.split()[:2] for line in listing.stdout.splitlines()) if stat[0] != "Z"]
        if not alive or time.time() > deadline or any(is_worker(pid) for pid in alive):
            return alive
        time.sleep(0.2)


def is_worker(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return b"multiprocessing.spawn" in cmdline.read()
    except OSError:
        return False


def assert_interrupted(process: subprocess.Popen, stderr: str) -> None:
    """What Ctrl-C must leave: exit code 130, one last line and no traceback, no process of the group."""
    assert process.returncode == 130
    assert stderr.strip().splitlines()[-1:] == ["lstmparse: interrupted"] and "Traceback" not in stderr
    assert processes_in_group(process.pid) == []


def kill_group(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@pytest.fixture(scope="session")
def small_gum(tmp_path_factory) -> tuple[Path, Path]:
    """300 short GUM training trees and 40 dev trees (bracketed), for the seq2seq tests."""
    if not GUM.is_dir():
        pytest.fail(f"{GUM} is missing: the tests read the shared treebanks (see data/README.md)")
    directory = tmp_path_factory.mktemp("gum")
    train_lines = (GUM / "train.ptb").read_text().splitlines()
    short = [line for line in train_lines if len(line) < 250][:300]
    (directory / "train.ptb").write_text("\n".join(short) + "\n")
    dev_lines = (GUM / "dev.ptb").read_text().splitlines()[:40]
    (directory / "dev.ptb").write_text("\n".join(dev_lines) + "\n")
    return directory / "train.ptb", directory / "dev.ptb"


@pytest.fixture(scope="session")
def hungarian(tmp_path_factory) -> dict[str, Path]:
    """Hungarian Szeged (rich FEATS, non-projective trees): 150 training and 300 dev sentences, word vectors."""
    folder = tmp_path_factory.mktemp("hu_paths")
    files = {"train": folder / "train.conllu", "dev": folder / "dev.conllu", "vectors": folder / "vectors.txt"}
    files["train"].write_text(first_sentences(HU / "train.conllu", 150), encoding="utf-8")
    files["dev"].write_text(first_sentences(HU / "dev.conllu", 300), encoding="utf-8")
    from lstmparse.io.formats import read_treebank

    forms = sorted({t.form for name in ("train", "dev") for s in read_treebank(str(files[name])) for t in s.tokens})
    rng = np.random.default_rng(0)
    lines = [f"{form} " + " ".join(f"{v:.4f}" for v in rng.normal(size=6)) for form in forms[::2] if " " not in form]
    files["vectors"].write_text(f"{len(lines)} 6\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return files


@pytest.fixture(scope="session")
def small_tagger(small_treebank, tmp_path_factory):
    """A tagger (with lemmas) trained for two epochs on the small treebank, and its training record."""
    import io

    from lstmparse.tagger.api import POSTagger
    from lstmparse.tagger.options import TaggerOptions
    from lstmparse.tagger.training import train_tagger

    model_dir = tmp_path_factory.mktemp("tagger") / "m"
    options = TaggerOptions(
        train=str(small_treebank["train"]), dev=str(small_treebank["dev"]), model_dir=str(model_dir), epochs=2
    )
    record = train_tagger(options, log=io.StringIO())
    return POSTagger.load(model_dir), record
