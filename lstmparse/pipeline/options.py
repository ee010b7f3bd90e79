"""What a pipeline is trained with, free of DyNet."""

from __future__ import annotations

from dataclasses import dataclass, field

from lstmparse.core.options import RunOptions, common_values, given_fields
from lstmparse.stacklstm.options import DEFAULT_FEATURES, StackLSTMOptions, parse_features


@dataclass
class PipelineOptions(RunOptions):
    """A pipeline's data and the parts' shared settings (``epochs`` per part; ``max_minutes`` the whole's).

    ``batch_size``, ``learning_rate`` and ``dropout`` are the parser's (in ``parser``);
    the tokenizer and tagger train with their families' defaults.  ``choose`` names
    the parser settings (``features``, ``system``) the recipe chooses from the data.
    """

    epochs: int = 0  # 0: each family's default
    jackknife: int = 4  # folds of the training set, each tagged by a tagger trained on the others
    taggers: int = 1  # taggers of seeds seed, seed + 1, ... whose ensemble tags (tagger/ensemble.py); 1: one tagger
    parser: StackLSTMOptions | None = None  # the parser's settings (its features should include pos)
    pretrained: str | None = None  # word2vec text file for the taggers (and the parser, if its features name it)
    encoder: str | None = None  # the pretrained encoder the taggers read (and the parser: the recipe adds the feature)
    joint_member: bool = False  # also a joint-UPOS parser (words, characters); the two parsers' ensemble parses
    half_precision: bool = False  # parameters stored as float16 before the choices made on dev
    pretrained_by_name: bool = False  # every part names the packaged --pretrained table rather than storing it
    cores: int = 1  # the parts trained at once (the farm's workers): the budget is minutes of wall time on them
    part_options: dict[str, dict] = field(default_factory=dict)  # "tagger"/"tokenizer": train --arch PART's options
    resume: bool = False  # reuse the parts (and jack-knifed data) already in model_dir that match this run
    choose: tuple[str, ...] = ()  # parser settings chosen from the training data (lstmparse.pipeline.recipe)
    given_parts: dict[str, str] = field(default_factory=dict)  # parts already trained: copied, not trained
    choice_grids: dict[str, tuple[float, ...]] = field(default_factory=dict)  # choices on dev narrowed (--choice)

    @classmethod
    def from_command_line(cls, given: dict) -> PipelineOptions:
        """The pipeline's data and shared settings; the stack-LSTM options given are the parser's."""
        parser_given = {name: value for name, value in given.items() if name != "resume"}
        if "pretrained" not in parse_features(given.get("features", ",".join(DEFAULT_FEATURES))):
            parser_given.pop("pretrained", None)  # the taggers' vectors; the parser reads them only when asked
        parser_given.setdefault("train_file", "")  # every part given: nothing to train on
        parser = StackLSTMOptions.from_command_line(parser_given | {"model_dir": ""})
        values = common_values(given) | given_fields(given, "jackknife", "taggers", "pretrained", "resume", "encoder")
        values |= given_fields(given, "joint_member", "half_precision", "pretrained_by_name", "cores", "part_options")
        values |= given_fields(given, "choice_grids")
        if values.get("encoder"):
            from lstmparse.layers.encoders import canonical_spec

            values["encoder"] = canonical_spec(str(values["encoder"]))
        choose = tuple(name for name in ("features", "system") if name not in given)
        parts = {
            part: str(given[f"{part}_model"])
            for part in ("parser", "tagger", "tokenizer")
            if given.get(f"{part}_model")
        }
        values.setdefault("train", "")  # every part given: nothing to train on
        return cls(**values, parser=parser, choose=choose, given_parts=parts)
