"""Documents in notebooks and in the conllu package: trees drawn by a real Jupyter kernel, TokenLists round-tripped."""

from __future__ import annotations

import conllu
import pytest
from conftest import EWT, ROOT

import lstmparse
from lstmparse.io.render import NOTEBOOK_SENTENCES


def test_a_document_and_its_tokenlists_round_trip_without_loss():
    text = (EWT / "dev.conllu").read_text(encoding="utf-8")
    document = lstmparse.read(EWT / "dev.conllu")
    assert document.to_conllu() == text and lstmparse.read(text).to_conllu() == text
    tokenlists = document.to_tokenlists()
    assert len(tokenlists) == len(document) and isinstance(tokenlists[0], conllu.TokenList)
    assert lstmparse.read(tokenlists).to_conllu() == text
    assert lstmparse.read(conllu.parse(text)).to_conllu() == text  # what a user already holds in memory


def test_a_pipeline_parses_a_document_it_is_given_as_it_parses_the_sentences():
    pipeline = lstmparse.load("en_ewt_pipeline")
    held = conllu.parse((ROOT / "data" / "sample.conllu").read_text(encoding="utf-8"))
    parsed = pipeline(lstmparse.read(held))
    expected = list(pipeline.parse(lstmparse.read(ROOT / "data" / "sample.conllu").sentences))
    assert parsed.to_conllu() == "".join(s.to_conllu() for s in expected)
    back = lstmparse.read(parsed.to_tokenlists())
    assert back.to_conllu() == parsed.to_conllu() and all(t["head"] is not None for t in parsed.to_tokenlists()[0])


def test_documents_sentences_and_trees_draw_themselves_as_inline_svg():
    pipeline = lstmparse.load("en_ewt_pipeline")
    document = pipeline("The committee approved the budget. " * (NOTEBOOK_SENTENCES + 3))
    html = document._repr_html_()
    assert html.count("<svg") == NOTEBOOK_SENTENCES and "… and 3 more sentences" in html
    assert "body {" not in html  # the notebook's own page is left alone
    assert document[0]._repr_html_().count("<svg") == 1 and "nsubj" in document[0]._repr_html_()
    constituency = lstmparse.load("en_gum_seq2seq")
    (tree,) = constituency.parse([["Dogs", "bark", "."]], beam=1)
    assert tree._repr_html_().startswith("<svg") and ">Dogs<" in tree._repr_html_()


@pytest.mark.slow
def test_a_real_notebook_shows_the_trees(tmp_path):
    """Executed by nbclient on a real Python kernel; the saved outputs hold the drawings."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("import lstmparse\nnlp = lstmparse.load()\ndoc = nlp('Dogs bark. Cats sleep.')\ndoc"),
        nbformat.v4.new_code_cell("doc[1]"),
        nbformat.v4.new_code_cell("lstmparse.load('en_gum_seq2seq').parse([['Dogs', 'bark', '.']], beam=1).__next__()"),
    ]
    nbclient.NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    path = tmp_path / "trees.ipynb"
    nbformat.write(notebook, path)
    saved = nbformat.read(path, as_version=4)
    htmls = [output["data"]["text/html"] for cell in saved.cells for output in cell.outputs if "data" in output]
    assert len(htmls) == 3 and all("<svg" in html for html in htmls)
    assert htmls[0].count("<svg") == 2 and "Cats" in htmls[1] and "Dogs" in htmls[2]
