"""Memory and start-up of every shipped model: files, resident memory after loading, peak on its test set (make
bench-memory).

    OMP_NUM_THREADS=1 taskset -c 0 python bench/memory.py [--models en_ewt_pipeline,en_gum_seq2seq] [--sentences N]
        [--outputs DIR]

Each figure comes from a fresh process, as a user meets it: ``load`` is the seconds and
resident MiB after ``lstmparse.load`` (DyNet's default 64 MB pool), ``peak`` the maximum
resident MiB of ``lstmparse parse`` on the model's test set (EWT test for dependency
models; raw text for pipelines, a language's from its own treebank; GUM test for
constituency models; ``lstmparse score`` of EWT test for TreeLSTMs), ``one sentence`` the
seconds and peak of parsing one sentence from the command line, model load included.
``--outputs DIR`` keeps what each model wrote for its test set (``DIR/<model>.out``): two
checkouts' files compared with ``cmp`` show that a change left every output as it was.
The issue's ceiling for the default pipeline is a 200 MiB peak and a 0.5 s load.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREELSTM_ARCHS = ("treelstm", "ldtreelstm")  # scored with `lstmparse score`, as they parse nothing
DATA = ROOT.parent / "shared" / "data"
LOAD = (
    "import json, resource, time\n"
    "start = time.time()\n"
    "import lstmparse\n"
    "lstmparse.load({model!r})\n"
    "seconds = time.time() - start\n"
    "rss = int(open('/proc/self/status').read().split('VmRSS:')[1].split()[0]) // 1024\n"
    "print(json.dumps({{'seconds': seconds, 'rss': rss}}))\n"
)


def peak_of(command: list[str], stdin: str | None = None, output: Path | None = None) -> tuple[float, float]:
    """Seconds and peak resident MiB of a command run in a process of its own (its own rusage, via wait4); its
    standard output goes to ``output`` if given."""
    start = time.time()
    stdout = output.open("wb") if output is not None else subprocess.DEVNULL
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=stdout, stderr=subprocess.PIPE)
    process.stdin.write((stdin or "").encode("utf-8"))
    process.stdin.close()
    _, status, usage = os.wait4(process.pid, 0)
    if output is not None:
        stdout.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(command)}: {process.stderr.read().decode()[-300:]}")
    return time.time() - start, usage.ru_maxrss / 1024  # KiB on Linux


def files_mb(model: str) -> float:
    from lstmparse.app.catalog import model_info, resolve_model

    return model_info(resolve_model(model)).size_mb


def test_input(model: str, sentences: int, folder: Path) -> list[str]:
    """``parse`` options reading the model's test input, cut to ``sentences`` sentences, written in ``folder``."""
    from lstmparse.app.catalog import resolve_model
    from lstmparse.core.model_io import CONSTITUENCY_ARCHS, model_arch, read_card

    arch = model_arch(resolve_model(model))
    if arch in CONSTITUENCY_ARCHS:
        lines = (DATA / "const" / "gum" / "test.ptb").read_text(encoding="utf-8").splitlines()[:sentences]
        path = folder / "test.ptb"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return ["--input-format", "ptb", "--input", str(path)]
    card = read_card(resolve_model(model))
    treebank = card.get("treebank") or card.get("data") or "en_ewt"  # a language's pipeline: its own test set
    if not (DATA / "ud" / treebank / "test.conllu").is_file():
        treebank = "en_ewt"
    blocks = (DATA / "ud" / treebank / "test.conllu").read_text(encoding="utf-8").split("\n\n")[:sentences]
    path = folder / "test.conllu"
    path.write_text("\n\n".join(blocks).rstrip("\n") + "\n\n", encoding="utf-8")
    if arch == "pipeline":  # each sentence's text: its ``# text``, else its words as SpaceAfter=No joins them
        from lstmparse.io.formats import read_sentences

        text = folder / "test.txt"
        text.write_text("".join(sentence.text + "\n" for sentence in read_sentences(str(path))), encoding="utf-8")
        return ["--input-format", "raw", "--input", str(text)]
    if arch in TREELSTM_ARCHS:  # a tree language model scores the test trees
        return [str(path)]
    return ["--input", str(path)]


def measure(model: str, sentences: int, outputs: Path | None = None) -> dict:
    """One model's figures, each from a fresh process."""
    load = subprocess.run([sys.executable, "-c", LOAD.format(model=model)], capture_output=True, text=True, check=True)
    loaded = json.loads(load.stdout)
    from lstmparse.app.catalog import resolve_model
    from lstmparse.core.model_io import model_arch

    with tempfile.TemporaryDirectory() as scratch:
        command = ["score"] if model_arch(resolve_model(model)) in TREELSTM_ARCHS else ["parse", "--quiet"]
        parse = [sys.executable, "-m", "lstmparse", *command, "--model", model]
        output = outputs / f"{model}.out" if outputs is not None else None
        parse_seconds, peak = peak_of([*parse, *test_input(model, sentences, Path(scratch))], output=output)
        one_seconds, one_peak = peak_of([*parse, *test_input(model, 1, Path(scratch))])
    return {
        "model": model,
        "files_mb": round(files_mb(model), 1),
        "load_seconds": round(loaded["seconds"], 2),
        "rss_after_load_mib": loaded["rss"],
        "peak_mib": round(peak),
        "parse_seconds": round(parse_seconds, 1),
        "one_sentence_seconds": round(one_seconds, 2),
        "one_sentence_peak_mib": round(one_peak),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", help="comma-separated names [default: every shipped model]")
    parser.add_argument("--sentences", type=int, default=100_000, help="at most this many test sentences")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--outputs", type=Path, help="keep each model's output on its test set here (<model>.out)")
    args = parser.parse_args()
    from lstmparse.app.catalog import available_models

    names = args.models.split(",") if args.models else [m.name for m in available_models()]
    rows = []
    print(
        "| model | files MB | load s | RSS after load MiB | peak on its test set MiB | parse s | one sentence s, MiB |"
    )
    print("|---|---|---|---|---|---|---|")
    if args.outputs:
        args.outputs.mkdir(parents=True, exist_ok=True)
    for name in names:
        try:
            row = measure(name, args.sentences, args.outputs)
        except RuntimeError as error:  # a model that fails is a row saying so; the others are still measured
            rows.append({"model": name, "error": str(error).splitlines()[-1][-300:]})
            print(f"| {name} | failed: {rows[-1]['error']} |", flush=True)
            continue
        rows.append(row)
        print(
            f"| {name} | {row['files_mb']} | {row['load_seconds']} | {row['rss_after_load_mib']} | {row['peak_mib']} "
            f"| {row['parse_seconds']} | {row['one_sentence_seconds']}, {row['one_sentence_peak_mib']} |",
            flush=True,
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
