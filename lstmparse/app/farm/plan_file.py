"""A farm plan's TOML file read and checked whole, before the first job starts (the format: :mod:`.plan`).

A mistake is one line naming the file and the key: an unknown key, a treebank folder
without a training file, a setting of an unknown arch, two settings of one name, a
setting's treebank the plan does not have.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path

from lstmparse.app.farm.plan import ARCHS, DEFAULT_SOURCES, NAME, SOURCES, SPLITS, Plan, Setting, Treebank
from lstmparse.app.recipes import read_toml
from lstmparse.errors import ConfigurationError


def read_plan(path: str | Path) -> Plan:
    """The plan in a TOML file, checked; a mistake is one line naming the file and the key."""
    path = Path(path)
    return plan_from_dict(read_toml(path), path)


def only_treebanks(plan: Plan, names: Iterable[str]) -> Plan:
    """The plan cut to some of its treebanks (``farm --treebanks``: the rest of a long plan on a new machine, or
    one language again); a name the plan does not have is an error that lists the ones it has."""
    chosen = _known_names(names, list(plan.treebanks), "--treebanks", "treebanks", plan.path)
    return Plan(plan.path, {name: plan.treebanks[name] for name in chosen}, plan.settings, plan.seeds)


def only_settings(plan: Plan, names: Iterable[str]) -> Plan:
    """The plan cut to some of its settings (``farm --settings``: one kind of model added to a plan's run, such as
    the fast pipelines, without the rest trained again); a name the plan does not have is an error that lists
    the ones it has."""
    chosen = _known_names(names, [setting.name for setting in plan.settings], "--settings", "settings", plan.path)
    return Plan(plan.path, plan.treebanks, [s for s in plan.settings if s.name in chosen], plan.seeds)


def _known_names(names: Iterable[str], known: list[str], option: str, kind: str, path: Path) -> list[str]:
    """``names`` without repeats, each one of ``known``: else one line naming ``option`` and listing ``known``."""
    chosen = list(dict.fromkeys(names))
    unknown = [name for name in chosen if name not in known]
    if unknown or not chosen:
        raise ConfigurationError(
            f"{option}: {', '.join(unknown) or 'no name'} not in {path} (its {kind}: {', '.join(known)})"
        )
    return chosen


def plan_from_dict(data: dict, path: Path) -> Plan:
    """A checked :class:`Plan` from the TOML's table (``path``: where relative folders start)."""
    where = str(path)
    unknown = set(data) - {"budget_minutes", "seeds", "treebanks", "settings"}
    if unknown:
        raise ConfigurationError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    default_budget = _minutes(data.get("budget_minutes"), f"{where}: budget_minutes")
    seeds = data.get("seeds", [1])
    if not isinstance(seeds, list) or not seeds or not all(isinstance(s, int) for s in seeds):
        raise ConfigurationError(f"{where}: seeds must be a list of integers, such as [1, 2]")
    treebanks = {name: _treebank(name, table, path) for name, table in _table(data, "treebanks", where).items()}
    if not treebanks:
        raise ConfigurationError(f"{where}: no [treebanks.NAME] table")
    settings = [_setting(table, default_budget, where, path) for table in data.get("settings", [])]
    if not settings:
        raise ConfigurationError(f"{where}: no [[settings]] table")
    names = [s.name for s in settings]
    if len(set(names)) != len(names):
        raise ConfigurationError(f"{where}: two settings share a name")
    for setting in settings:
        strangers = [name for name in setting.treebanks if name not in treebanks]
        if strangers:
            raise ConfigurationError(
                f"{where}: setting {setting.name}: treebanks: {strangers[0]} is not a treebank of the plan"
            )
    return Plan(path, treebanks, settings, seeds)


def _table(data: dict, key: str, where: str) -> dict:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ConfigurationError(f"{where}: {key} must be a table")
    return value


def _minutes(value, where: str) -> float | None:
    if value is None:
        return None
    if not isinstance(value, int | float) or value <= 0:
        raise ConfigurationError(f"{where}: must be a positive number of minutes")
    return float(value)


def _treebank(name: str, table: dict, plan_path: Path) -> Treebank:
    where = f"{plan_path}: treebanks.{name}"
    if not NAME.fullmatch(name):
        raise ConfigurationError(f"{where}: a name of letters, digits and _.+- only")
    unknown = set(table) - {"path"} - {f"{split}_sentences" for split in SPLITS}
    if unknown or "path" not in table:
        raise ConfigurationError(f"{where}: needs path (a UD treebank folder); unknown key(s) {sorted(unknown)}")
    folder = (plan_path.parent / table["path"]).resolve()
    treebank = Treebank(name, folder, {split: table.get(f"{split}_sentences") for split in SPLITS})
    if treebank.file("train") is None:
        raise ConfigurationError(f"{where}: {folder} has no train.conllu (nor *-ud-train.conllu)")
    return treebank


def _setting(table: dict, default_budget: float | None, where: str, plan_path: Path) -> Setting:
    name = table.get("name")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ConfigurationError(f"{where}: every [[settings]] needs a name of letters, digits and _.+- only")
    where = f"{where}: setting {name}"
    unknown = set(table) - {"name", "arch", "options", "budget_minutes", "evaluate", "recipe", "treebanks"}
    if unknown:
        raise ConfigurationError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    chosen = table.get("treebanks", [])
    if not isinstance(chosen, list) or not all(isinstance(name, str) for name in chosen):
        raise ConfigurationError(f"{where}: treebanks must be a list of the plan's treebank names")
    setting = _setting_of(table, name, default_budget, where, plan_path)
    return dataclasses.replace(setting, treebanks=tuple(chosen))


def _setting_of(table: dict, name: str, default_budget: float | None, where: str, plan_path: Path) -> Setting:
    if "recipe" in table:
        if "arch" in table:
            raise ConfigurationError(f"{where}: a recipe names its arch; give recipe or arch")
        recipe = str(plan_path.parent / str(table["recipe"]))
        sources = tuple(table.get("evaluate", ()))
        own = "budget_minutes" in table  # the setting's budget over its recipe's max_minutes (a budget table)
        budget = _minutes(table["budget_minutes"], f"{where}: budget_minutes") if own else default_budget
        return Setting(name, "recipe", dict(table.get("options", {})), budget, sources, recipe, own_budget=own)
    arch = table.get("arch", "stacklstm")
    if arch not in ARCHS:
        raise ConfigurationError(f"{where}: arch {arch!r} is not one of {', '.join(ARCHS)}")
    options = table.get("options", {})
    reserved = {"train", "dev", "model_dir", "seed", "max_minutes", "resume", "overwrite", "arch"} & set(options)
    if reserved:
        raise ConfigurationError(f"{where}: the farm sets {', '.join(sorted(reserved))} itself")
    sources = tuple(table.get("evaluate", DEFAULT_SOURCES[arch]))
    if not set(sources) <= set(SOURCES):
        raise ConfigurationError(f"{where}: evaluate takes {' and '.join(SOURCES)}")
    budget = _minutes(table.get("budget_minutes", default_budget), f"{where}: budget_minutes")
    return Setting(name, arch, dict(options), budget, sources)
