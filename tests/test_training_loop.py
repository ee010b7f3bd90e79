"""The one training loop every family runs: model selection, stopping, resuming, the time budget."""

from __future__ import annotations

import io

from lstmparse.core.options import RunOptions
from lstmparse.core.training import TrainingHooks, epoch_entry, train_epochs


class ScriptedFamily(TrainingHooks):
    """A family whose epochs score as scripted, recording what the loop asked of it."""

    loss_name = "loss_per_word"

    def __init__(self, scores, seen=None, stop_after=None):
        self.examples = list(range(10))
        self.scores, self.seen, self.stop_after = scores, seen or {}, stop_after
        self.saved, self.trained, self.kept, self.stops = [], [], [], []

    def train_epoch(self, epoch, stop_at):
        self.trained.append(epoch)
        self.stops.append(stop_at)
        return epoch_entry(epoch, self.seen.get(epoch, len(self.examples)), 1.0, loss_per_word=1.0 / (epoch + 1))

    def evaluate(self):
        score = self.scores[len(self.trained) - 1]
        return None if score is None else (score, {"dev_score": score})

    def untested_score(self, entry):
        return -entry["loss_per_word"]

    def save(self, model_dir, record):
        record["saved_in"] = model_dir  # as families do: the record saved says what it is
        if "/epochs/" in model_dir:
            self.kept.append(model_dir)
        else:
            self.saved.append(record["epochs"][-1]["epoch"])

    def dev_report(self, entry):
        return f"dev score {entry['dev_score']}"

    def after_epoch(self, model_dir, record, improved):
        return "enough" if record["epochs"][-1]["epoch"] == self.stop_after else None


def run(family, epochs=5, record=None, best=-float("inf"), max_minutes=None, keep_epochs=False):
    log = io.StringIO()
    options = RunOptions(train="t", model_dir="m", epochs=epochs, max_minutes=max_minutes, keep_epochs=keep_epochs)
    record = train_epochs(family, options, record or {"epochs": []}, best, log)
    return record, log.getvalue()


def test_the_model_is_saved_exactly_when_the_dev_score_improves():
    family = ScriptedFamily([1.0, 3.0, 2.0, 3.0, 4.0])
    record, log = run(family)
    assert family.saved == [1, 2, 5] and record["best_epoch"] == 5
    assert log.count("saved") == 3 and "dev score 2.0" in log and "loss/word 0.5000" in log


def test_keep_epochs_saves_every_epoch_beside_the_best():
    family = ScriptedFamily([1.0, 3.0, 2.0])
    record, _ = run(family, epochs=3, keep_epochs=True)
    assert family.kept == ["m/epochs/1", "m/epochs/2", "m/epochs/3"] and family.saved == [1, 2]
    assert record["saved_in"] == "m"  # an epoch's copy leaves the run's record alone
    unkept = ScriptedFamily([1.0, 3.0, 2.0])
    run(unkept, epochs=3)
    assert unkept.kept == []


def test_without_a_dev_set_the_family_chooses_by_its_own_measure():
    family = ScriptedFamily([None] * 3)
    run(family, epochs=3)
    assert family.saved == [1, 2, 3]  # the loss falls every epoch


def test_a_family_can_stop_training_and_says_why():
    family = ScriptedFamily([1.0] * 5, stop_after=2)
    record, log = run(family)
    assert family.trained == [0, 1] and len(record["epochs"]) == 2 and log.rstrip().endswith("enough")


def test_a_resumed_run_goes_on_after_its_last_epoch_and_must_beat_its_best():
    family = ScriptedFamily([2.0, 5.0])
    previous = {"epochs": [{"epoch": 1}, {"epoch": 2}, {"epoch": 3}]}
    record, _ = run(family, epochs=5, record=previous, best=4.0)
    assert family.trained == [3, 4] and family.saved == [5] and len(record["epochs"]) == 5


def test_an_epoch_cut_short_by_the_time_budget_ends_training():
    family = ScriptedFamily([1.0] * 5, seen={1: 4})
    record, log = run(family, max_minutes=60)
    assert family.trained == [0, 1] and "time budget of 60 minutes reached" in log
    assert record["total_seconds"] >= 0


def test_an_epoch_the_time_budget_left_empty_is_neither_scored_nor_recorded_nor_kept():
    family = ScriptedFamily([1.0, 2.0, 3.0, 4.0, 5.0], seen={2: 0})
    record, log = run(family, max_minutes=60, keep_epochs=True)
    assert family.trained == [0, 1, 2] and "time budget of 60 minutes reached" in log
    assert [entry["epoch"] for entry in record["epochs"]] == [1, 2]
    assert family.saved == [1, 2] and family.kept == ["m/epochs/1", "m/epochs/2"]


def test_a_resumed_run_gets_what_its_epochs_left_of_the_budget_not_a_new_budget():
    """--max-minutes is the whole run's: 40 minutes spent before the interruption leave 20 of 60."""
    import time

    previous = {
        "epochs": [{"epoch": 1, "train_seconds": 1500.0, "dev_seconds": 300.0}, {"epoch": 2, "train_seconds": 600.0}]
    }
    family = ScriptedFamily([1.0, 2.0])
    before = time.time()
    run(family, epochs=4, record=previous, max_minutes=60)
    assert before + 20 * 60 - 1 <= family.stops[0] <= time.time() + 20 * 60
    fresh = ScriptedFamily([1.0, 2.0])
    run(fresh, epochs=2, max_minutes=60)
    assert fresh.stops[1] >= before + 60 * 60 - 1


def test_a_budget_spent_before_training_began_still_leaves_a_model_of_one_whole_epoch():
    family = ScriptedFamily([1.0, 2.0, 3.0], seen={1: 0})
    record, log = run(family, epochs=3, max_minutes=1e-9)
    assert family.stops[0] is None and family.stops[1] is not None  # the budget cuts from the second epoch on
    assert family.saved == [1] and [entry["epoch"] for entry in record["epochs"]] == [1]
    assert "time budget of 1e-09 minutes reached" in log


def test_the_best_kept_epochs_are_those_that_scored_best_in_epoch_order(tmp_path):
    """What --average-best averages: the kept epochs of the best scores (ties: the earlier), not the last ones."""
    import pytest

    from lstmparse.core.training import best_kept_epochs
    from lstmparse.errors import ConfigurationError

    scores = {1: 1.0, 2: 4.0, 3: 3.0, 4: 4.0, 5: 2.0}
    record = {"epochs": [{"epoch": epoch, "score": score} for epoch, score in scores.items()] + [{"epoch": 6}]}
    for epoch in (1, 2, 3, 5, 6):  # epoch 4 was not kept
        (tmp_path / "epochs" / str(epoch)).mkdir(parents=True)
    assert best_kept_epochs(tmp_path, record, 2) == [2, 3]
    assert best_kept_epochs(tmp_path, record, 3) == [2, 3, 5]
    with pytest.raises(ConfigurationError, match="--average-best 5: .* keeps 4 scored epochs"):
        best_kept_epochs(tmp_path, record, 5)


def test_each_scored_epoch_records_the_score_it_was_chosen_by():
    family = ScriptedFamily([1.0, None, 3.0])
    record, _ = run(family, epochs=3)
    assert [entry.get("score") for entry in record["epochs"]] == [1.0, -0.5, 3.0]  # no dev score: minus the loss
