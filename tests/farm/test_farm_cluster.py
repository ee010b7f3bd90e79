"""The farm on a real local Dask cluster (a scheduler and two worker processes on 127.0.0.1).

End to end with the smoke plan: every job runs, the results are written, a rerun
redoes nothing; an interrupted farm continues without redoing finished jobs; a
killed worker's job is retried and resumes; a job with bad data fails alone; and a
farm-trained model is the model `lstmparse train` trains by hand.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import DATA, ROOT, first_sentences, run_cli

pytestmark = pytest.mark.slow
SMOKE = ROOT / "bench" / "plans" / "smoke.toml"
TIMING_KEYS = {"seconds", "total_seconds", "train_seconds", "time"}


def write_plan(tmp_path: Path, settings: str, treebanks: dict[str, Path] | None = None, sentences: int = 40) -> Path:
    treebanks = treebanks or {"ta_ttb": DATA / "ud" / "ta_ttb"}
    lines = ["seeds = [1]", "budget_minutes = 2", ""]
    for name, path in treebanks.items():
        lines += [f"[treebanks.{name}]", f'path = "{path}"', f"train_sentences = {sentences}"]
        lines += ["dev_sentences = 10", "test_sentences = 10", ""]
    path = tmp_path / "plan.toml"
    path.write_text("\n".join(lines) + settings, encoding="utf-8")
    return path


def result_times(work_dir: Path) -> dict[str, float]:
    return {str(p.relative_to(work_dir)): p.stat().st_mtime for p in (work_dir / "jobs").rglob("result.json")}


def farm(*args, timeout: int = 600) -> subprocess.CompletedProcess:
    return run_cli("farm", *args, "--progress-seconds", "1", timeout=timeout)


def test_the_smoke_plan_runs_end_to_end_and_a_rerun_redoes_nothing(tmp_path):
    work = tmp_path / "work"
    result = farm(SMOKE, "--work-dir", work, "--workers", "2")
    assert result.returncode == 0, result.stderr
    assert "18 jobs finished (18 in this run), 0 failed, 0 skipped" in result.stderr
    records = json.loads((work / "results.json").read_text(encoding="utf-8"))
    assert {(r["treebank"], r["setting"]) for r in records} == {
        (t, s) for t in ("ta_ttb", "wo_wtb") for s in ("words", "pipeline")
    }
    for record in records:
        assert set(record) == {"treebank", "setting", "seed", "dev", "test", "cpu_minutes"}
        sources = {"raw", "tokens"} if record["setting"] == "pipeline" else {"tokens"}
        assert set(record["test"]) == set(record["dev"]) == sources
        assert {"Words", "UPOS", "LAS", "MLAS", "BLEX"} <= set(record["test"]["tokens"])
        assert record["cpu_minutes"] > 0
    assert "## Test from raw text" in (work / "results.md").read_text(encoding="utf-8")
    log = (work / "jobs" / "ta_ttb" / "pipeline" / "s1" / "pipeline" / "log.txt").read_text(encoding="utf-8")
    assert "tagger: reusing" in log and "fold 2 tagger: reusing" in log and "tokenizer: reusing" in log
    assert " done, " in result.stderr and " waiting" in result.stderr  # the progress line (epochs: test_plan)

    before = result_times(work)
    rerun = farm(SMOKE, "--work-dir", work, "--workers", "2")
    assert rerun.returncode == 0 and "18 finished before, 0 to run" in rerun.stderr, rerun.stderr
    assert result_times(work) == before

    (work / "jobs" / "ta_ttb" / "pipeline" / "s1" / "tagger" / "result.json").unlink()  # as if its command changed
    again = farm(SMOKE, "--work-dir", work, "--workers", "2")
    assert again.returncode == 0 and "15 finished before, 3 to run" in again.stderr, again.stderr  # and its readers


def test_a_farm_trained_model_is_the_model_train_trains_by_hand(tmp_path):
    settings = (
        '[[settings]]\nname = "words"\noptions = { features = "words,chars", system = "arc-hybrid", epochs = 2 }\n'
    )
    work = tmp_path / "work"
    assert farm(write_plan(tmp_path, settings), "--work-dir", work, "--workers", "1").returncode == 0
    farmed = work / "models" / "ta_ttb" / "words" / "s1"
    log = (work / "jobs" / "ta_ttb" / "words" / "s1" / "train" / "log.txt").read_text(encoding="utf-8")
    command = next(line[2:].split() for line in log.splitlines() if line.startswith("$ lstmparse train"))
    by_hand = tmp_path / "by_hand"
    command[command.index("--model-dir") + 1] = str(by_hand)
    result = run_cli(*command[1:], env={"OMP_NUM_THREADS": "1"})
    assert result.returncode == 0, result.stderr
    assert _without_timing(_config(farmed)) == _without_timing(_config(by_hand), str(by_hand), str(farmed))
    for params in farmed.glob("params-*.npz"):
        ours, theirs = np.load(params), np.load(by_hand / params.name)
        assert sorted(ours.files) == sorted(theirs.files)
        for name in ours.files:
            np.testing.assert_array_equal(ours[name], theirs[name])


def _config(directory: Path) -> dict:
    return json.loads((directory / "config.json").read_text(encoding="utf-8"))


def _without_timing(value, old: str = "", new: str = ""):
    """The record with wall-clock figures dropped (and one model directory's name put for another)."""
    if isinstance(value, dict):
        return {k: _without_timing(v, old, new) for k, v in value.items() if k not in TIMING_KEYS and "second" not in k}
    if isinstance(value, list):
        return [_without_timing(v, old, new) for v in value]
    if isinstance(value, str) and old:
        return value.replace(old, new)
    return value


def test_a_job_with_bad_data_fails_alone_and_its_dependents_are_skipped(tmp_path):
    bad = tmp_path / "bad_tb"
    bad.mkdir()
    (bad / "train.conllu").write_text("1\tDogs\tdog\tNOUN\t_\t_\t7\tnsubj\t_\t_\n\n", encoding="utf-8")
    (bad / "test.conllu").write_text((DATA / "ud" / "ta_ttb" / "test.conllu").read_text(encoding="utf-8"))
    (bad / "dev.conllu").write_text((DATA / "ud" / "ta_ttb" / "dev.conllu").read_text(encoding="utf-8"))
    settings = '[[settings]]\nname = "words"\noptions = { features = "words", epochs = 1 }\n'
    work = tmp_path / "work"
    plan = write_plan(tmp_path, settings, {"ta_ttb": DATA / "ud" / "ta_ttb", "bad": bad})
    result = farm(plan, "--work-dir", work, "--workers", "2")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    failed = [line for line in result.stderr.splitlines() if line.startswith("farm: FAILED")]
    assert len(failed) == 1 and "bad/words/s1/train" in failed[0] and "train.conllu:1" in failed[0], failed
    assert "farm: skipped bad/words/s1/evaluate: needs bad/words/s1/train, which failed" in result.stderr
    records = json.loads((work / "results.json").read_text(encoding="utf-8"))
    assert [r["treebank"] for r in records] == ["ta_ttb"]


def _start_farm(plan: Path, work: Path, workers: int) -> subprocess.Popen:
    command = [sys.executable, "-m", "lstmparse", "farm", str(plan), "--work-dir", str(work)]
    return subprocess.Popen(
        [*command, "--workers", str(workers), "--progress-seconds", "1"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal's foreground job has it
    )


def _wait_for(condition, process: subprocess.Popen, timeout: float = 300) -> None:
    deadline = time.time() + timeout
    while not condition():
        assert process.poll() is None, process.stderr.read()
        assert time.time() < deadline, "timed out"
        time.sleep(0.2)


LONG_SETTINGS = "".join(
    f'[[settings]]\nname = "{name}"\noptions = {{ features = "words", epochs = {epochs} }}\n'
    for name, epochs in (("short", 1), ("long", 40))
)


def test_an_interrupted_farm_continues_without_redoing_finished_jobs(tmp_path):
    work = tmp_path / "work"
    plan = write_plan(tmp_path, LONG_SETTINGS, sentences=60)
    process = _start_farm(plan, work, 1)
    short = work / "jobs" / "ta_ttb" / "short" / "s1" / "train" / "result.json"
    long_log = work / "jobs" / "ta_ttb" / "long" / "s1" / "train" / "log.txt"
    _wait_for(lambda: short.is_file() and long_log.is_file() and "epoch 2:" in long_log.read_text(), process)
    before = result_times(work)
    os.killpg(process.pid, signal.SIGINT)  # Ctrl-C in the terminal: the farm, its cluster and its jobs
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130 and "run the same command again to continue" in stderr, stderr
    assert "Traceback" not in stderr and "Warning" not in stderr
    spent_before = float((long_log.parent / "cpu_seconds_spent").read_text())
    assert spent_before > 0  # the stopped training's CPU time is kept
    result = farm(plan, "--work-dir", work, "--workers", "1")
    assert result.returncode == 0, result.stderr
    assert f"{len(before)} finished before" in result.stderr
    assert {k: v for k, v in result_times(work).items() if k in before} == before
    assert "--resume" in long_log.read_text(encoding="utf-8")  # the interrupted training continued
    cpu = json.loads((long_log.parent / "result.json").read_text())["cpu_seconds"]
    assert cpu > spent_before  # both attempts count in the training CPU-minutes


def test_a_killed_workers_job_is_retried_and_resumes(tmp_path):
    work = tmp_path / "work"
    plan = write_plan(tmp_path, LONG_SETTINGS, sentences=60)
    process = _start_farm(plan, work, 2)
    job = work / "jobs" / "ta_ttb" / "long" / "s1" / "train"
    _wait_for(lambda: (job / "log.txt").is_file() and "epoch 2:" in (job / "log.txt").read_text(), process)
    worker = json.loads((job / "started.json").read_text(encoding="utf-8"))["pid"]
    os.kill(worker, signal.SIGKILL)  # its nanny starts a new worker; the scheduler runs the job again
    _, stderr = process.communicate(timeout=600)
    assert process.returncode == 0, stderr
    log = (job / "log.txt").read_text(encoding="utf-8")
    assert log.count("== ta_ttb/long/s1/train: attempt") == 2 and "--resume" in log, log
    assert (work / "models" / "ta_ttb" / "long" / "s1" / "config.json").is_file()


def test_a_reference_job_trains_udpipe_1_and_scores_it_as_our_models(tmp_path):
    pytest.importorskip("ufal.udpipe")
    settings = '[[settings]]\nname = "udpipe1"\narch = "udpipe"\n'
    work = tmp_path / "work"
    result = farm(write_plan(tmp_path, settings, sentences=30), "--work-dir", work, "--workers", "1")
    assert result.returncode == 0, result.stderr
    (record,) = json.loads((work / "results.json").read_text(encoding="utf-8"))
    assert record["setting"] == "udpipe1" and set(record["test"]) == {"raw", "tokens"}
    assert record["test"]["tokens"]["Words"] == 100.0 and 0 < record["test"]["raw"]["Words"] <= 100.0
    assert record["test"]["tokens"]["LAS"] > 0 and record["cpu_minutes"] > 0
    # UDPipe read the raw text lstmparse evaluate --from raw gives our pipelines
    from lstmparse.io.formats import read_sentences
    from lstmparse.tokenizer.data import raw_text_paragraphs

    texts, _ = raw_text_paragraphs(list(read_sentences(str(work / "data" / "ta_ttb" / "test.conllu"))))
    given = (work / "models" / "ta_ttb" / "udpipe1" / "s1" / "test.txt").read_text(encoding="utf-8")
    assert given == "\n\n".join(texts) + "\n"


def test_a_treebank_that_cannot_be_prepared_fails_alone(tmp_path):
    tiny = tmp_path / "tiny_tb"
    tiny.mkdir()
    (tiny / "train.conllu").write_text(first_sentences(DATA / "ud" / "ta_ttb" / "train.conllu", 5), encoding="utf-8")
    settings = '[[settings]]\nname = "words"\noptions = { features = "words", epochs = 1 }\n'
    plan = write_plan(tmp_path, settings, {"ta_ttb": DATA / "ud" / "ta_ttb", "tiny": tiny})
    result = farm(plan, "--work-dir", tmp_path / "work", "--workers", "1")
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert "farm: FAILED tiny/prepare:" in result.stderr and "too few to hold a dev set" in result.stderr
    assert [r["treebank"] for r in json.loads((tmp_path / "work" / "results.json").read_text())] == ["ta_ttb"]


def test_a_plan_runs_on_an_existing_cluster_given_by_its_address(tmp_path):
    """--scheduler: a scheduler and two single-threaded workers started apart from the farm, on 127.0.0.1."""
    distributed = pytest.importorskip("distributed")
    settings = '[[settings]]\nname = "words"\noptions = { features = "words", epochs = 1 }\n'
    plan = write_plan(tmp_path, settings, {"ta_ttb": DATA / "ud" / "ta_ttb", "wo_wtb": DATA / "ud" / "wo_wtb"})
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0"
    ) as cluster:
        result = farm(plan, "--work-dir", tmp_path / "work", "--scheduler", cluster.scheduler_address)
    assert result.returncode == 0, result.stderr
    assert "4 jobs finished (4 in this run)" in result.stderr and "on 2 workers" in result.stderr
    records = json.loads((tmp_path / "work" / "results.json").read_text(encoding="utf-8"))
    assert sorted(r["treebank"] for r in records) == ["ta_ttb", "wo_wtb"]
    refused = farm(plan, "--work-dir", tmp_path / "work2", "--scheduler", "tcp://127.0.0.1:1")
    assert refused.returncode == 2 and "no Dask scheduler answers" in refused.stderr.strip().splitlines()[-1]
