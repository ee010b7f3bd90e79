"""The training farm: a plan of many models on many treebanks, run as a graph of jobs on Dask.

A plan (TOML, :mod:`~lstmparse.app.farm.plan`) names treebanks, settings and seeds;
it becomes jobs with dependencies (a pipeline's tagger, tokenizer and fold taggers
before its parser, every model before its evaluation).  Each job is an ordinary
``lstmparse train`` or ``lstmparse evaluate`` run in a process of its own, with its
own directory and log (:mod:`~lstmparse.app.farm.jobs`), so that what the farm
trains is what the same command trains by hand, and a job that crashes or is killed
takes nothing else with it.  The engine (:mod:`~lstmparse.app.farm.engine`) runs the
graph on a local Dask cluster or an existing one, skips finished jobs on a rerun,
resumes interrupted ones, and writes the results table
(:mod:`~lstmparse.app.farm.results`).
"""
