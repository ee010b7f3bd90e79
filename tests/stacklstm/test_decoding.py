"""Lock-step decoding and beam search: same greedy trees, well-formed k-best lists."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import first_sentences

from lstmparse.core.model_io import TAG_FREE_MODEL
from lstmparse.io.formats import read_sentences, read_treebank
from lstmparse.io.tree import tree_problem
from lstmparse.stacklstm.api import Parser
from lstmparse.stacklstm.systems import make_system


@pytest.fixture(scope="module")
def parser() -> Parser:
    return Parser.load(TAG_FREE_MODEL)


@pytest.fixture(scope="module")
def dev(ewt):
    return read_treebank(str(ewt / "dev.conllu"))[:120]


def test_lockstep_beam_of_one_gives_the_greedy_trees(parser, dev):
    one_at_a_time = [(s.heads, s.deprels) for s in parser.parse(dev, batch_size=1)]
    lockstep = [(s.heads, s.deprels) for s in parser.parse(dev, batch_size=16)]
    assert lockstep == one_at_a_time
    best_of_beam_one = [(k[0].heads, k[0].deprels) for k in parser.parse_kbest(dev, beam=1, kbest=1, batch_size=7)]
    assert best_of_beam_one == one_at_a_time


def test_kbest_lists_are_ranked_distinct_trees_with_input_comments(parser, dev):
    for sentence, candidates in zip(dev[:40], parser.parse_kbest(dev[:40], beam=6, kbest=4), strict=True):
        assert 1 <= len(candidates) <= 4
        trees = [(tuple(c.heads), tuple(c.deprels)) for c in candidates]
        assert len(set(trees)) == len(trees)
        scores = []
        for rank, candidate in enumerate(candidates, start=1):
            comments = [line for line in candidate.lines if line.startswith("#")]
            assert comments[:-2] == [line for line in sentence.lines if line.startswith("#")]
            assert comments[-2] == f"# kbest_rank = {rank}"
            scores.append(float(comments[-1].removeprefix("# parser_score = ")))
            assert tree_problem(candidate.heads) is None
        assert scores == sorted(scores, reverse=True) and scores[0] <= 0


def test_beam_search_does_not_depend_on_the_batch(parser, dev):
    """Sentences are regrouped by length into batches; each one's k-best list must stay its own."""
    sentences = dev[:30]
    alone = list(parser.parse_kbest(sentences, beam=4, kbest=3, batch_size=4))  # one sentence per batch
    together = list(parser.parse_kbest(sentences, beam=4, kbest=3, batch_size=64))
    for one, other in zip(alone, together, strict=True):
        assert [(c.heads, c.deprels) for c in one] == [(c.heads, c.deprels) for c in other]
        assert [_score(c) for c in one] == pytest.approx([_score(c) for c in other], abs=1e-3)


@pytest.mark.slow
def test_kbest_output_is_the_same_in_every_run(ewt, tmp_path):
    """Scores must not depend on where Python put objects in memory (which once ordered the batches)."""
    sample = tmp_path / "in.conllu"
    sample.write_text(first_sentences(ewt / "dev.conllu", 300), encoding="utf-8")
    command = [sys.executable, "-m", "lstmparse", "parse", "--input", sample, "--beam", "8", "--kbest", "4", "--quiet"]
    first, second = (subprocess.run(command, capture_output=True, text=True, check=True).stdout for _ in range(2))
    assert first.count("# parser_score") >= 300 and first == second


def _score(candidate) -> float:
    return float(next(line for line in candidate.lines if line.startswith("# parser_score = ")).split("= ")[1])


def test_kbest_output_reads_back_with_its_trees(parser, dev, tmp_path):
    path = tmp_path / "kbest.conllu"
    blocks = [c for candidates in parser.parse_kbest(dev[:10], beam=4, kbest=4) for c in candidates]
    path.write_text("".join(c.to_conllu() for c in blocks), encoding="utf-8")
    again = list(read_sentences(str(path)))
    assert [(s.heads, s.deprels) for s in again] == [(s.heads, s.deprels) for s in blocks]


def test_reranking_a_kbest_file_replaces_rank_comments(parser, dev):
    first = next(parser.parse_kbest(dev[:1], beam=2, kbest=1))[0]
    second = next(parser.parse_kbest([first], beam=2, kbest=1))[0]
    assert sum(line.startswith("# kbest_rank") for line in second.lines) == 1
    assert second.to_conllu() == first.to_conllu()


def test_configuration_copy_is_independent():
    system = make_system("arc-standard", ["nsubj"], "root")
    config = system.initial(3)
    system.apply(config, system.shift)
    clone = config.copy()
    system.apply(clone, system.shift)
    assert config.stack == [0, 1] and clone.stack == [0, 1, 2]
    assert config.buffer == [3, 2] and clone.buffer == [3]


def test_cli_kbest_needs_a_wide_enough_beam(ewt, tmp_path):
    sample = tmp_path / "in.conllu"
    sample.write_text(first_sentences(ewt / "dev.conllu", 2), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "lstmparse", "parse", "--input", sample, "--beam", "2", "--kbest", "3"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and "--beam" in result.stderr and "Traceback" not in result.stderr
