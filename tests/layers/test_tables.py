"""Word tables loaded to parse (layers/tables.py): the same vectors, tags and trees as DyNet's own tables."""

from __future__ import annotations

import dynet as dy
import numpy as np
import pytest
from conftest import EWT, ROOT

from lstmparse.core.model_io import effective_values, load_directory
from lstmparse.io.formats import read_sentences
from lstmparse.layers.tables import FrozenTable, table_rows
from lstmparse.stacklstm.api import Parser
from lstmparse.stacklstm.model import StackLSTMParser
from lstmparse.tagger.grouping import tag_all
from lstmparse.tagger.model import Tagger

PIPELINE = ROOT / "models" / "en_ewt_pipeline"


def test_a_frozen_tables_rows_are_its_arrays_rows_through_cache_refills_and_overflows():
    """Every call gives exactly the stored rows, also when the cache is refilled between graphs, when one graph
    reads more rows than the cache holds, and for an expression of a graph evaluated after later calls."""
    values = np.random.default_rng(3).normal(size=(50, 4)).astype(np.float16)
    table = FrozenTable(values, cached_rows=8)
    rng = np.random.default_rng(4)
    for graph in range(30):
        dy.renew_cg()
        calls = [rng.integers(0, 50, size=int(rng.integers(1, 12))).tolist() for _ in range(int(rng.integers(1, 4)))]
        expressions = [table.rows(ids) for ids in calls]  # all built before any is computed
        for ids, expression in zip(calls, expressions, strict=True):
            got = expression.npvalue().reshape(4, len(ids))
            assert np.array_equal(got, values[ids].T.astype(np.float32)), (graph, ids)


def test_table_rows_of_a_dynet_table_is_its_lookup():
    model = dy.ParameterCollection()
    lookup = model.add_lookup_parameters((10, 3))
    dy.renew_cg()
    ids = [4, 1, 4, 9]
    assert np.array_equal(table_rows(lookup, ids).npvalue(), dy.lookup_batch(lookup, ids).npvalue())


def dynet_tables_copy(loaded, cls, *args):
    """The same model built with DyNet's own tables (as for training), given the loaded model's values."""
    copy = cls(*args)
    named = copy.named_parameters()
    values = effective_values(loaded.model, loaded.named_parameters())
    assert set(values) == set(named)  # a loaded model still saves every array, its frozen tables too
    for name, parameter in named.items():
        if isinstance(parameter, dy.LookupParameters):
            parameter.init_from_array(values[name])
        else:
            parameter.set_value(values[name])
    return copy


@pytest.fixture(scope="module")
def sentences():
    return list(read_sentences(str(EWT / "dev.conllu")))[:300]


def test_a_loaded_tagger_tags_as_with_dynet_tables(sentences):
    tagger = Tagger.load(str(PIPELINE / "tagger"))
    assert any(isinstance(p, FrozenTable) for p in tagger.named_parameters().values())
    reference = dynet_tables_copy(tagger, Tagger, tagger.vocabs, tagger.dims, tagger.lemma_lookup)
    assert not any(isinstance(p, FrozenTable) for p in reference.named_parameters().values())
    reference.analyses, reference.companions = tagger.analyses, tagger.companions  # dictionaries, not tables
    reference.use_analyses, reference.use_companions = tagger.use_analyses, tagger.use_companions  # dev chose them
    reference.lemma_casings, reference.lemma_casing_weight = tagger.lemma_casings, tagger.lemma_casing_weight
    reference.known_lemma_weight = tagger.known_lemma_weight
    forms = [s.forms for s in sentences]
    assert tag_all(tagger, forms) == tag_all(reference, forms)


def test_a_loaded_parser_parses_as_with_dynet_tables(sentences):
    parser = StackLSTMParser.load(str(PIPELINE / "parser"))
    assert any(isinstance(p, FrozenTable) for p in parser.named_parameters().values())
    config, _, _ = load_directory(PIPELINE / "parser")
    reference = dynet_tables_copy(
        parser, StackLSTMParser, parser.system, parser.features, parser.vocabs, parser.dims, parser.pretrained_dim
    )
    ours = [s.to_conllu() for s in Parser(parser).parse(sentences)]
    theirs = [s.to_conllu() for s in Parser(reference).parse(sentences)]
    assert ours == theirs and config["features"] == parser.features
