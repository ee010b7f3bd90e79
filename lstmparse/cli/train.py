"""``lstmparse train``: one command for every model family, its options grouped by the family they apply to.

Each family's defaults live in its options dataclass (``StackLSTMOptions``,
``TreeLSTMOptions``, ``Seq2SeqOptions``); an option left out takes that default,
and ``--help`` shows it from there.  An option given to a family that does not
use it is refused rather than silently ignored.
"""

from __future__ import annotations

import time

import click

from lstmparse.cli.common import EXISTING_FILE, MEMORY_MB, PRETRAINED, clean_errors, configure_dynet
from lstmparse.cli.family_options import (
    FAMILIES,
    FEATURE_HELP,
    PIPELINE,
    SEQ2SEQ,
    STACK,
    TAGGER,
    TOKENIZER,
    TREE,
    FamilyCommand,
    batch_size_default,
    default_of,
    defaults_of,
    family_option,
    learning_rate_default,
    refuse_foreign_options,
    was_given,
)
from lstmparse.cli.train_setup import (
    HALVED_PIPELINE,
    build_recipe_pipeline,
    check_pretrained_by_name,
    make_recipe_ensemble,
    parts_and_choices,
    recipe_of,
    recipe_options,
    staged,
    train_stages,
    training_files,
    with_epochs_of,
    write_training_card,
)
from lstmparse.core.families import family
from lstmparse.layers import CHAR_LSTM_SIZE
from lstmparse.layers.encoders import DEFAULT_ENCODER
from lstmparse.pipeline.options import PipelineOptions
from lstmparse.seq2seq.options import Seq2SeqDimensions
from lstmparse.stacklstm.options import (
    BATCHING,
    DEFAULT_FEATURES,
    StackLSTMDimensions,
    StackLSTMOptions,
)
from lstmparse.stacklstm.oracles import ORACLES
from lstmparse.stacklstm.systems import SYSTEMS
from lstmparse.tagger.options import TaggerDimensions, TaggerOptions
from lstmparse.tokenizer.options import TokenizerDimensions
from lstmparse.treelstm.options import TreeLSTMDimensions, TreeLSTMOptions


def tagger_size_option(flag: str, field: str, minimum: int, help_text: str):  # noqa: ANN201 - a click decorator
    """A size of the tagger's network (``TaggerDimensions.<field>``), an option of ``--arch tagger`` only."""
    default = getattr(TaggerDimensions(), field)
    return family_option(
        flag, type=click.IntRange(min=minimum), families=TAGGER, help=f"{help_text} [default: {default}]"
    )


@click.command(cls=FamilyCommand)
@family_option(
    "--arch",
    type=click.Choice(list(FAMILIES)),
    default="stacklstm",
    show_default=True,
    help="stacklstm: the dependency parser; treelstm/ldtreelstm: tree language models for reranking, scoring, "
    "sampling; seq2seq: the constituency parser (PTB bracketed trees); tagger: UPOS, XPOS and FEATS; "
    "tokenizer: tokens, multi-word tokens and sentences from raw text (UD treebanks with '# text' lines)",
)
@family_option(
    "--recipe",
    help="a recipe file (TOML: the model's arch, its treebank and seed, the training options; docs/recipes.md) to "
    "make the model by; options given here too take these values. --arch pipeline without one runs the default "
    "recipe; 'none': only the options given, in this process",
)
@family_option(
    "--epochs-of",
    type=click.Path(exists=True, file_okay=False),
    help="remake a model made by this recipe: each part trains the epochs MODEL's card records it ran, with no "
    "time budget (the same recipe, seed and data then make the same files)",
)
@family_option("--train", "train_file", type=EXISTING_FILE, help="training treebank (or --treebank)")
@family_option("--dev", "dev_file", type=EXISTING_FILE, help="development treebank (model selection)")
@family_option(
    "--treebank",
    type=click.Path(exists=True, file_okay=False),
    help="a UD treebank folder instead of --train/--dev: train.conllu or *-ud-train.conllu, and dev likewise (without "
    "one, every tenth training sentence is held out as dev; seq2seq: train.ptb and dev.ptb); its name gives the "
    "model's language, its LICENSE.txt the licence in the model's card",
)
@family_option("--model-dir", required=True, type=click.Path(file_okay=False), help="where the best model is written")
@family_option("--language", help="the model's language code in its card.json [default: from the treebank's name]")
@family_option("--epochs", type=click.IntRange(min=1), help=defaults_of("epochs"))
@family_option(
    "--max-minutes",
    "--budget-minutes",
    "max_minutes",
    type=click.FloatRange(min=0, min_open=True),
    help="wall-clock budget, dev evaluation included (pipeline: the whole pipeline's, cut into its parts' as "
    "tokenizer 10%, tagger 15%, fold taggers 20% together, parser 55%); a run continued with --resume gets what "
    "its epochs left of it",
)
@family_option(
    "--keep-epochs",
    is_flag=True,
    default=None,
    help="also keep each epoch's model in MODEL_DIR/epochs/N (for average)",
)
@family_option(
    "--average-best",
    type=click.IntRange(min=2),
    families=STACK + TREE + SEQ2SEQ + TAGGER + TOKENIZER,
    help="keep each epoch's model, and make the model the mean of the N that scored best on dev (checkpoint "
    "averaging; the card names them)",
)
@family_option(
    "--batch-size",
    type=click.IntRange(min=1),
    help="sentences per update " + defaults_of("batch_size", batch_size_default),
)
@family_option(
    "--learning-rate",
    type=float,
    help="SGD's eta0 or Adam's alpha (TreeLSTMs: halved when dev does not improve) "
    + defaults_of("learning_rate", learning_rate_default),
)
@family_option(
    "--dropout",
    type=click.FloatRange(0, 1, max_open=True),
    help="dropout on token vectors and inside the LSTMs, training only " + defaults_of("dropout"),
)
@family_option(
    "--seed", type=int, help=f"seeds Python, NumPy and DyNet [default: {default_of(StackLSTMOptions, 'seed')}]"
)
@family_option("--overwrite", is_flag=True, help="replace the model already in MODEL_DIR (otherwise refused)")
@family_option(
    "--half-precision",
    is_flag=True,
    help="store the trained model's parameters (every part's) as float16: half the size, for shipping; "
    "measure the stored model, its dev figures in the card are those before",
)
@family_option(
    "--memory-mb",
    type=MEMORY_MB,
    help="DyNet's memory pool, MB " + defaults_of("memory_mb", lambda options_class: options_class.DYNET_MEMORY_MB),
)
@family_option(
    "--resume",
    is_flag=True,
    families=STACK + SEQ2SEQ + PIPELINE,
    help="continue an interrupted run from MODEL_DIR's last checkpoint (stack-LSTM) or best model (seq2seq); "
    "same data and options (pipeline: reuse the parts already trained on the same data)",
)
@tagger_size_option(
    "--lemma-feats",
    "lemma_feats",
    0,
    "width of the embedding of the predicted FEATS that the lemma layer also reads (0: it reads none)",
)
@tagger_size_option(
    "--char-size",
    "chars",
    2,
    "size of the character bi-LSTM's word vector (both directions), what unseen words are tagged from",
)
@family_option(
    "--factored-feats/--whole-feats",
    "factored_feats",
    default=None,
    families=TAGGER,
    help="also one output per feature (each word takes the likelier FEATS), or the whole string as one class only "
    f"[default: {'--factored-feats' if TaggerOptions.factored_feats else '--whole-feats'} where the data has features]",
)
@family_option(
    "--pretrained",
    type=PRETRAINED,
    families=STACK + SEQ2SEQ + TAGGER + PIPELINE,
    help="word2vec text-format embeddings, or glove:N for the N most frequent words of the packaged GloVe table "
    "(pipeline: the taggers', and the parser's if --features names pretrained)",
)
@family_option(
    "--pretrained-by-name",
    is_flag=True,
    families=STACK + SEQ2SEQ + TAGGER + PIPELINE,
    help="with --pretrained glove:N: name the table, not store it (5.7 MB less a part); needs lstmparse[glove]",
)
@family_option(
    "--encoder",
    families=STACK + TAGGER + PIPELINE,
    help="a pretrained encoder whose word vectors in context the tagger reads (the parser too, if --features "
    f"names encoder): e5, or e5:LAYERS for the mean of those layers (0-12) [e5 is {DEFAULT_ENCODER}; needs "
    "pip install 'lstmparse[encoder]']",
)
@family_option(
    "--input-format",
    type=click.Choice(["conllu", "conllx"]),
    families=STACK + TREE,
    help=f"[default: {default_of(StackLSTMOptions, 'input_format')}]",
)
@family_option("--features", families=STACK + PIPELINE, help=f"{FEATURE_HELP} [default: {','.join(DEFAULT_FEATURES)}]")
@family_option(
    "--system",
    families=STACK + PIPELINE,
    help=f"transition system, stored in the model [default: {default_of(StackLSTMOptions, 'system')}]",
    type=click.Choice(list(SYSTEMS)),
)
@family_option(
    "--oracle",
    type=click.Choice(list(ORACLES)),
    families=STACK + PIPELINE,
    help="; ".join(
        f"{name}: {oracle.description} ({', '.join(n for n, system in SYSTEMS.items() if system.has_oracle(name))})"
        for name, oracle in ORACLES.items()
    )
    + f" [default: {default_of(StackLSTMOptions, 'oracle')}]",
)
@family_option(
    "--batching",
    type=click.Choice(list(BATCHING)),
    families=STACK + PIPELINE,
    help="; ".join(f"{name}: {text}" for name, text in BATCHING.items())
    + f" [default: {default_of(StackLSTMOptions, 'batching')}]",
)
@family_option(
    "--length-batches/--random-batches",
    default=None,
    families=STACK + PIPELINE,
    help="minibatches of sentences of similar length, in a random order (lock-step batches then take fewer "
    "steps), or of random sentences "
    f"[default: {'--length-batches' if default_of(StackLSTMOptions, 'length_batches') else '--random-batches'}]",
)
@family_option(
    "--optimizer",
    type=click.Choice(["sgd", "adam"]),
    families=STACK + PIPELINE,
    help="sgd: eta0 / (1 + decay * epoch) as in the papers; adam: Adam, its alpha decayed alike; "
    "both clip the gradient of a batch's summed loss at "
    f"{default_of(StackLSTMOptions, 'clip')} x sqrt(batch size) [default: {default_of(StackLSTMOptions, 'optimizer')}]",
)
@family_option(
    "--alpha",
    type=click.FloatRange(min=0),
    families=STACK + PIPELINE,
    help=f"explore with p^alpha [default: {default_of(StackLSTMOptions, 'alpha')}]",
)
@family_option(
    "--explore-p",
    type=click.FloatRange(0, 1),
    families=STACK + PIPELINE,
    help="probability of following a sampled action when exploring "
    f"[default: {default_of(StackLSTMOptions, 'explore_p')}]",
)
@family_option(
    "--explore-after",
    type=click.IntRange(min=0),
    families=STACK + PIPELINE,
    help=f"epochs before exploring [default: {default_of(StackLSTMOptions, 'explore_after')}]",
)
@family_option(
    "--pseudo-projective",
    is_flag=True,
    families=STACK + PIPELINE,
    help="train on projectivized trees, deprojectivize the output",
)
@family_option(
    "--context-layers",
    type=click.IntRange(min=0),
    families=STACK + PIPELINE,
    help="bi-LSTM layers over the token vectors before parsing (0: the papers' model) "
    f"[default: {StackLSTMDimensions().context_layers}]",
)
@family_option(
    "--joint-upos",
    is_flag=True,
    families=STACK + PIPELINE,
    help="the context bi-LSTM also learns to predict UPOS (needs --context-layers; not with the 'pos' feature)",
)
@family_option(
    "--objective",
    type=click.Choice(["nll", "nce"]),
    families=TREE,
    help="full softmax, or noise-contrastive estimation for large vocabularies "
    f"[default: {default_of(TreeLSTMOptions, 'objective')}]",
)
@family_option(
    "--min-count",
    type=click.IntRange(min=0),
    families=TREE,
    help=f"words seen at most this often become UNK [default: {default_of(TreeLSTMOptions, 'min_count')}]",
)
@family_option(
    "--layers",
    type=click.IntRange(min=1),
    families=TREE + SEQ2SEQ + TAGGER + TOKENIZER,
    help=f"LSTM depth [default: TreeLSTMs {TreeLSTMDimensions().layers}; seq2seq {Seq2SeqDimensions().layers}; "
    f"tagger {TaggerDimensions().layers}; tokenizer {TokenizerDimensions().layers}]",
)
@family_option(
    "--hidden",
    type=click.IntRange(min=1),
    families=TREE + SEQ2SEQ + TAGGER + TOKENIZER,
    help=f"LSTM size (bi-LSTMs: both directions) [default: TreeLSTMs {TreeLSTMDimensions().hidden}; "
    f"seq2seq {Seq2SeqDimensions().hidden}; tagger {TaggerDimensions().hidden}; "
    f"tokenizer {TokenizerDimensions().hidden}]",
)
@family_option(
    "--bidirectional",
    is_flag=True,
    families=SEQ2SEQ,
    help="encode with a forward LSTM too (the paper reads the input reversed only)",
)
@family_option(
    "--word-pointer",
    is_flag=True,
    families=SEQ2SEQ,
    help="feed the decoder the encoding of the next word to place, besides attention (not in the paper)",
)
@family_option(
    "--chars",
    "char_lstm",
    is_flag=True,
    families=SEQ2SEQ,
    help=f"add a character bi-LSTM's vector ({CHAR_LSTM_SIZE}) to each word's, for rare or unseen words "
    "(not in the paper)",
)
@family_option(
    "--parser",
    "parser_model",
    type=click.Path(exists=True, file_okay=False),
    families=PIPELINE,
    help="a parser trained before (or a pipeline with one): the pipeline takes it as it is, trains no parser and no "
    "jack-knife folds",
)
@family_option(
    "--tagger",
    "tagger_model",
    type=click.Path(exists=True, file_okay=False),
    families=PIPELINE,
    help="a tagger trained before (or a pipeline with one), taken as it is",
)
@family_option(
    "--tokenizer",
    "tokenizer_model",
    type=click.Path(exists=True, file_okay=False),
    families=PIPELINE,
    help="a tokenizer trained before (or a pipeline with one), taken as it is; with all three parts given, no "
    "--train is needed",
)
@family_option(
    "--jackknife",
    type=click.IntRange(min=2),
    families=PIPELINE,
    help="folds of the training set, each tagged by a tagger trained on the others, to train the parser on "
    f"[default: {default_of(PipelineOptions, 'jackknife')}]",
)
@family_option(
    "--taggers",
    type=click.IntRange(min=1),
    families=PIPELINE,
    help="taggers to train (seeds --seed, --seed + 1, ...); from 2 on, their ensemble tags (more accurate, "
    f"slower) [default: the recipe's; {default_of(PipelineOptions, 'taggers')} with --recipe none]",
)
@family_option(
    "--joint-member",
    is_flag=True,
    families=PIPELINE,
    help="also train a joint-UPOS parser (words and characters, one context bi-LSTM); the two parsers' ensemble "
    "parses, and UPOS is the likeliest under the mean of the tagger's and the joint parser's probabilities",
)
@family_option(
    "--cores",
    type=click.IntRange(min=1),
    families=PIPELINE,
    help="parts trained at once (as the farm trains them): --max-minutes is wall time on that many cores "
    f"[default: the recipe's; {default_of(PipelineOptions, 'cores')} with --recipe none]",
)
@family_option(
    "--part-option",
    "part_option",
    multiple=True,
    families=PIPELINE,
    help="PART.OPTION=VALUE: an option of train --arch PART for the pipeline's tagger or tokenizer (repeatable; "
    "tagger.hidden=200, tagger.factored_feats=false); a recipe's [tagger] and [tokenizer] tables",
)
@family_option(
    "--choice",
    "choice",
    multiple=True,
    families=PIPELINE,
    help="NAME=VALUE,...: a choice made on dev tried with only these of its values (repeatable; beam=1 decodes "
    "greedily); a recipe's [choices] table",
)
@clean_errors
def train(**given) -> None:
    """Train a model (the stack-LSTM parser, or another --arch); the best model on dev is kept in MODEL_DIR."""
    from lstmparse.core.model_io import check_training_directory

    started = time.time()
    ctx = click.get_current_context()
    recipe = recipe_of(given, was_given(ctx, "arch"))
    if recipe is not None and recipe.ensemble is not None:
        make_recipe_ensemble(recipe, given, [name for name in given if was_given(ctx, name)])
        return
    arch = given["arch"] = recipe.arch if recipe is not None else given["arch"]
    refuse_foreign_options(ctx, arch)
    check_training_directory(given["model_dir"], given["resume"], given["overwrite"])
    options_class = family(arch).options_class()
    memory_mb = given["memory_mb"] or options_class.DYNET_MEMORY_MB
    explicit = {name: value for name, value in given.items() if was_given(ctx, name)}
    pipeline_tables = parts_and_choices(explicit, recipe, ctx)
    from_command_line = dict(explicit)
    if recipe is not None:
        explicit = recipe_options(recipe, ctx) | explicit
    explicit |= pipeline_tables
    if explicit.get("epochs_of"):
        explicit = with_epochs_of(explicit, arch)
    check_pretrained_by_name(explicit)
    treebank, data_notes = training_files(explicit, given["model_dir"], arch)
    if explicit.get("half_precision") and arch in PIPELINE:
        data_notes.append(HALVED_PIPELINE)
    if recipe is not None and arch in PIPELINE:
        build_recipe_pipeline(recipe, explicit, treebank, data_notes, started)
        return
    stages = staged(recipe, explicit, from_command_line, ctx)
    options = options_class.from_command_line(explicit)
    configure_dynet(seed=options.seed, memory_mb=memory_mb, weight_decay=options_class.WEIGHT_DECAY, training=True)
    options, record = train_stages(arch, stages)
    write_training_card(arch, options, record, recipe, explicit, treebank, data_notes, started)
