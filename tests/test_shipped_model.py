"""The shipped English model and the README's examples, as a new user runs them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

import lstmparse
from lstmparse.core.model_io import DEFAULT_MODEL
from lstmparse.io.formats import read_sentences
from lstmparse.tagger.lemmas import LemmaLookup, training_rules


@pytest.fixture(scope="module")
def parser():
    return lstmparse.load()


def test_default_model_parses_the_sample_sensibly(parser):
    parsed = list(parser.parse_file(str(ROOT / "data" / "sample.conllu")))
    first = parsed[0]
    words = first.forms
    assert words[:3] == ["The", "committee", "approved"]
    assert first.heads[2] == 0 and first.deprels[2] == "root"  # 'approved' heads the sentence
    assert first.heads[1] == 3 and first.deprels[1] == "nsubj"  # 'committee' is its subject
    assert first.heads[5] == 3 and first.deprels[5] == "obj"  # 'budget' its object
    assert all(s.heads.count(0) == 1 for s in parsed)


def test_parse_accepts_lists_of_words(parser):
    (sentence,) = parser.parse([["Dogs", "bark", "."]])
    assert sentence.forms == ["Dogs", "bark", "."] and sentence.heads.count(0) == 1


DOCUMENTED = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]  # every page whose examples must run


def readme_blocks(language: str) -> list[str]:
    """The ``language`` code blocks of the README and of the documentation's pages, in order."""
    text = "\n".join(path.read_text(encoding="utf-8") for path in DOCUMENTED)
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def test_every_readme_python_block_runs():
    """Each ``python`` block of the README and the documentation runs as it stands, from the repository root."""
    blocks = readme_blocks("python")
    assert len(blocks) >= 2
    for block in blocks:
        result = subprocess.run([sys.executable, "-c", block], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, f"{block}\n{result.stderr}"
        assert result.stdout.strip(), block


def test_readme_python_example_runs():
    (example,) = [block for block in readme_blocks("python") if "lstmparse.configure(seed=1)" in block]
    result = subprocess.run([sys.executable, "-c", example], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "approved" in result.stdout and "don't ['committee', 'budget', '.']" in result.stdout


def test_readme_json_example_is_what_the_command_writes():
    """The README's JSON schema example is the first line `parse --output-format json` writes for its text."""
    (example,) = readme_blocks("json")
    documented = json.loads(example.replace(', "..."]', "]"))
    result = subprocess.run(
        [sys.executable, "-m", "lstmparse", "parse", "--input-format", "raw", "--output-format", "json", "--quiet"],
        input=documented["text"],
        capture_output=True,
        text=True,
    )
    written = json.loads(result.stdout.splitlines()[0])
    assert {**written, "words": written["words"][:1]} == documented


def test_readme_first_command_parses_the_sample():
    (command,) = [block.strip() for block in readme_blocks("sh") if block.strip().startswith("make install")]
    parse = command.split("&&", 1)[1].strip().replace(".venv/bin/lstmparse", f"{sys.executable} -m lstmparse")
    result = subprocess.run(parse, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    parsed = list(read_sentences(str(ROOT / "data" / "sample.conllu")))
    assert result.stdout.count("\n\n") == len(parsed)
    assert str(DEFAULT_MODEL.name) in (ROOT / "README.md").read_text()


@pytest.mark.slow
def test_readme_shell_examples_run(tmp_path):
    """Every ``sh`` block of the README and the documentation except the set-up ones runs as a script, as a user
    would."""
    blocks = [block for block in readme_blocks("sh") if not block.lstrip().startswith("make")]
    assert len(blocks) >= 3
    (tmp_path / "shared").symlink_to(ROOT.parent / "shared")  # the treebanks beside the checkout, as in CI
    tmp_path = tmp_path / "checkout"
    tmp_path.mkdir()
    for name in ("data", "models", "bench"):
        (tmp_path / name).symlink_to(ROOT / name)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for block in blocks:
        result = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", block],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert result.returncode == 0, f"{block}\n{result.stderr}"
        assert result.stdout.strip(), block
    left = sorted(p.name for p in tmp_path.iterdir() if not p.is_symlink())
    assert left == [], f"the README's examples left {left} in the directory they ran from"


def test_default_model_tags_and_lemmatizes_what_is_untagged(parser):
    """The default pipeline fills blank tag and lemma columns itself and keeps filled ones; its parser predicts the
    UPOS itself (--joint-upos) and reads no tag column, so given tags change no tree."""
    tagged = list(read_sentences(str(ROOT / "data" / "sample.trees.conllu")))
    blank = [s.with_columns({c: ["_"] * len(s) for c in ("lemma", "upos", "xpos", "feats")}) for s in tagged]
    filled = list(parser.parse(blank))
    assert all(t.upos not in ("", "_") and t.xpos not in ("", "_") for s in filled for t in s.tokens)
    assert all(t.lemma not in ("", "_") for s in filled for t in s.tokens)
    kept = list(parser.parse(tagged))
    assert [t.upos for s in kept for t in s.tokens] == [t.upos for s in tagged for t in s.tokens]
    given_lemmas = [s.with_columns({"lemma": [t.form.lower() for t in s.tokens]}) for s in tagged]
    kept_lemmas = [t.lemma for s in parser.tag(given_lemmas) for t in s.tokens]
    assert kept_lemmas == [t.lemma for s in given_lemmas for t in s.tokens]
    assert parser.parser.predicts_upos and not {"pos", "feats"} & set(parser.parser.model.features)
    assert [[t.upos for t in s.tokens] for s in filled] == parser.parser.model.predict_upos([s.tokens for s in blank])
    assert [(s.heads, s.deprels) for s in kept] == [(s.heads, s.deprels) for s in filled]


def test_the_default_pipeline_copies_no_lemma_its_training_data_supports_once(parser, ewt):
    """Its tagger's (form, UPOS) lookup is what today's rule builds from EWT train: a name's lemma seen once that no
    edit rule explains ("Caroline" -> "CarolineAbramo@ENRON") is left to the rules."""
    words = [(t.form, t.upos, t.lemma) for s in read_sentences(str(ewt / "train.conllu")) for t in s.tokens]
    rules = training_rules([(form, lemma) for form, _, lemma in words])
    assert parser.tagger.model.lemma_lookup.table == LemmaLookup.from_pairs(words, rules).table
    assert parser.parse_text("Caroline called .")[0].tokens[0].lemma == "Caroline"


def test_the_default_tokenizer_keeps_joined_what_its_training_text_never_splits(parser, ewt):
    """Its join rule is what today's rule learns from EWT train, so an Irish surname keeps its apostrophe."""
    from lstmparse.tokenizer.joins import JoinRule
    from lstmparse.tokenizer.training import read_paragraphs

    learned = JoinRule.learn(read_paragraphs(str(ewt / "train.conllu"))[0])
    assert parser.tokenizer.labeller.joins.joined == learned.joined
    forms = next(parser.tokenize("Mr. O'Sullivan met D'Angelo .")).forms
    assert forms == ["Mr.", "O'Sullivan", "met", "D'Angelo", "."]


def test_default_model_parses_raw_text(parser):
    """Hello, world! is four words, and a second sentence is a second sentence."""
    first, second = parser.parse_text("Hello, world! It's a fine day.")
    assert first.forms == ["Hello", ",", "world", "!"]
    assert second.forms == ["It", "'s", "a", "fine", "day", "."]
    assert any(line.startswith("1-2\tIt's") for line in second.lines)
    assert first.heads.count(0) == 1 and second.heads.count(0) == 1


def test_lstmparse_models_is_searched_first_for_the_default_model(tmp_path):
    """LSTMPARSE_MODELS' directories come before the checkout (and the installed copy): an installed
    lstmparse finds models moved elsewhere; a directory without the model falls back to the shipped one."""
    sample = str(ROOT / "data" / "sample.conllu")
    command = [sys.executable, "-m", "lstmparse", "parse", "--quiet", "--input", sample]
    (tmp_path / "moved").mkdir()
    (tmp_path / "moved" / DEFAULT_MODEL.name).symlink_to(DEFAULT_MODEL)
    (tmp_path / "broken" / DEFAULT_MODEL.name).mkdir(parents=True)  # an empty directory: not a model
    for directories, parses in (("moved", True), ("elsewhere", True), ("broken:moved", False)):
        paths = os.pathsep.join(str(tmp_path / d) for d in directories.split(":"))
        result = subprocess.run(command, env={**os.environ, "LSTMPARSE_MODELS": paths}, capture_output=True, text=True)
        if parses:
            assert result.returncode == 0 and result.stdout.count("\n\n") == 3, result.stderr
        else:
            assert result.returncode == 2 and str(tmp_path / "broken" / DEFAULT_MODEL.name) in result.stderr


def test_the_default_parser_reads_no_tags():
    """Parser.load() without a path (a parser cannot tag) gives the shipped parser that reads words and characters
    only; the default pipeline's parser predicts UPOS itself (--joint-upos)."""
    from lstmparse.stacklstm.api import Parser

    assert set(Parser.load().model.features) <= {"words", "chars"}
    assert lstmparse.load().parser.predicts_upos


@pytest.mark.slow
def test_the_documentation_site_builds_strictly():
    """make docs: MkDocs in strict mode (a broken link or API reference fails), the reference from the docstrings."""
    pytest.importorskip("mkdocs")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", "site"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr
    reference = (ROOT / "site" / "reference" / "index.html").read_text(encoding="utf-8")
    assert "lstmparse.load" in reference and "Pipeline" in reference and "score_documents" in reference
