"""Bad and unusual input: a correct parse or one clean ``file:line:`` error, never a traceback."""

from __future__ import annotations

import string

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli import main
from lstmparse.errors import InputError
from lstmparse.io.formats import read_sentences

GOOD = "1\tDogs\t_\tNOUN\t_\t_\t2\tnsubj\t_\t_\n2\tbark\t_\tVERB\t_\t_\t0\troot\t_\t_\n"


def run_parse(tmp_path, data: bytes, fmt: str = "conllu", name: str = "in.conllu"):
    path = tmp_path / name
    path.write_bytes(data)
    return CliRunner().invoke(main, ["parse", "--quiet", "--input-format", fmt, "--input", str(path)]), path


@pytest.mark.parametrize(
    "data, line, message",
    [
        (GOOD.replace("\t_\t_\n1", "\t_\n1").replace("nsubj\t_\t_", "nsubj\t_"), 1, "columns"),
        (GOOD.replace("\t2\tnsubj", "\tx\tnsubj"), 1, "HEAD 'x' is not a word number"),
        (GOOD.replace("\t2\tnsubj", "\t9\tnsubj"), 1, "out of range"),
        (GOOD.replace("bark", "b\udcffark", 1), 2, "UTF-8"),
        ("# only a comment\n\n" + GOOD, 1, "without any word line"),
        (GOOD.replace("2\tbark", "3\tbark"), 2, "out of sequence"),
    ],
    ids=["column-count", "non-integer-head", "head-out-of-range", "not-utf8", "no-words", "id-sequence"],
)
def test_malformed_conllu_is_one_error_line_with_exit_code_2(tmp_path, data, line, message):
    raw = data.encode("utf-8", "surrogateescape")
    result, path = run_parse(tmp_path, raw)
    assert result.exit_code == 2
    error = result.output.splitlines()[-1]  # in-process runs may first note DyNet's settings
    assert error.startswith(f"lstmparse: {path}:{line}: ")
    assert message in error
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    "data",
    [
        GOOD,  # no blank line at the end of the file
        GOOD + "\n",
        GOOD.replace("\n", "\r\n") + "\r\n",  # CRLF line ends
        "\ufeff" + GOOD + "\n",  # byte-order mark
        GOOD.replace("Dogs", "🐶🐕").replace("bark", "भौंकते") + "\n",  # emoji and Devanagari
        GOOD.replace("Dogs", "Hot dogs") + "\n",  # a FORM with a space
    ],
    ids=["no-final-blank-line", "plain", "crlf", "bom", "emoji-and-rare-script", "space-in-form"],
)
def test_unusual_but_valid_conllu_is_parsed_in_full(tmp_path, data):
    result, _ = run_parse(tmp_path, data.encode("utf-8"))
    assert result.exit_code == 0, result.output
    words = [line.split("\t") for line in result.stdout.splitlines() if line and not line.startswith("#")]
    assert [w[0] for w in words] == ["1", "2"]
    assert sorted(w[6] for w in words).count("0") == 1


def test_empty_input_gives_empty_output(tmp_path):
    result, _ = run_parse(tmp_path, b"")
    assert result.exit_code == 0 and result.stdout == ""


def test_a_500_token_sentence_is_parsed(tmp_path):
    text = " ".join(f"word{i}" for i in range(500)) + "\n"
    result, _ = run_parse(tmp_path, text.encode("utf-8"), "text", "long.txt")
    assert result.exit_code == 0, result.output
    heads = [int(line.split("\t")[6]) for line in result.stdout.splitlines() if line and line[0].isdigit()]
    assert len(heads) == 500 and heads.count(0) == 1


def test_text_input_splits_on_spaces_and_tabs_only(tmp_path):
    data = "New\u00a0York is\tbig .\n\n  second   line \n".encode()
    result, _ = run_parse(tmp_path, data, "text", "in.txt")
    assert result.exit_code == 0, result.output
    blocks = result.stdout.strip().split("\n\n")
    assert len(blocks) == 2
    assert [line.split("\t")[1] for line in blocks[0].splitlines()[1:]] == ["New\u00a0York", "is", "big", "."]


# --- property-based: the readers and the writer ---------------------------------------------------

FORM_CHARS = st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters="\t\n\r")
FIELD = st.text(FORM_CHARS, min_size=1, max_size=8).filter(lambda s: s.strip() == s and s != "")
LABEL = st.text(string.ascii_lowercase + ":", min_size=1, max_size=6)
COMMENT = st.text(FORM_CHARS, max_size=20).map(lambda s: "# " + s)


@st.composite
def conllu_sentence(draw) -> str:
    n = draw(st.integers(1, 8))
    lines = draw(st.lists(COMMENT, max_size=3))
    for i in range(1, n + 1):
        if i < n and draw(st.booleans()) and draw(st.booleans()):
            lines.append(f"{i}-{i + 1}\t{draw(FIELD)}\t_\t_\t_\t_\t_\t_\t_\t_")
        head = draw(st.one_of(st.just("_"), st.integers(0, n).map(str)))
        deprel = draw(st.one_of(st.just("_"), LABEL))
        upos = draw(st.sampled_from(["NOUN", "VERB", "_", "PUNCT"]))
        misc = draw(st.sampled_from(["_", "SpaceAfter=No"]))
        lines.append(f"{i}\t{draw(FIELD)}\t{draw(FIELD)}\t{upos}\t_\t_\t{head}\t{deprel}\t_\t{misc}")
        if draw(st.integers(0, 5)) == 0:
            lines.append(f"{i}.1\t{draw(FIELD)}\t_\t_\t_\t_\t_\t_\t_\t_")
    return "\n".join(lines) + "\n\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(conllu_sentence(), min_size=1, max_size=4))
def test_random_valid_conllu_round_trips_byte_for_byte(tmp_path, sentences):
    text = "".join(sentences)
    path = tmp_path / "random.conllu"
    path.write_text(text, encoding="utf-8")
    read = list(read_sentences(str(path)))
    assert len(read) == len(sentences)
    assert "".join(s.to_conllu() for s in read) == text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300), st.sampled_from(["conllu", "conllx", "text"]))
def test_random_bytes_give_sentences_or_a_located_error(tmp_path, data, fmt):
    path = tmp_path / "random.bin"
    path.write_bytes(data)
    try:
        for sentence in read_sentences(str(path), fmt):
            assert sentence.tokens
    except InputError as error:
        assert error.path == str(path)
