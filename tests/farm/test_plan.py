"""The farm's plan and graph, without running anything: jobs, dependencies, checks, results, restart flags."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DATA, ROOT, assert_one_error_line, run_cli

from lstmparse.app.farm.jobs import JobResult, _with_restart_flag, fingerprint
from lstmparse.app.farm.plan import (
    Job,
    TreebankFiles,
    dependents,
    option_arguments,
    plan_jobs,
)
from lstmparse.app.farm.plan_file import only_settings, only_treebanks, plan_from_dict, read_plan
from lstmparse.app.farm.results import markdown, records
from lstmparse.errors import ConfigurationError
from lstmparse.pipeline.folds import fold_tagger_directory, fold_training_file

SMOKE = ROOT / "bench" / "plans" / "smoke.toml"
FILES = TreebankFiles("/d/train.conllu", "/d/dev.conllu", "/d/test.conllu")


def smoke_jobs(work_dir: Path = Path("/w")) -> dict[str, Job]:
    plan = read_plan(SMOKE)
    jobs = plan_jobs(plan, {name: FILES for name in plan.treebanks}, work_dir)
    return {job.id: job for job in jobs}


def test_the_committed_plans_read_and_name_existing_treebanks():
    for name in ("smoke", "table3", "languages", "budgets", "encoder_pipelines", "two_cores"):
        plan = read_plan(ROOT / "bench" / "plans" / f"{name}.toml")
        assert plan.settings and plan.seeds
        assert all(treebank.file("train") is not None for treebank in plan.treebanks.values())
    assert len(read_plan(ROOT / "bench" / "plans" / "table3.toml").treebanks) >= 6


def test_a_pipeline_is_its_parts_then_the_pipeline_run_then_its_evaluation():
    jobs = smoke_jobs()
    prefix = "ta_ttb/pipeline/s1"
    steps = sorted(job.step for job in jobs.values() if job.id.startswith(prefix))
    assert steps == ["evaluate", "fold-1", "fold-2", "folds", "pipeline", "tagger", "tokenizer"]
    assert set(jobs[f"{prefix}/pipeline"].needs) == {
        f"{prefix}/{s}" for s in ("tagger", "tokenizer", "fold-1", "fold-2")
    }
    assert jobs[f"{prefix}/fold-2"].needs == (f"{prefix}/folds",)
    assert jobs[f"{prefix}/evaluate"].needs == (f"{prefix}/pipeline",)
    assert jobs[f"{prefix}/tagger"].needs == () and jobs[f"{prefix}/tokenizer"].needs == ()
    assert "--resume" in jobs[f"{prefix}/pipeline"].commands[0][1]
    assert len(jobs) == 18 and jobs["wo_wtb/words/s1/evaluate"].needs == ("wo_wtb/words/s1/train",)


def test_fold_jobs_train_where_the_pipeline_trainer_looks_for_its_fold_taggers():
    """The pipeline run reuses a fold tagger only if its directory and training file are the trainer's own."""
    jobs = smoke_jobs()
    pipeline = jobs["ta_ttb/pipeline/s1/pipeline"]
    model_dir = pipeline.model_dir
    command = jobs["ta_ttb/pipeline/s1/fold-2"].commands[0][1]
    assert command[command.index("--train") + 1] == str(fold_training_file(model_dir, 2))
    assert command[command.index("--model-dir") + 1] == str(fold_tagger_directory(model_dir, 2))
    assert command[command.index("--dev") + 1] == FILES.dev
    assert jobs["ta_ttb/pipeline/s1/folds"].call[1] == (model_dir, FILES.train, 2)


def test_a_pipeline_with_several_taggers_trains_each_member_as_a_job_of_its_own_seed():
    """The members train in parallel where ``train --arch pipeline --taggers 3 --resume`` reuses them."""
    plan = plan_from_dict(
        {
            "budget_minutes": 10,
            "seeds": [5],
            "treebanks": {"ta_ttb": {"path": str(DATA / "ud" / "ta_ttb")}},
            "settings": [{"name": "p", "arch": "pipeline", "options": {"taggers": 3, "jackknife": 2}}],
        },
        ROOT,
    )
    jobs = {job.id: job for job in plan_jobs(plan, {"ta_ttb": FILES}, Path("/w"))}
    members = {job.step: job.commands[0][1] for job in jobs.values() if job.step.startswith("tagger")}
    assert sorted(members) == ["tagger", "tagger-2", "tagger-3"]
    seeds = {step: command[command.index("--seed") + 1] for step, command in members.items()}
    assert seeds == {"tagger": "5", "tagger-2": "6", "tagger-3": "7"}
    model_dir = jobs["ta_ttb/p/s5/pipeline"].model_dir
    assert members["tagger-3"][members["tagger-3"].index("--model-dir") + 1] == f"{model_dir}/tagger_3"
    assert {"ta_ttb/p/s5/tagger-2", "ta_ttb/p/s5/tagger-3"} <= set(jobs["ta_ttb/p/s5/pipeline"].needs)
    pipeline_command = jobs["ta_ttb/p/s5/pipeline"].commands[0][1]
    assert pipeline_command[pipeline_command.index("--taggers") + 1] == "3"
    minutes = {float(command[command.index("--max-minutes") + 1]) for command in members.values()}
    assert len(minutes) == 1 and minutes.pop() == pytest.approx(10 * 0.15 / 1.3, rel=1e-4)  # shares scaled to 10


def test_a_failure_reaches_every_job_that_needs_it_and_no_other():
    jobs = list(smoke_jobs().values())
    assert dependents(jobs, "ta_ttb/pipeline/s1/folds") == {
        "ta_ttb/pipeline/s1/fold-1",
        "ta_ttb/pipeline/s1/fold-2",
        "ta_ttb/pipeline/s1/pipeline",
        "ta_ttb/pipeline/s1/evaluate",
    }
    assert dependents(jobs, "ta_ttb/words/s1/train") == {"ta_ttb/words/s1/evaluate"}
    assert dependents(jobs, "ta_ttb/words/s1/evaluate") == set()


def test_options_become_trains_command_line():
    assert option_arguments({"features": "words,pos", "pseudo_projective": True, "keep_epochs": False}) == [
        "--features",
        "words,pos",
        "--pseudo-projective",
    ]


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"colour": 1}, "unknown key(s) colour"),
        ({"settings": [{"name": "x", "arch": "bert"}]}, "arch 'bert'"),
        ({"settings": [{"name": "x", "options": {"model_dir": "y"}}]}, "the farm sets model_dir"),
        ({"settings": [{"name": "x"}, {"name": "x"}]}, "two settings share a name"),
        ({"treebanks": {"t": {"path": "nowhere"}}}, "has no train.conllu"),
        ({"seeds": "1"}, "seeds must be a list"),
        ({"budget_minutes": -1}, "positive number of minutes"),
        ({"settings": [{"name": "x", "evaluate": ["gold"]}]}, "evaluate takes raw and tokens"),
        ({"settings": [{"name": "x", "treebanks": ["u"]}]}, "setting x: treebanks: u is not a treebank of the plan"),
        ({"settings": [{"name": "x", "treebanks": "t"}]}, "treebanks must be a list"),
    ],
)
def test_a_bad_plan_is_refused_before_anything_runs_naming_the_file(change, fragment, tmp_path):
    plan = {"treebanks": {"t": {"path": str(DATA / "ud" / "ta_ttb")}}, "settings": [{"name": "words"}], **change}
    with pytest.raises(ConfigurationError) as raised:
        plan_from_dict(plan, tmp_path / "plan.toml")
    assert fragment in str(raised.value) and "plan.toml" in str(raised.value)


def test_a_plan_that_is_not_toml_is_one_line(tmp_path):
    path = tmp_path / "plan.toml"
    path.write_text("[treebanks\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="plan.toml: not TOML"):
        read_plan(path)


def test_ud_release_file_names_are_found(tmp_path):
    (tmp_path / "xx_test-ud-train.conllu").write_text("", encoding="utf-8")
    plan = plan_from_dict({"treebanks": {"t": {"path": str(tmp_path)}}, "settings": [{"name": "w"}]}, tmp_path / "p")
    assert plan.treebanks["t"].file("train") == tmp_path / "xx_test-ud-train.conllu"
    assert plan.treebanks["t"].file("dev") is None


def test_a_changed_command_changes_the_fingerprint_so_the_job_is_redone():
    job = smoke_jobs()["ta_ttb/words/s1/train"]
    same = smoke_jobs()["ta_ttb/words/s1/train"]
    other = Job(**{**job.__dict__, "commands": (("train", (*job.commands[0][1], "--dropout", "0.3")),)})
    assert fingerprint(job) == fingerprint(same) != fingerprint(other)


def test_the_jobs_that_need_a_job_made_again_are_made_again_and_no_others(tmp_path):
    """A recipe's tagger changed: its pipeline step and the evaluation (whose own commands did not change) are
    stale; the other parts and the other settings' jobs stay finished."""
    import json

    from lstmparse.app.farm.engine import stale_jobs
    from lstmparse.app.farm.jobs import RESULT, finished, forget, job_directory

    jobs = [job for job in smoke_jobs().values() if job.treebank == "ta_ttb"]
    prefix = "ta_ttb/pipeline/s1"
    done = {job.id for job in jobs} - {f"{prefix}/tagger"}
    stale = {job.id for job in stale_jobs(jobs, done)}
    assert stale == {f"{prefix}/pipeline", f"{prefix}/evaluate"}
    assert stale_jobs(jobs, {job.id for job in jobs}) == []
    evaluation = next(job for job in jobs if job.id == f"{prefix}/evaluate")
    job_directory(tmp_path, evaluation).mkdir(parents=True)
    result = JobResult(evaluation.id, 1.0, 1.0, fingerprint(evaluation))
    (job_directory(tmp_path, evaluation) / RESULT).write_text(json.dumps(result.__dict__), encoding="utf-8")
    assert finished(tmp_path, evaluation) is not None
    forget(tmp_path, evaluation)
    assert finished(tmp_path, evaluation) is None


def test_an_interrupted_training_resumes_or_restarts_by_what_its_family_can(tmp_path):
    command = ["lstmparse", "train", "--model-dir", str(tmp_path / "m")]
    resumable = Job("a/b/s1/train", "a", "b", 1, "train", model_dir=str(tmp_path / "m"), resumable=True)
    restart = Job("a/b/s1/train", "a", "b", 1, "train", model_dir=str(tmp_path / "m"), resumable=False)
    assert _with_restart_flag(resumable, command) == command  # nothing there yet: a plain first run
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}", encoding="utf-8")
    assert _with_restart_flag(resumable, command)[-1] == "--resume"
    assert _with_restart_flag(restart, command)[-1] == "--overwrite"
    evaluate = ["lstmparse", "evaluate", "gold.conllu", "--model", str(tmp_path / "m")]
    assert _with_restart_flag(resumable, evaluate) == evaluate


def test_records_group_a_cells_jobs_and_count_training_cpu_only():
    jobs = [job for job in smoke_jobs().values() if job.treebank == "ta_ttb" and job.setting == "pipeline"]
    results = {job.id: JobResult(job.id, 60.0, 61.0, fingerprint(job)) for job in jobs}
    evaluation = f"{jobs[0].treebank}/pipeline/s1/evaluate"
    results[evaluation].outputs = {"test.raw": {"conll18": {"LAS": 50.0}}, "dev.tokens": {"conll18": {"LAS": 60.0}}}
    (record,) = records(jobs, results)
    assert record == {
        "treebank": "ta_ttb",
        "setting": "pipeline",
        "seed": 1,
        "dev": {"tokens": {"LAS": 60.0}},
        "test": {"raw": {"LAS": 50.0}},
        "cpu_minutes": 6.0,  # six training jobs of a minute; the evaluation not counted
    }
    assert "| ta_ttb | pipeline | 1 |" in markdown([record])
    del results[evaluation]
    assert records(jobs, results) == []  # no evaluation yet: no record


def test_the_longest_chains_start_first():
    from lstmparse.app.farm.engine import critical_paths

    jobs = list(smoke_jobs().values())
    paths = critical_paths(jobs)
    prefix = "ta_ttb/pipeline/s1"
    # the smoke plan's budget is 0.25 minutes: the parser 55%, each of two fold taggers 10%; an evaluation counts 1
    assert paths[f"{prefix}/evaluate"] == 1.0
    assert paths[f"{prefix}/pipeline"] == pytest.approx(0.25 * 0.55 + 1.0)
    assert paths[f"{prefix}/folds"] == pytest.approx(1.0 + 0.25 * 0.10 + paths[f"{prefix}/pipeline"])
    assert paths[f"{prefix}/folds"] > paths[f"{prefix}/tagger"] > paths[f"{prefix}/tokenizer"]


def test_evaluations_first_then_treebank_by_treebank_longest_chains_first():
    from lstmparse.app.farm.engine import _priority, critical_paths

    jobs = list(smoke_jobs().values())
    paths = critical_paths(jobs)
    order = {"ta_ttb": 0, "wo_wtb": 1}
    ranked = [job.id for job in sorted(jobs, key=lambda job: _priority(job, paths, order))]
    assert all(job_id.endswith("/evaluate") for job_id in ranked[:4])
    training = ranked[4:]
    assert all(job_id.startswith("ta_ttb") for job_id in training[:7]) and training[0] == "ta_ttb/pipeline/s1/folds"


def test_the_progress_line_reads_a_running_jobs_epoch_and_dev_figures_from_its_log():
    from lstmparse.app.farm.engine import EPOCH_LINE

    line = "epoch 12: loss/action 0.6015  lr 0.0259  3 s (436 sent/s)  dev UAS 60.58 LAS 49.64 (5 s)  saved"
    match = EPOCH_LINE.match(line)
    assert match and match.group(1) == "12" and match.group(2).strip() == "UAS 60.58 LAS 49.64"
    tagger = "epoch 3: loss/word 12.9723  1 s (59 sent/s)  dev UPOS 31.79  XPOS 18.79 (0 s)  saved"
    assert EPOCH_LINE.match(tagger).group(2).strip() == "UPOS 31.79  XPOS 18.79"
    assert EPOCH_LINE.match("epoch 3") is None  # the line a training prints before the epoch ends


def test_the_progress_line_counts_a_job_handed_to_a_worker_as_running_before_it_starts(tmp_path):
    """A job handed out a moment ago has no started marker yet: it is running, not waiting (the line showed
    one job running on two busy workers)."""
    import io

    from lstmparse.app.farm.engine import FarmOutcome, _Progress
    from lstmparse.app.farm.jobs import STARTED, job_directory

    jobs = list(smoke_jobs(tmp_path).values())
    started, handed_out = jobs[0], jobs[1]
    marker = job_directory(tmp_path, started) / STARTED
    marker.parent.mkdir(parents=True)
    marker.write_text("{}", encoding="utf-8")
    progress = _Progress(jobs, {"a": started, "b": handed_out}, FarmOutcome(), tmp_path, 2, io.StringIO())
    line = progress.line()
    assert f"0 done, 2 running, 0 failed, {len(jobs) - 2} waiting" in line
    assert started.id in line and handed_out.id not in line  # epochs only of the jobs that started


def test_a_plan_cut_to_some_treebanks_runs_only_their_jobs_and_an_unknown_name_is_one_line(tmp_path):
    plan = read_plan(ROOT / "bench" / "plans" / "languages.toml")
    rest = only_treebanks(plan, ["el_gdt", "fr_sequoia", "el_gdt"])
    assert list(rest.treebanks) == ["el_gdt", "fr_sequoia"] and rest.settings == plan.settings
    files = {name: TreebankFiles(str(t.file("train")), None, None) for name, t in rest.treebanks.items()}
    jobs = plan_jobs(rest, files, tmp_path)  # the recipe's joint parser reads the training file for its system
    assert {job.treebank for job in jobs} == {"el_gdt", "fr_sequoia"}
    with pytest.raises(ConfigurationError, match="xx_nope not in .*its treebanks: .*el_gdt"):
        only_treebanks(plan, ["el_gdt", "xx_nope"])
    result = run_cli("farm", SMOKE, "--work-dir", tmp_path / "w", "--treebanks", "ta_ttb,xx_nope")
    assert_one_error_line(result, "--treebanks: xx_nope not in", "ta_ttb, wo_wtb")
    assert not (tmp_path / "w").exists()  # refused before anything was written


def test_a_plan_cut_to_some_settings_runs_only_their_jobs_and_an_unknown_name_is_one_line(tmp_path):
    plan = read_plan(ROOT / "models" / "remake.toml")
    fast = only_settings(plan, ["pipeline_fast"])
    assert [s.name for s in fast.settings] == ["pipeline_fast"] and fast.treebanks == plan.treebanks
    files = {name: TreebankFiles(str(t.file("train")), None, None) for name, t in fast.treebanks.items()}
    jobs = plan_jobs(fast, files, tmp_path)
    assert {job.setting for job in jobs} == {"pipeline_fast"}
    assert {job.treebank for job in jobs} == set(fast.settings[0].treebanks)  # the setting's own cells only
    with pytest.raises(ConfigurationError, match="xx_nope not in .*its settings: words, pipeline"):
        only_settings(read_plan(SMOKE), ["xx_nope"])
    result = run_cli("farm", SMOKE, "--work-dir", tmp_path / "w", "--settings", "pipeline,xx_nope")
    assert_one_error_line(result, "--settings: xx_nope not in", "words, pipeline")
    assert not (tmp_path / "w").exists()  # refused before anything was written


def test_a_setting_that_names_treebanks_has_cells_only_for_them(tmp_path):
    ud = DATA / "ud"
    plan = plan_from_dict(
        {
            "treebanks": {"ta": {"path": str(ud / "ta_ttb")}, "wo": {"path": str(ud / "wo_wtb")}},
            "settings": [{"name": "everywhere"}, {"name": "wolof", "treebanks": ["wo"]}],
        },
        tmp_path / "plan.toml",
    )
    jobs = plan_jobs(plan, {name: FILES for name in plan.treebanks}, tmp_path)
    cells = {(job.treebank, job.setting) for job in jobs}
    assert cells == {("ta", "everywhere"), ("wo", "everywhere"), ("wo", "wolof")}


def test_a_pipeline_whose_parser_reads_no_tags_has_no_fold_jobs():
    plan = plan_from_dict(
        {
            "treebanks": {"ta_ttb": {"path": str(DATA / "ud" / "ta_ttb")}},
            "settings": [{"name": "p", "arch": "pipeline", "options": {"features": "words,chars", "taggers": 2}}],
        },
        ROOT,
    )
    jobs = {job.step: job for job in plan_jobs(plan, {"ta_ttb": FILES}, Path("/w"))}
    assert sorted(jobs) == ["evaluate", "parser", "pipeline", "tagger", "tagger-2", "tokenizer"]
    # the parser needs no tagger: it trains beside the other parts, with its own options only
    assert jobs["parser"].needs == () and jobs["parser"].id in jobs["pipeline"].needs
    parser_command = jobs["parser"].commands[0][1]
    assert "--taggers" not in parser_command and parser_command[parser_command.index("--features") + 1] == "words,chars"
    assert parser_command[parser_command.index("--model-dir") + 1].endswith("/ta_ttb/p/s1/parser")


def test_an_option_set_to_false_is_trains_own_off_switch():
    """A flag with an off switch (``--factored-feats/--whole-feats``) is that switch when false; the table the farm
    reads it from is the command line's."""
    from lstmparse.app.farm.plan import NEGATIVE_FLAGS, option_arguments
    from lstmparse.cli.train import train

    switches = {param.name: param.secondary_opts for param in train.params if getattr(param, "secondary_opts", None)}
    assert {name: opts[0] for name, opts in switches.items()} == NEGATIVE_FLAGS
    assert option_arguments({"factored_feats": False, "joint_member": False, "hidden": 40}) == [
        "--whole-feats",
        "--hidden",
        "40",
    ]
