"""``lstmparse oracle``: does a transition system's static oracle rebuild every tree of a treebank?

Kept free of DyNet so that checking a treebank against a system is quick.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lstmparse.io.formats import read_treebank
from lstmparse.io.tree import is_projective, tree_problem
from lstmparse.stacklstm.examples import root_label_of, training_trees
from lstmparse.stacklstm.pseudo_projective import deprojectivize
from lstmparse.stacklstm.systems import make_system
from lstmparse.stacklstm.systems.base import SWAP


@dataclass
class OracleReport:
    sentences: int = 0
    reproduced: int = 0
    non_projective: int = 0
    skipped: int = 0  # trees the system cannot build: not single-rooted, or non-projective without SWAP
    failed: list[str] = field(default_factory=list)  # buildable trees the oracle did not rebuild
    swaps: int = 0
    restored: int = 0  # pseudo-projective: deprojectivized oracle tree equals the original
    pseudo_projective: bool = False
    transitions: list[tuple[str, list[str] | None]] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Every tree the system can build was rebuilt exactly."""
        return not self.failed

    def summary(self) -> str:
        line = (
            f"sentences {self.sentences}, reproduced {self.reproduced}, non-projective {self.non_projective}, "
            f"skipped {self.skipped}"
        )
        if self.swaps:
            line += f", swaps {self.swaps} ({self.swaps / max(self.sentences, 1):.3f} per sentence)"
        if self.pseudo_projective:
            line += f", restored by deprojectivization {self.restored}"
        if self.failed:
            line += f"\nnot reproduced although buildable: {', '.join(self.failed[:20])}"
        return line


def run_oracle(path: str, system_name: str, pseudo_projective: bool = False, fmt: str = "conllu") -> OracleReport:
    sentences = read_treebank(path, fmt)
    trees = training_trees(sentences, pseudo_projective)
    system = make_system(
        system_name, {label for _, tree_labels in trees for label in tree_labels}, root_label_of(sentences)
    )
    report = OracleReport(pseudo_projective=pseudo_projective)
    for index, (sentence, (heads, labels)) in enumerate(zip(sentences, trees, strict=True), start=1):
        report.sentences += 1
        report.non_projective += not is_projective(sentence.gold_heads)
        actions = system.oracle_sequence(heads, labels)
        sent_id = next((c.split("=", 1)[1].strip() for c in sentence.lines if c.startswith("# sent_id")), str(index))
        report.transitions.append((sent_id, None if actions is None else [str(system.actions[a]) for a in actions]))
        buildable = tree_problem(heads) is None and (system.builds_non_projective or is_projective(heads))
        if not buildable:
            report.skipped += 1
        if actions is None:
            if buildable:
                report.failed.append(f"{sentence.path}:{sentence.first_line}")
            continue
        report.reproduced += 1
        report.swaps += sum(system.actions[a].kind == SWAP for a in actions)
        if pseudo_projective:
            report.restored += deprojectivize(heads, labels) == (sentence.gold_heads, sentence.gold_deprels)
    return report
