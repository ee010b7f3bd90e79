"""A pipeline built as its recipe says: the parts at once on Dask, as the farm trains them, then the pipeline step.

``lstmparse train --recipe`` (and ``--arch pipeline``) builds a pipeline here; the
parts' jobs are those a farm plan's pipeline setting runs (:func:`~lstmparse.app.farm.plan.pipeline_jobs`),
so both paths train the same parts the same way.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import TextIO

from lstmparse.app.farm.engine import run_graph
from lstmparse.app.farm.plan import Setting, TreebankFiles, pipeline_jobs
from lstmparse.core.records import read_record
from lstmparse.errors import ConfigurationError

BUILD_DIRECTORY = "build"  # inside the model directory while a pipeline is built: the parts' jobs and logs


def build_pipeline(
    options: dict[str, object],
    files: tuple[str, str | None],
    model_dir: str | Path,
    seed: int,
    workers: int | None = None,
    scheduler: str | None = None,
    log: TextIO = sys.stderr,
) -> dict:
    """Train a pipeline into ``model_dir`` as the farm does: its independent parts at once on Dask (``workers``
    processes, or an existing ``scheduler``), then the pipeline step; the pipeline step's training record.

    ``options``: ``train --arch pipeline``'s (without ``train``, ``dev``, ``model_dir``,
    ``seed``). The parts' jobs and logs are kept in ``model_dir/build`` until the
    pipeline is made, so an interrupted build continues where it stopped (finished
    parts are not trained again) when run again.
    """
    model_dir = Path(model_dir).resolve()
    work_dir = model_dir / BUILD_DIRECTORY
    options = dict(options)
    budget = options.pop("max_minutes", None)
    setting = Setting("recipe", "pipeline", options, None if budget is None else float(str(budget)), ())
    base = {"treebank": model_dir.name, "setting": "recipe", "seed": seed}
    train, dev = (None if file is None else str(Path(file).resolve()) for file in files)  # jobs run in their folders
    assert train is not None
    jobs = pipeline_jobs(model_dir.name, base, setting, TreebankFiles(train, dev, None), str(model_dir))
    outcome = run_graph(jobs, work_dir, scheduler, workers, log=log)
    if outcome.failed:
        job, why = next(iter(outcome.failed.items()))
        raise ConfigurationError(f"{job}: {why} (its log: {work_dir / 'jobs' / job / 'log.txt'})")
    step_log = work_dir / "jobs" / jobs[-1].id / "log.txt"  # the pipeline step: what it reused, chose and why
    for line in step_log.read_text(encoding="utf-8").splitlines():
        if not line.startswith(("epoch ", "== ", "$ ")):
            print(line, file=log)
    record = read_record(model_dir).config.get("training", {})
    record["cpu_minutes"] = round(outcome.cpu_seconds / 60, 1)
    record["wall_minutes"] = round(outcome.wall_seconds / 60, 1)
    shutil.rmtree(work_dir, ignore_errors=True)
    return record
