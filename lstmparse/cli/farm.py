"""``lstmparse farm``: a plan of many trainings and evaluations, run as a graph of jobs on Dask."""

from __future__ import annotations

import sys

import click

from lstmparse.cli.common import EXISTING_FILE, clean_errors, comma_separated


@click.command()
@click.argument("plan", type=EXISTING_FILE)
@click.option(
    "--work-dir",
    required=True,
    type=click.Path(file_okay=False),
    help="every job's directory and log, the models, and the plan's results.json and results.md",
)
@click.option("--scheduler", help="address of a Dask scheduler (tcp://HOST:8786) [default: a local cluster]")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    help="local cluster: single-threaded worker processes [default: one per core this process may use]",
)
@click.option(
    "--udpipe-python",
    type=click.Path(dir_okay=False),
    help="the Python interpreter that has ufal.udpipe, for the plan's udpipe settings [default: this one]",
)
@click.option(
    "--treebanks",
    help="only these of the plan's treebanks, comma-separated (results.json then holds theirs) [default: all]",
)
@click.option(
    "--settings",
    help="only these of the plan's settings, comma-separated (results.json then holds theirs) [default: all]",
)
@click.option(
    "--progress-seconds",
    type=click.FloatRange(min=0.1),
    default=10.0,
    show_default=True,
    help="how often the progress line is printed on stderr",
)
@clean_errors
def farm(plan, work_dir, scheduler, workers, udpipe_python, treebanks, settings, progress_seconds) -> None:
    """Run a PLAN (TOML: treebanks, settings, seeds; docs/corpora-and-farm.md) as jobs on Dask, into --work-dir.

    Each job is an `lstmparse train` or `lstmparse evaluate` run with its own
    directory and log; jobs run once the jobs they need have finished. Running the
    same command again skips finished jobs and resumes interrupted ones. A failed
    job is reported with its log's last line, the jobs that need it are skipped,
    the others go on; the exit code is then 2.
    """
    from lstmparse.app.farm.engine import run_farm
    from lstmparse.app.farm.plan_file import only_settings, only_treebanks, read_plan

    chosen = read_plan(plan)
    if treebanks is not None:
        chosen = only_treebanks(chosen, comma_separated(treebanks))
    if settings is not None:
        chosen = only_settings(chosen, comma_separated(settings))
    try:
        outcome = run_farm(chosen, work_dir, scheduler, workers, {"udpipe_python": udpipe_python}, progress_seconds)
    except KeyboardInterrupt:
        click.echo(
            "lstmparse: farm interrupted; run the same command again to continue (finished jobs are kept, "
            "interrupted trainings resume)",
            err=True,
        )
        sys.exit(130)
    if outcome.failed:
        sys.exit(2)
