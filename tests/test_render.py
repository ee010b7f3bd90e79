"""`lstmparse render`: every sentence drawn as well-formed SVG, one arc per attached word, gold differences marked."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import DATA, EWT, assert_one_error_line
from conftest import run_cli as cli

from lstmparse.io.formats import read_sentences
from lstmparse.io.ptb import read_ptb
from lstmparse.io.render import Arc, arc_levels, constituency_svg, dependency_svg, wrong_words

SVG = "{http://www.w3.org/2000/svg}"


def arcs_of(svg: ET.Element) -> list[ET.Element]:
    return [p for p in svg.iter(f"{SVG}path") if "arc" in p.get("class", "").split()]


def labels_of(svg: ET.Element) -> list[str]:
    return [t.text for t in svg.iter(f"{SVG}text") if "label" in t.get("class", "").split()]


@pytest.fixture(scope="module")
def dev_page(tmp_path_factory) -> ET.Element:
    page = tmp_path_factory.mktemp("render") / "dev.html"
    result = cli("render", EWT / "dev.conllu", "--output", page)
    assert result.returncode == 0, result.stderr
    return ET.parse(page).getroot()  # well-formed XHTML, or this raises


def test_every_ewt_dev_sentence_is_drawn_with_one_arc_per_word(dev_page):
    gold = list(read_sentences(str(EWT / "dev.conllu")))
    svgs = list(dev_page.iter(f"{SVG}svg"))
    assert len(svgs) == len(gold)
    for svg, sentence in zip(svgs, gold, strict=True):
        assert len(arcs_of(svg)) == len(sentence)
        assert sorted(labels_of(svg)) == sorted(sentence.deprels)
        forms = [t.text for t in svg.iter(f"{SVG}text") if t.get("class") == "form"]
        assert forms == sentence.forms
    assert any(any("." in line.split("\t")[0] for line in s.lines if "\t" in line) for s in gold)  # empty nodes met
    assert any(sentence for sentence in gold if any(w.token for w in sentence))  # multi-word tokens met


def test_multiword_tokens_are_bracketed_under_their_words():
    sentence = next(s for s in read_sentences(str(EWT / "dev.conllu")) if any(w.token for w in s))
    svg = ET.fromstring(dependency_svg(sentence))
    texts = [t.text for t in svg.iter(f"{SVG}text")]
    token = next(w.token for w in sentence if w.token)
    assert token.form in texts


def test_arc_heights_clear_the_arcs_inside_them_and_crossing_arcs_both_show():
    nested = [Arc(0, 3, "a"), Arc(1, 2, "b"), Arc(-1, 0, "root")]
    levels = arc_levels(nested)
    assert levels[nested[1]] == 1 and levels[nested[0]] == 2 and levels[nested[2]] == 3
    crossing = [Arc(0, 2, "x"), Arc(1, 3, "y")]  # non-projective: neither lies inside the other
    assert set(arc_levels(crossing).values()) == {1}


def test_gold_marks_exactly_the_words_attached_otherwise(tmp_path):
    gold = list(read_sentences(str(EWT / "dev.conllu")))[:30]
    changed = []
    for k, sentence in enumerate(gold):
        heads, deprels = list(sentence.heads), list(sentence.deprels)
        if k % 3 == 0:
            deprels[0] = "dep" if deprels[0] != "dep" else "amod"
        changed.append(sentence.with_tree(heads, deprels))
    for system, reference in zip(changed, gold, strict=True):
        svg = ET.fromstring(dependency_svg(system, reference))
        marked = [g for g in svg.iter(f"{SVG}g") if g.get("class") == "wrong"]
        assert len(marked) == len(wrong_words(system, reference)) == (1 if system.deprels != reference.deprels else 0)
    system_file, gold_file = tmp_path / "system.conllu", tmp_path / "gold.conllu"
    system_file.write_text("".join(s.to_conllu() for s in changed), encoding="utf-8")
    gold_file.write_text("".join(s.to_conllu() for s in gold), encoding="utf-8")
    result = cli("render", system_file, "--gold", gold_file, "--output", tmp_path / "page.html")
    assert result.returncode == 0, result.stderr
    page = ET.parse(tmp_path / "page.html").getroot()
    assert sum(1 for g in page.iter(f"{SVG}g") if g.get("class") == "wrong") == 10
    other = tmp_path / "other.conllu"
    other.write_text("".join(s.to_conllu() for s in gold[1:]), encoding="utf-8")
    assert_one_error_line(cli("render", system_file, "--gold", other), f"{other}:", "other words")


def test_constituency_trees_and_one_svg_file_per_sentence(tmp_path):
    trees = read_ptb(DATA / "const" / "gum" / "dev.ptb")[:20]
    for tree in trees:
        svg = ET.fromstring(constituency_svg(tree))
        words = [t.text for t in svg.iter(f"{SVG}text") if t.get("class") is None]
        assert words == tree.words
    result = cli("render", "--input-format", "ptb", DATA / "const" / "gum" / "dev.ptb", "--output", tmp_path / "c.html")
    assert result.returncode == 0 and ET.parse(tmp_path / "c.html").getroot() is not None, result.stderr
    result = cli("render", EWT / "dev.conllu", "--format", "svg", "--output-dir", tmp_path / "svgs")
    assert result.returncode == 0, result.stderr
    files = sorted(Path(tmp_path / "svgs").glob("*.svg"), key=lambda p: int(p.stem))
    assert len(files) == len(list(read_sentences(str(EWT / "dev.conllu"))))
    assert ET.parse(files[0]).getroot().tag == f"{SVG}svg"
