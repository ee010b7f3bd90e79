"""Training and parsing speed on a GPU against one CPU core, and whether both give the same trees.

    # DyNet built with CUDA (make dynet-gpu), one GPU:
    python bench/gpu.py --device gpu --out runs/gpu
    # the CPU-only dyNET38 wheel, one core, at the same time or after:
    OMP_NUM_THREADS=1 taskset -c 1 python bench/gpu.py --device cpu --out runs/cpu
    # the models each one trained, parsed by the other; then the table:
    OMP_NUM_THREADS=1 taskset -c 1 python bench/gpu.py --device cpu --out runs/cpu --cross runs/gpu
    python bench/gpu.py --device gpu --out runs/gpu --cross runs/cpu
    python bench/gpu.py --compare runs/gpu runs/cpu

Rows, each in its own process (DyNet is configured once per process):

* ``parse-stacklstm``: ``models/en_ewt`` parses EWT test (gold tokens) in lock-step
  batches of 1 and 32 sentences;
* ``parse-seq2seq``: ``models/en_gum_seq2seq`` parses GUM test greedily and the first
  ``--beam-trees`` trees at beam 10;
* ``train-stacklstm`` / ``train-seq2seq``: one epoch of ``lstmparse train`` on the first
  ``--train-sentences`` sentences (``models/en_ewt``'s features, lock-step batches of
  16; the seq2seq parser's defaults), the model then parsing the first
  ``--dev-sentences`` dev sentences.

``--cross OTHER`` parses those dev sentences with the models trained in OTHER, so a
model trained on the GPU is read and run on the CPU and the other way round;
``--compare`` counts the sentences whose trees differ between the two devices' outputs
of each model.  Speeds are wall-clock: a GPU's work is asynchronous, and DyNet waits
for it whenever a value is read, as every decoder step does.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
ROWS = ("parse-stacklstm", "parse-seq2seq", "train-stacklstm", "train-seq2seq")
TRAINED = {"train-stacklstm": "stacklstm", "train-seq2seq": "seq2seq"}


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    options.add_argument("--out", help="folder for this device's outputs, models and figures")
    options.add_argument("--ewt", default=str(SHARED / "ud" / "en_ewt"))
    options.add_argument("--gum", default=str(SHARED / "const" / "gum"))
    options.add_argument("--rows", default=",".join(ROWS))
    options.add_argument("--train-sentences", type=int, default=1000)
    options.add_argument("--dev-sentences", type=int, default=200)
    options.add_argument("--beam-trees", type=int, default=300, help="GUM test trees parsed at beam 10")
    options.add_argument("--cross", help="another device's --out: parse the dev sentences with its models")
    options.add_argument("--compare", nargs=2, metavar=("GPU_OUT", "CPU_OUT"))
    options.add_argument("--worker", help=argparse.SUPPRESS)
    options.add_argument("--model", help=argparse.SUPPRESS)
    options.add_argument("--prefix", help=argparse.SUPPRESS)
    args = options.parse_args()
    if args.compare:
        print(markdown(compare(*args.compare)))
        return
    if not args.out:
        options.error("--out is required")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.worker:
        print(json.dumps(run_worker(args, out)))
        return
    rows = [f"cross-{row}" for row in TRAINED] if args.cross else args.rows.split(",")
    figures = {row: run_row(args, row) for row in rows}
    name = "cross.json" if args.cross else "figures.json"
    (out / name).write_text(json.dumps({"device": args.device, "rows": figures}, indent=2) + "\n")
    print(json.dumps(figures, indent=2))


def run_row(args, row: str) -> dict:
    """One row in a fresh process, with this process's core pinning and environment."""
    print(f"{args.device}: {row}", file=sys.stderr, flush=True)
    extra = ["--train-sentences", str(args.train_sentences), "--beam-trees", str(args.beam_trees)]
    try:
        return _worker(args, row, extra + (["--cross", args.cross] if args.cross else []))
    except subprocess.CalledProcessError as failure:
        return {"failed": failure.stderr.strip().splitlines()[-20:]}


def _worker(args, row: str, extra: list[str]) -> dict:
    """This script as a worker process for ``row``: the figures it prints last, as JSON."""
    command = [sys.executable, __file__, "--worker", row, "--device", args.device, "--out", args.out]
    command += ["--ewt", args.ewt, "--gum", args.gum, "--dev-sentences", str(args.dev_sentences), *extra]
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def run_worker(args, out: Path) -> dict:
    row = args.worker
    if row in TRAINED:
        return train_row(args, out, row)
    from lstmparse.core import backend

    backend.configure(seed=1, memory_mb=512, gpus=int(args.device == "gpu"))
    if row == "parse-stacklstm":
        return parse_stacklstm(args, out)
    if row == "parse-seq2seq":
        return parse_seq2seq(args, out)
    if row.startswith("dev-"):
        return parse_dev(args, Path(args.model), Path(args.prefix), row.removeprefix("dev-"))
    if row.startswith("cross-"):
        source = row.removeprefix("cross-")
        return parse_dev(args, Path(args.cross) / source, out / row, TRAINED[source])
    raise SystemExit(f"unknown row {row}")


def parse_stacklstm(args, out: Path) -> dict:
    from lstmparse.io.document import sentences_text
    from lstmparse.io.formats import read_treebank
    from lstmparse.scoring.evaluation import score_sentences
    from lstmparse.stacklstm.api import Parser

    parser, load_seconds = _timed(lambda: Parser.load(str(ROOT / "models" / "en_ewt")))
    gold = read_treebank(str(Path(args.ewt) / "test.conllu"))
    figures = {"model_load_seconds": round(load_seconds, 2), "sentences": len(gold)}
    for batch in (1, 32):
        parsed, seconds = _timed(lambda batch=batch: list(parser.parse(gold, batch_size=batch)))
        figures[f"batch{batch}_sentences_per_second"] = round(len(gold) / seconds, 1)
        figures[f"batch{batch}_LAS"] = round(score_sentences(gold, parsed).las, 2)
        _write(out / f"en_ewt.test.batch{batch}.conllu", sentences_text(parsed))
    return {**figures, "peak_rss_mib": _rss_mib()}


def parse_seq2seq(args, out: Path) -> dict:
    from lstmparse.io.ptb import read_ptb
    from lstmparse.scoring.evalb import score_bracketings
    from lstmparse.seq2seq.api import ConstituencyParser

    parser, load_seconds = _timed(lambda: ConstituencyParser.load(str(ROOT / "models" / "en_gum_seq2seq")))
    gold = read_ptb(Path(args.gum) / "test.ptb")
    figures = {"model_load_seconds": round(load_seconds, 2)}
    for beam, trees in ((1, gold), (10, gold[: args.beam_trees])):
        parsed, seconds = _timed(lambda trees=trees, beam=beam: list(parser.parse(trees, beam)))
        figures[f"beam{beam}_sentences"] = len(trees)
        figures[f"beam{beam}_sentences_per_second"] = round(len(trees) / seconds, 1)
        figures[f"beam{beam}_F1"] = round(score_bracketings(trees, [p.tree for p in parsed]).f1, 2)
        _write(out / f"en_gum_seq2seq.test.beam{beam}.ptb", "".join(p.to_bracketed() + "\n" for p in parsed))
    return {**figures, "peak_rss_mib": _rss_mib()}


def train_row(args, out: Path, row: str) -> dict:
    """One epoch of ``lstmparse train`` on a slice of the training set, then the dev slice parsed."""
    arch = TRAINED[row]
    train, dev = _slices(args, out, arch)
    model = out / row
    command = [sys.executable, "-m", "lstmparse"] + (["--gpu"] if args.device == "gpu" else [])
    command += ["train", "--arch", arch, "--train", str(train), "--dev", str(dev), "--model-dir", str(model)]
    command += ["--epochs", "1", "--seed", "1", "--overwrite"]
    if arch == "stacklstm":
        command += ["--features", "words,chars", "--system", "arc-hybrid", "--batch-size", "16"]
        command += ["--batching", "lockstep"]
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    epoch = json.loads((model / "config.json").read_text())["training"]["epochs"][0]
    loss = epoch.get("loss_per_action", epoch.get("loss_per_token"))
    return {
        "train_sentences": epoch["sentences"],
        "train_seconds": epoch["train_seconds"],
        "train_sentences_per_second": epoch["sentences_per_second"],
        "loss": round(loss, 6),
        "dev_seconds": epoch["dev_seconds"],
        "process_seconds": round(wall, 1),
        **parse_dev_in_process(args, model, out / row, arch),
    }


def parse_dev_in_process(args, model: Path, prefix: Path, arch: str) -> dict:
    """``parse_dev`` in its own process: DyNet is configured there for this device."""
    return _worker(args, f"dev-{arch}", ["--model", str(model), "--prefix", str(prefix)])


def parse_dev(args, model: Path, prefix: Path, arch: str) -> dict:
    """The dev slice parsed by ``model``; written beside ``prefix`` for --compare."""
    if arch == "stacklstm":
        from lstmparse.io.document import sentences_text
        from lstmparse.io.formats import read_treebank
        from lstmparse.stacklstm.api import Parser

        gold = read_treebank(str(Path(args.ewt) / "dev.conllu"))[: args.dev_sentences]
        parser = Parser.load(str(model))
        parsed, seconds = _timed(lambda: list(parser.parse(gold)))
        _write(prefix.with_suffix(".dev.conllu"), sentences_text(parsed))
    else:
        from lstmparse.io.ptb import read_ptb
        from lstmparse.seq2seq.api import ConstituencyParser

        gold = read_ptb(Path(args.gum) / "dev.ptb")[: args.dev_sentences]
        parser = ConstituencyParser.load(str(model))
        parsed, seconds = _timed(lambda: list(parser.parse(gold, 1)))
        _write(prefix.with_suffix(".dev.ptb"), "".join(p.to_bracketed() + "\n" for p in parsed))
    return {"dev_sentences": len(gold), "dev_parse_seconds": round(seconds, 2)}


def _slices(args, out: Path, arch: str) -> tuple[Path, Path]:
    """The first sentences of the training and dev sets, as files the trainer reads."""
    if arch == "stacklstm":
        source, suffix, separator = Path(args.ewt), ".conllu", "\n\n"
    else:
        source, suffix, separator = Path(args.gum), ".ptb", "\n"
    paths = []
    for part, count in (("train", args.train_sentences), ("dev", args.dev_sentences)):
        blocks = (source / f"{part}{suffix}").read_text(encoding="utf-8").strip().split(separator)
        path = out / f"{arch}-{part}{suffix}"
        _write(path, separator.join(blocks[:count]) + separator)
        paths.append(path)
    return paths[0], paths[1]


def compare(gpu_out: str, cpu_out: str) -> dict:
    """Figures of both devices, and the dev and test sentences whose trees differ between them."""
    gpu, cpu = Path(gpu_out), Path(cpu_out)
    result = {"gpu": _figures(gpu), "cpu": _figures(cpu), "differences": {}}
    pairs = [(name, gpu / name, cpu / name) for name in sorted(p.name for p in gpu.glob("en_*.test.*"))]
    for row in TRAINED:
        for suffix in (".dev.conllu", ".dev.ptb"):
            name = f"{row}{suffix}"
            if (gpu / name).exists():
                pairs.append((f"{row} (GPU-trained) on GPU / CPU", gpu / name, cpu / f"cross-{name}"))
                pairs.append((f"{row} (CPU-trained) on CPU / GPU", cpu / name, gpu / f"cross-{name}"))
    for name, first, second in pairs:
        if first.exists() and second.exists():
            result["differences"][name] = _differing(first, second)
    return result


def _differing(first: Path, second: Path) -> str:
    separator = "\n\n" if first.suffix == ".conllu" else "\n"
    a = first.read_text(encoding="utf-8").strip().split(separator)
    b = second.read_text(encoding="utf-8").strip().split(separator)
    common = min(len(a), len(b))
    differing = sum(a[i] != b[i] for i in range(common)) + abs(len(a) - len(b))
    return f"{differing} of {len(a)} differ"


def _figures(out: Path) -> dict:
    path = out / "figures.json"
    return json.loads(path.read_text())["rows"] if path.exists() else {}


def markdown(result: dict) -> str:
    lines = ["| row | figure | GPU | one CPU core |", "|---|---|---|---|"]
    for row in ROWS:
        gpu, cpu = result["gpu"].get(row, {}), result["cpu"].get(row, {})
        for key in sorted(set(gpu) | set(cpu)):
            lines.append(f"| {row} | {key} | {gpu.get(key, '')} | {cpu.get(key, '')} |")
    lines += ["", "| output | trees |", "|---|---|"]
    lines += [f"| {name} | {value} |" for name, value in result["differences"].items()]
    return "\n".join(lines)


def _timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def _rss_mib() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


if __name__ == "__main__":
    main()
