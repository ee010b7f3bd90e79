"""``lstmparse parse-corpus``: per-shard outputs identical to ``parse``, resumable, on local processes and Dask."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import (
    FASTEST_MODEL,
    ROOT,
    assert_interrupted,
    first_sentences,
    is_worker,
    kill_group,
    processes_in_group,
    start_in_own_group,
)

MODEL = FASTEST_MODEL
SHARDS = 4


def parse_corpus(*args, timeout: int = 300) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "lstmparse", "parse-corpus", "--model", str(MODEL), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def cut(source: Path, folder: Path, shards: int, per_shard: int) -> list[Path]:
    """``shards`` consecutive pieces of ``per_shard`` sentences of a treebank."""
    blocks = first_sentences(source, shards * per_shard).rstrip("\n").split("\n\n")
    folder.mkdir()
    paths = []
    for k in range(shards):
        path = folder / f"part{k}.conllu"
        path.write_text("\n\n".join(blocks[k * per_shard : (k + 1) * per_shard]) + "\n\n", encoding="utf-8")
        paths.append(path)
    return paths


def expected_outputs(paths: list[Path]) -> dict[str, str]:
    """What ``lstmparse parse`` writes for each shard."""
    outputs = {}
    for path in paths:
        command = [sys.executable, "-m", "lstmparse", "parse", "--model", str(MODEL), "--quiet", "--input", str(path)]
        outputs[path.name] = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return outputs


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, ewt):
    folder = tmp_path_factory.mktemp("corpus")
    paths = cut(ewt / "dev.conllu", folder / "shards", SHARDS, 60)
    return {"folder": folder / "shards", "paths": paths, "expected": expected_outputs(paths)}


@pytest.fixture(scope="module")
def long_corpus(tmp_path_factory, ewt):
    """Shards that take a few seconds each, long enough to kill a worker in the middle of a run."""
    folder = tmp_path_factory.mktemp("long")
    paths = cut(ewt / "train.conllu", folder / "shards", 6, 500)
    return {"folder": folder / "shards", "paths": paths, "expected": expected_outputs(paths)}


def assert_outputs(output_dir: Path, expected: dict[str, str]) -> None:
    assert sorted(p.name for p in output_dir.iterdir()) == sorted(expected)  # no temporary file is left
    for name, text in expected.items():
        assert (output_dir / name).read_text(encoding="utf-8") == text, name


@pytest.mark.parametrize("workers", [1, 2])
def test_each_shard_gets_what_parse_writes(corpus, tmp_path, workers):
    result = parse_corpus(f"{corpus['folder']}/*.conllu", "--output-dir", tmp_path / "out", "--workers", workers)
    assert result.returncode == 0, result.stderr
    assert f"{SHARDS} shards parsed, 0 skipped (output exists), 0 failed; 240 sentences" in result.stderr
    assert_outputs(tmp_path / "out", corpus["expected"])


def test_a_rerun_skips_the_shards_already_done(corpus, tmp_path):
    out = tmp_path / "out"
    assert parse_corpus(*corpus["paths"], "--output-dir", out).returncode == 0
    (out / "part2.conllu").unlink()
    done_before = (out / "part0.conllu").stat().st_mtime_ns
    result = parse_corpus(*corpus["paths"], "--output-dir", out, "--workers", 2)
    assert result.returncode == 0 and "1 shards parsed, 3 skipped (output exists), 0 failed" in result.stderr
    assert (out / "part0.conllu").stat().st_mtime_ns == done_before
    assert_outputs(out, corpus["expected"])


def test_a_malformed_shard_fails_alone_with_its_line(corpus, tmp_path):
    bad = tmp_path / "bad.conllu"
    good = corpus["paths"][0].read_text(encoding="utf-8").split("\n\n")
    bad.write_text("\n\n".join(good[:3]) + "\n\n1\tword\n\n", encoding="utf-8")
    bad_line = bad.read_text(encoding="utf-8").splitlines().index("1\tword") + 1
    out = tmp_path / "out"
    result = parse_corpus(*corpus["paths"], bad, "--output-dir", out, "--workers", 2)
    assert result.returncode == 2
    assert f"lstmparse: {bad}:{bad_line}:" in result.stderr and "Traceback" not in result.stderr
    assert f"{SHARDS} shards parsed, 0 skipped (output exists), 1 failed" in result.stderr
    assert_outputs(out, corpus["expected"])  # nothing of the bad shard: a rerun redoes it


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["nothing/*.conllu"], "nothing/*.conllu: no such file"),
        (["{shard}", "--workers", "1", "--scheduler", "tcp://127.0.0.1:1"], "pick one"),
        (["{shard}", "--model", "{tmp}/none"], "none: no such model directory"),
    ],
)
def test_bad_requests_are_one_line_before_any_parsing(corpus, tmp_path, arguments, message):
    arguments = [a.format(shard=corpus["paths"][0], tmp=tmp_path) for a in arguments]
    result = parse_corpus(*arguments, "--output-dir", tmp_path / "out")
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr
    assert message in result.stderr.strip().splitlines()[-1] and not list(tmp_path.glob("out/*"))


def test_two_shards_with_one_name_are_refused(corpus, tmp_path):
    twin = tmp_path / "twin"
    twin.mkdir()
    (twin / "part0.conllu").write_text(corpus["paths"][0].read_text(encoding="utf-8"), encoding="utf-8")
    result = parse_corpus(corpus["paths"][0], twin / "part0.conllu", "--output-dir", tmp_path / "out")
    assert result.returncode == 2 and "would both be written to" in result.stderr


def wait_for_first_output(output_dir: Path, process: subprocess.Popen, limit: float = 120) -> None:
    deadline = time.time() + limit
    while not any(output_dir.glob("*.conllu")):
        assert process.poll() is None and time.time() < deadline, "the run ended before any shard was written"
        time.sleep(0.05)


def start_two_workers(paths: list[Path], out: Path):
    """``parse-corpus --workers 2`` of ``paths`` into ``out``, started in its own process group."""
    command = [sys.executable, "-m", "lstmparse", "parse-corpus", "--model", str(MODEL), "--workers", "2"]
    return start_in_own_group([*command, *map(str, paths), "--output-dir", str(out)])


@pytest.mark.slow
def test_a_killed_local_worker_costs_a_retry_not_the_run(long_corpus, tmp_path):
    out = tmp_path / "out"
    process = start_two_workers(long_corpus["paths"], out)
    try:
        wait_for_first_output(out, process)
        os.kill(next(pid for pid in processes_in_group(process.pid) if is_worker(pid)), signal.SIGKILL)
        _, stderr = process.communicate(timeout=300)
    finally:
        kill_group(process)
    assert process.returncode == 0, stderr
    assert "6 shards parsed, 0 skipped (output exists), 0 failed" in stderr
    assert_outputs(out, long_corpus["expected"])


@pytest.mark.slow
def test_ctrl_c_exits_130_and_leaves_only_whole_outputs(long_corpus, tmp_path):
    """A terminal's Ctrl-C reaches the command and its workers; finished shards stay, nothing half-written does."""
    out = tmp_path / "out"
    process = start_two_workers(long_corpus["paths"], out)
    try:
        wait_for_first_output(out, process)
        os.killpg(process.pid, signal.SIGINT)
        _, stderr = process.communicate(timeout=60)  # a hang fails here
    finally:
        kill_group(process)
    assert_interrupted(process, stderr)
    written = sorted(p.name for p in out.iterdir())
    assert written and all(not name.startswith(".") for name in written)  # no temporary file
    for name in written:
        assert (out / name).read_text(encoding="utf-8") == long_corpus["expected"][name]


@pytest.fixture(scope="module")
def dask_cluster():
    """A real local Dask cluster: a scheduler on 127.0.0.1 and two single-threaded worker processes."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    )
    client = distributed.Client(cluster)
    yield cluster, client
    client.close()
    cluster.close()


@pytest.mark.slow
def test_a_dask_cluster_writes_what_parse_writes(dask_cluster, corpus, tmp_path):
    cluster, _ = dask_cluster
    result = parse_corpus(*corpus["paths"], "--output-dir", tmp_path / "out", "--scheduler", cluster.scheduler_address)
    assert result.returncode == 0, result.stderr
    assert_outputs(tmp_path / "out", corpus["expected"])


@pytest.mark.slow
def test_a_killed_dask_worker_has_its_shard_parsed_elsewhere(dask_cluster, long_corpus, tmp_path):
    cluster, client = dask_cluster
    out = tmp_path / "out"
    command = [sys.executable, "-m", "lstmparse", "parse-corpus", "--model", str(MODEL), "--scheduler"]
    process = subprocess.Popen(
        [*command, cluster.scheduler_address, *map(str, long_corpus["paths"]), "--output-dir", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for_first_output(out, process)
    victim = next(iter(client.run(os.getpid).values()))
    os.kill(victim, signal.SIGKILL)  # its nanny starts a new worker; the scheduler moves its shard
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    assert "6 shards parsed, 0 skipped (output exists), 0 failed" in stderr
    assert_outputs(out, long_corpus["expected"])


def test_a_rerun_with_every_output_done_loads_no_model(corpus, tmp_path):
    """Issue 33, defect 7: the model was loaded (and a damaged one refused) even with nothing left to parse."""
    model = tmp_path / "model"
    shutil.copytree(MODEL, model)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "lstmparse", "parse-corpus", *map(str, corpus["paths"]), "--output-dir", str(out)]
    assert subprocess.run([*command, "--model", str(model)], capture_output=True, text=True).returncode == 0
    for params in model.glob("params-*.npz"):
        params.write_bytes(b"damaged")
    result = subprocess.run([*command, "--model", str(model)], capture_output=True, text=True)
    assert result.returncode == 0 and f"0 shards parsed, {SHARDS} skipped" in result.stderr, result.stderr
    (out / "part1.conllu").unlink()
    result = subprocess.run([*command, "--model", str(model)], capture_output=True, text=True)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert str(model) in result.stderr.strip().splitlines()[-1]


@pytest.mark.slow
def test_a_constituency_model_parses_shards_as_parse_does(tmp_path):
    """Issue 33, defect 7: parse-corpus refused seq2seq models."""
    shards = tmp_path / "shards"
    shards.mkdir()
    (shards / "a.txt").write_text("Dogs bark .\nThe cat sat on the mat .\n", encoding="utf-8")
    (shards / "b.txt").write_text("It rains .\n", encoding="utf-8")
    model = ROOT / "models" / "en_gum_seq2seq"
    for output_format, suffix in (("ptb", ".mrg"), ("conllu", ".conllu")):
        out = tmp_path / output_format
        options = ["--model", str(model), "--input-format", "text", "--output-format", output_format, "--beam", "2"]
        command = [sys.executable, "-m", "lstmparse", "parse-corpus", f"{shards}/*.txt", "--output-dir", str(out)]
        result = subprocess.run([*command, *options, "--workers", "2"], capture_output=True, text=True)
        assert result.returncode == 0 and "2 shards parsed" in result.stderr, result.stderr
        for name in ("a.txt", "b.txt"):
            parse = [sys.executable, "-m", "lstmparse", "parse", "--quiet", "--input", str(shards / name), *options]
            expected = subprocess.run(parse, capture_output=True, text=True, check=True).stdout
            assert (out / f"{name}{suffix}").read_text(encoding="utf-8") == expected
    assert "# constituency = (ROOT" in (tmp_path / "conllu" / "a.txt.conllu").read_text(encoding="utf-8")
