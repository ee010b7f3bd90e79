"""An ensemble made by its recipe: members made by another recipe with their own seeds, then the manifest and card.

An ensemble's recipe (``arch = "ensemble"``)::

    [ensemble]
    recipe = "../en_gum_seq2seq/recipe.toml"   # what makes each member (relative to this file)
    seeds = [2, 3]                              # members trained into MODEL_DIR/seed2, MODEL_DIR/seed3
    models = ["../en_gum_seq2seq"]              # members that recipe made before (relative to MODEL_DIR)

Each member is trained as ``lstmparse train --recipe RECIPE --seed N`` would train it, in a
process of its own (DyNet takes its seed once a process), and a member already made is
not made again, so an interrupted build continues where it stopped.  A model named under
``models`` must be one that recipe made: an ensemble is of members of one recipe.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from lstmparse.app.recipes import RESUMABLE, Recipe, read_recipe
from lstmparse.core.model_io import CARD, CONFIG
from lstmparse.errors import ConfigurationError


def build_recipe_ensemble(recipe: Recipe, data_arguments: list[str], model_dir: str | Path) -> dict:
    """Make every member of ``recipe``'s ensemble (``data_arguments``: the training data as ``train``'s options,
    ``--treebank DIR`` or ``--train F --dev F``), write the ensemble into ``model_dir``; its card."""
    from lstmparse.core.ensembles import write_ensemble

    assert recipe.ensemble is not None
    started = time.time()
    member_recipe = read_recipe(recipe.ensemble.recipe)
    model_dir = Path(model_dir)
    members = [made_member(Path(os.path.normpath(model_dir / path)), member_recipe) for path in recipe.ensemble.models]
    for seed in recipe.ensemble.seeds:
        directory = model_dir / f"seed{seed}"
        if not (directory / CARD).is_file():
            train_member(member_recipe, seed, directory, data_arguments)
        members.append(directory)
    write_ensemble(members, model_dir)
    member_card = json.loads((members[0] / CARD).read_text(encoding="utf-8"))
    card = {
        "name": recipe.name,
        "description": recipe.description,
        "language": member_card.get("language"),
        "data": member_card.get("data"),
        "task": f"ensemble of {len(members)}: {member_card.get('task', member_recipe.arch)}",
        "licence": member_card.get("licence"),
        "recipe": {"name": recipe.name, "file": recipe.path.name, "members": member_recipe.name},
        "seeds": [member_seed(member) for member in members],
        "training": {"command": "lstmparse " + " ".join(sys.argv[1:]), "minutes": (time.time() - started) / 60},
    }
    return {key: value for key, value in card.items() if value not in (None, "")}


def made_member(directory: Path, member_recipe: Recipe) -> Path:
    """A member made before by the members' recipe, checked by its card; otherwise one line saying how to make it."""
    try:
        made_by = json.loads((directory / CARD).read_text(encoding="utf-8")).get("recipe", {}).get("name")
    except (OSError, ValueError, AttributeError):
        made_by = None
    if made_by != member_recipe.name:
        raise ConfigurationError(
            f"{directory}: not a model made by the recipe {member_recipe.path} (make it first: lstmparse train "
            f"--recipe {member_recipe.path} --model-dir {directory} with the same data)"
        )
    return directory


def train_member(member_recipe: Recipe, seed: int, directory: Path, data_arguments: list[str]) -> None:
    """One member, in a process of its own; one interrupted before continues (``--resume``)."""
    command = [sys.executable, "-m", "lstmparse", "train", "--recipe", str(member_recipe.path), "--seed", str(seed)]
    command += ["--model-dir", str(directory), *data_arguments]
    if (directory / CONFIG).is_file():  # begun before
        command.append("--resume" if member_recipe.arch in RESUMABLE else "--overwrite")
    print(f"ensemble member: seed {seed} into {directory}", file=sys.stderr, flush=True)
    finished = subprocess.run(command, check=False)
    if finished.returncode != 0:
        raise SystemExit(finished.returncode)  # the member's own message said why


def member_seed(directory: Path) -> int | None:
    """The seed a member's card records that it was made with."""
    card = json.loads((directory / CARD).read_text(encoding="utf-8"))
    seed = card.get("seed", card.get("recipe", {}).get("options", {}).get("seed"))
    return int(seed) if seed is not None else None
