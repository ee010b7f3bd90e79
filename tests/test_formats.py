"""Reading and lossless writing of CoNLL-U, CoNLL-X and text."""

from __future__ import annotations

import pytest

from lstmparse.errors import InputError
from lstmparse.io.formats import Sentence, read_sentences, read_treebank

SAMPLE = (
    "# sent_id = 1\n"
    "# text = I don't know.\n"
    "1\tI\tI\tPRON\tPRP\tCase=Nom\t3\tnsubj\t3:nsubj\tSpaceAfter=No\n"
    "2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
    "2\tdo\tdo\tAUX\tVBP\t_\t4\taux\t4:aux\t_\n"
    "3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t4:advmod\t_\n"
    "3.1\tfoo\tfoo\tX\t_\t_\t_\t_\t3:dep\t_\n"
    "4\tknow\tknow\tVERB\tVB\t_\t0\troot\t0:root\t_\n"
    "5\t.\t.\tPUNCT\t.\t_\t4\tpunct\t4:punct\t_\n\n"
)


def write(tmp_path, text: str, name: str = "in.conllu"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return str(path)


def test_ewt_dev_round_trip_is_byte_identical(ewt):
    original = (ewt / "dev.conllu").read_text(encoding="utf-8")
    sentences = list(read_sentences(str(ewt / "dev.conllu")))
    assert len(sentences) == 2001
    rewritten = "".join(s.to_conllu([t.head for t in s.tokens], [t.deprel for t in s.tokens]) for s in sentences)
    assert rewritten == original


def test_only_head_and_deprel_change(tmp_path):
    sentence = next(read_sentences(write(tmp_path, SAMPLE)))
    assert sentence.forms == ["I", "do", "n't", "know", "."]
    out = sentence.to_conllu([2, 0, 2, 2, 4], ["a", "root", "b", "c", "d"]).splitlines()
    original = SAMPLE.splitlines()
    assert out[:2] == original[:2]  # comments
    assert out[3] == original[3] and out[6] == original[6]  # multi-word token, empty node
    assert out[2].split("\t")[6:8] == ["2", "a"]
    for new, old in zip(out, original, strict=True):
        new_cols, old_cols = new.split("\t"), old.split("\t")
        if len(new_cols) == 10:
            assert new_cols[:6] + new_cols[8:] == old_cols[:6] + old_cols[8:]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("1\tI\tI\tPRON\tPRP\t_\t0\troot\t_", "expected 10 tab-separated columns, found 9"),
        ("1\tI\tI\tPRON\tPRP\t_\tx\troot\t_\t_", "HEAD 'x' is not a word number, 0 for the root, or _"),
        ("one\tI\tI\tPRON\tPRP\t_\t0\troot\t_\t_", "ID 'one' is not a word number (1, 2, ...), a range"),
        ("The cat sat.", "found 1; this looks like plain text: give --input-format raw"),
        ("1\tI\tI\tPRON\tPRP\t_\t7\troot\t_\t_", "HEAD 7 out of range 0..1"),
        ("2\tI\tI\tPRON\tPRP\t_\t0\troot\t_\t_", "word ID 2 out of sequence"),
    ],
)
def test_malformed_lines_name_file_and_line(tmp_path, line, message):
    path = write(tmp_path, "# c\n" + line + "\n\n")
    with pytest.raises(InputError) as error:
        list(read_sentences(path))
    assert str(error.value).startswith(f"{path}:2: ")
    assert message in str(error.value)
    assert "Failed parsing" not in str(error.value)  # the conllu library's wording stays inside


def test_training_files_need_complete_trees(tmp_path):
    path = write(tmp_path, "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\n\n")
    assert next(read_sentences(path)).heads == [None]
    with pytest.raises(InputError, match=r":1: missing HEAD or DEPREL"):
        read_treebank(path)


def test_conllx_is_read_like_conllu(tmp_path):
    path = write(tmp_path, "1\tHe\the\tPRP\tPRP\t_\t2\tSBJ\t_\t_\n2\truns\trun\tVBZ\tVBZ\t_\t0\tROOT\t_\t_\n\n")
    sentence = next(read_sentences(path, "conllx"))
    assert (sentence.heads, sentence.deprels) == ([2, 0], ["SBJ", "ROOT"])
    with pytest.raises(InputError, match="integer IDs"):
        list(read_sentences(write(tmp_path, "1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n\n", "x.conll"), "conllx"))


def test_text_lines_become_sentences(tmp_path):
    path = write(tmp_path, "The dog  barks .\n\nIt runs\n", "in.txt")
    sentences = list(read_sentences(path, "text"))
    assert [s.forms for s in sentences] == [["The", "dog", "barks", "."], ["It", "runs"]]
    assert sentences[1].line_of(0) == 3
    block = sentences[0].to_conllu([2, 3, 0, 3], ["det", "nsubj", "root", "punct"])
    assert block.splitlines()[2] == "2\tdog\t_\t_\t_\t_\t3\tnsubj\t_\t_"


def test_from_forms_keeps_given_comments():
    sentence = Sentence.from_forms(["a", "b"], ["# x = 1"])
    assert sentence.to_conllu([0, 1], ["root", "dep"]).startswith("# x = 1\n1\ta\t")


def test_invalid_utf8_is_a_clean_error(tmp_path):
    path = tmp_path / "bad.conllu"
    path.write_bytes(b"1\t\xff\t_\t_\t_\t_\t0\troot\t_\t_\n\n")
    with pytest.raises(InputError, match="not valid UTF-8"):
        list(read_sentences(str(path)))


def test_crlf_and_byte_order_mark_are_accepted(tmp_path):
    path = tmp_path / "windows.conllu"
    path.write_bytes("\ufeff# sent_id = 1\r\n1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\r\n\r\n".encode())
    sentence = next(read_sentences(str(path)))
    assert sentence.lines[0] == "# sent_id = 1"
    assert sentence.to_conllu() == "# sent_id = 1\n1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\n\n"
