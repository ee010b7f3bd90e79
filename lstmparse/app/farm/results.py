"""The plan's results: one record per treebank × setting × seed, as JSON and as Markdown tables.

``results.json`` is a list of records with the keys ``treebank``, ``setting``,
``seed``, ``dev`` and ``test`` (each ``{"raw": {measure: F1}, "tokens": {...}}``, the
CoNLL 2018 measures of the evaluations that ran) and ``cpu_minutes`` (the training
jobs' CPU time, evaluation excluded).  ``results.md`` has a table per evaluation
source (raw text, gold tokens): test figures, the dev LAS, and the CPU-minutes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from lstmparse.app.farm.jobs import JobResult
from lstmparse.app.farm.plan import Job
from lstmparse.core.model_io import atomic_write

MEASURES = ("Words", "Sentences", "UPOS", "UFeats", "Lemmas", "UAS", "LAS", "MLAS", "BLEX")
SOURCE_TITLES = {"raw": "from raw text", "tokens": "from gold tokens"}


def records(jobs: Iterable[Job], results: dict[str, JobResult]) -> list[dict]:
    """One record per cell whose evaluation finished, in the plan's order."""
    jobs = list(jobs)
    cells: dict[tuple, dict] = {}
    for job in jobs:
        cell = cells.setdefault(job.group, {"jobs": [], "scores": None})
        cell["jobs"].append(job)
        result = results.get(job.id)
        if result is not None and job.step in ("evaluate", "udpipe"):
            cell["scores"] = result.outputs
    found = []
    for (treebank, setting, seed), cell in cells.items():
        if cell["scores"] is None:
            continue
        cpu = sum(results[j.id].cpu_seconds for j in cell["jobs"] if j.trains and j.id in results)
        record = {"treebank": treebank, "setting": setting, "seed": seed, "dev": {}, "test": {}}
        for label, output in cell["scores"].items():
            split, source = label.split(".")
            record[split][source] = output.get("conll18", output)
        record["cpu_minutes"] = round(cpu / 60, 2)
        found.append(record)
    return found


def write_results(work_dir: str | Path, found: list[dict], summary: str = "") -> None:
    """``results.json`` and ``results.md`` in the work directory, each written whole or not at all."""
    work_dir = Path(work_dir)
    atomic_write(work_dir / "results.json", lambda handle: handle.write(json.dumps(found, indent=1).encode()))
    text = markdown(found, summary)
    atomic_write(work_dir / "results.md", lambda handle: handle.write(text.encode("utf-8")))


def markdown(found: list[dict], summary: str = "") -> str:
    """A table per evaluation source: each cell's test figures, dev LAS and training CPU-minutes."""
    lines = ["# Farm results", ""]
    if summary:
        lines += [summary, ""]
    for source, title in SOURCE_TITLES.items():
        rows = [r for r in found if source in r["test"] or source in r["dev"]]
        if not rows:
            continue
        lines += [f"## Test {title}", ""]
        lines.append("| treebank | setting | seed | " + " | ".join(MEASURES) + " | dev LAS | CPU min |")
        lines.append("|---" * (len(MEASURES) + 5) + "|")
        for r in rows:
            test, dev = r["test"].get(source, {}), r["dev"].get(source, {})
            figures = " | ".join(_figure(test.get(m)) for m in MEASURES)
            lines.append(
                f"| {r['treebank']} | {r['setting']} | {r['seed']} | {figures} | {_figure(dev.get('LAS'))} "
                f"| {r['cpu_minutes']:.1f} |"
            )
        lines.append("")
    return "\n".join(lines)


def _figure(value) -> str:
    return "—" if value is None else f"{value:.2f}"
