"""The CoNLL 2018 scorer's measures: spans, multi-word token alignment, heads through the alignment."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DATA, FASTEST_MODEL, ROOT, first_sentences

from lstmparse.errors import InputError
from lstmparse.io.formats import Sentence, read_sentences
from lstmparse.scoring.conll18 import document, evaluate_conll18, score_documents
from lstmparse.scoring.evaluation import evaluate_files

GOLD = """# text = I don't know.
1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\t_
1\tdo\tdo\tAUX\tVBP\t_\t3\taux\t_\t_
2\tn't\tnot\tPART\tRB\t_\t3\tadvmod\t_\t_
3\tknow\tknow\tVERB\tVB\t_\t0\troot\t_\tSpaceAfter=No
4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_

"""


def sentences_of(text: str, tmp_path: Path, name: str) -> list[Sentence]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return list(read_sentences(str(path)))


def scores(gold: str, system: str, tmp_path: Path) -> dict[str, float]:
    result = score_documents(
        document(sentences_of(gold, tmp_path, "g.conllu")), document(sentences_of(system, tmp_path, "s.conllu"))
    )
    return {name: round(score.f1, 2) for name, score in result.items()}


def test_identical_files_score_100_everywhere(tmp_path):
    assert set(scores(GOLD, GOLD, tmp_path).values()) == {100.0}


def test_an_unsplit_multiword_token_aligns_its_matching_word(tmp_path):
    """'don't' left whole: the token matches, one of the two gold words is missing, 'know' and '.' still align."""
    system = GOLD.replace("1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n1\tdo\tdo\tAUX\tVBP\t_\t3\taux\t_\t_\n", "")
    system = system.replace("2\tn't\tnot\tPART\tRB\t_\t3\tadvmod", "1\tdon't\tnot\tPART\tRB\t_\t2\tadvmod")
    system = system.replace("3\tknow", "2\tknow").replace("4\t.\t.\tPUNCT\t.\t_\t3", "3\t.\t.\tPUNCT\t.\t_\t2")
    result = scores(GOLD, system, tmp_path)
    assert result["Tokens"] == 100.0
    assert result["Words"] == round(200 * 2 / 7, 2)  # know and . of 4 gold and 3 system words
    assert result["LAS"] == round(200 * 2 / 7, 2)


def test_heads_count_only_through_aligned_words(tmp_path):
    """A system that splits 'know.' differently still gets '.' right only if its head is the aligned 'know'."""
    system = GOLD.replace("4\t.\t.\tPUNCT\t.\t_\t3\tpunct", "4\t.\t.\tPUNCT\t.\t_\t1\tpunct")
    assert scores(GOLD, system, tmp_path)["UAS"] == 75.0


def test_sentence_boundaries_are_spans(tmp_path):
    """Two gold sentences read as one: every token still matches, no sentence does."""
    words = ["do", "n't", "know", "."] * 2
    lines = ["1-2\tdon't" + "\t_" * 8]
    for i, form in enumerate(words, start=1):
        if i == 5:
            lines.append("5-6\tdon't" + "\t_" * 8)
        head = 0 if i == 3 else 3
        misc = "SpaceAfter=No" if form == "know" else "_"
        lines.append(f"{i}\t{form}\t_\tX\t_\t_\t{head}\tdep\t_\t{misc}")
    result = scores(GOLD + GOLD, "\n".join(lines) + "\n\n", tmp_path)
    assert result["Sentences"] == 0.0
    assert result["Tokens"] == 100.0
    assert result["Words"] == 100.0


def test_different_text_is_an_error_naming_the_system_file(tmp_path):
    gold_path, system_path = tmp_path / "g.conllu", tmp_path / "s.conllu"
    gold_path.write_text(GOLD, encoding="utf-8")
    system_path.write_text(GOLD.replace("know", "knew"), encoding="utf-8")
    with pytest.raises(InputError, match="do not spell the gold text"):
        evaluate_conll18(str(gold_path), str(system_path))


def test_on_gold_tokenization_it_agrees_with_the_attachment_scores(ewt, tmp_path):
    """The same LAS, UAS and CLAS as lstmparse.scoring.evaluation on a parser's real output."""
    import lstmparse

    gold = tmp_path / "gold.conllu"
    gold.write_text(first_sentences(ewt / "dev.conllu", 120), encoding="utf-8")
    system = tmp_path / "system.conllu"
    parsed = lstmparse.load(FASTEST_MODEL).parse_file(str(gold))
    system.write_text("".join(s.to_conllu() for s in parsed), encoding="utf-8")
    attachment = evaluate_files(str(gold), str(system))
    conll18 = evaluate_conll18(str(gold), str(system))
    assert conll18["LAS"].f1 == pytest.approx(attachment.las)
    assert conll18["UAS"].f1 == pytest.approx(attachment.uas)
    assert conll18["CLAS"].f1 == pytest.approx(attachment.clas)
    assert conll18["Words"].f1 == 100.0


def test_a_wrong_lemma_costs_lemmas_and_blex_not_mlas(tmp_path):
    """'know' (root, a content word) lemmatized 'knew': one of four lemmas, one of two content words for BLEX."""
    result = scores(GOLD, GOLD.replace("3\tknow\tknow", "3\tknow\tknew"), tmp_path)
    assert result["Lemmas"] == 75.0
    assert result["BLEX"] == 50.0
    assert result["MLAS"] == 100.0 and result["LAS"] == 100.0


def test_a_gold_lemma_left_blank_accepts_any_lemma(tmp_path):
    gold = GOLD.replace("3\tknow\tknow", "3\tknow\t_")
    assert scores(gold, GOLD.replace("3\tknow\tknow", "3\tknow\tknew"), tmp_path)["Lemmas"] == 100.0


def test_mlas_checks_the_function_words_attached_to_a_content_word(tmp_path):
    """'do' (aux of 'know') with other features: 'know' loses its MLAS point, LAS and BLEX do not change."""
    system = GOLD.replace("1\tdo\tdo\tAUX\tVBP\t_", "1\tdo\tdo\tAUX\tVBP\tMood=Ind")
    result = scores(GOLD, system, tmp_path)
    assert result["UFeats"] == 75.0
    assert result["MLAS"] == 50.0
    assert result["LAS"] == 100.0 and result["BLEX"] == 100.0


def test_features_outside_the_universal_set_are_not_compared(tmp_path):
    """As the scorer: UFeats reads the universal features only (a treebank's Number[psor] is not one)."""
    system = GOLD.replace("3\tknow\tknow\tVERB\tVB\t_", "3\tknow\tknow\tVERB\tVB\tNumber[psor]=Sing")
    assert scores(GOLD, system, tmp_path)["UFeats"] == 100.0
    system = GOLD.replace("3\tknow\tknow\tVERB\tVB\t_", "3\tknow\tknow\tVERB\tVB\tNumber=Sing")
    assert scores(GOLD, system, tmp_path)["UFeats"] == 75.0


def test_a_gold_file_without_a_column_does_not_score_the_measures_that_need_it():
    """A sample with UPOS only, and UD Maltese (no lemmas, no features), are not judged on what they lack."""
    from lstmparse.scoring.conll18 import report, unannotated_measures

    sample = list(read_sentences(str(ROOT / "data" / "sample.trees.conllu")))
    assert set(unannotated_measures(sample)) == {"XPOS", "AllTags", "UFeats", "MLAS", "Lemmas", "BLEX"}
    maltese = list(read_sentences(str(DATA / "ud" / "mt_mudt" / "dev.conllu")))
    assert unannotated_measures(maltese) == {
        "UFeats": "FEATS",
        "AllTags": "FEATS",
        "MLAS": "FEATS",
        "Lemmas": "LEMMA",
        "BLEX": "LEMMA",
    }
    english = list(read_sentences(str(DATA / "ud" / "en_ewt" / "dev.conllu")))
    assert unannotated_measures(english) == {}
    table = report(score_documents(document(sample), document(sample)), unannotated_measures(sample))
    assert "UPOS " in table and "\nXPOS " not in table and "Lemmas " not in table
    assert (
        "(not scored: XPOS, AllTags, UFeats, MLAS, Lemmas, BLEX; the gold file leaves FEATS, LEMMA, XPOS blank)"
        in table
    )
