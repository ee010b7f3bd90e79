"""Corpus parsing throughput: ``lstmparse parse-corpus`` with 1 and 2 local workers and a 2-worker Dask cluster.

    python bench/corpus.py --treebank ../shared/data/ud/en_ewt/train.conllu --shards 8

The treebank is cut into ``--shards`` shards.  For each engine the bench reports the
time of the whole run, sentences per second, the start-up cost (a run on a
one-sentence shard: processes started, model loaded) and the peak memory of the
whole process tree (the sum of the resident sizes of this process and all its
descendants, sampled every 0.25 s: for Dask that includes the scheduler, nannies
and workers).  Every engine's outputs must equal the first engine's.  Each engine
runs ``--repeats`` times, interleaved; the median time is reported.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_SECONDS = 0.25  # reading /proc costs CPU that the workers would miss on a small machine
PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--treebank", required=True)
    options.add_argument("--model", default=str(ROOT / "models" / "en_ewt"))
    options.add_argument("--shards", type=int, default=8)
    options.add_argument("--repeats", type=int, default=3, help="runs of each engine; the median is reported")
    options.add_argument("--json", help="also write the figures to this file")
    args = options.parse_args()

    with tempfile.TemporaryDirectory(prefix="lstmparse-corpus-bench-") as folder:
        measure(args, Path(folder))


def measure(args: argparse.Namespace, work: Path) -> None:
    """Run every engine on the shards cut into ``work``; print the table (and write the JSON)."""
    shards = cut(Path(args.treebank), work / "shards", args.shards)
    tiny = cut_first_sentence(Path(args.treebank), work / "tiny")
    sentences = sum(text.count("\n\n") for text in (p.read_text(encoding="utf-8") for p in shards))
    runs: dict[str, list[tuple[float, float, float]]] = {}
    reference = None
    for _ in range(args.repeats):  # engines interleaved, so that a slow spell of the machine hits them all
        for name, engine in engines():
            with engine() as extra:
                startup = run(args.model, [tiny], work / "tiny-out", extra)[0]
                seconds, peak_mib = run(args.model, shards, work / "out", extra)
            outputs = {p.name: p.read_bytes() for p in (work / "out").iterdir()}
            reference = reference or outputs
            if outputs != reference:
                raise SystemExit(f"{name}: the outputs differ from the first engine's")
            runs.setdefault(name, []).append((seconds, startup, peak_mib))
            shutil.rmtree(work / "out")
            shutil.rmtree(work / "tiny-out")
    rows = []
    for name, measured in runs.items():
        seconds = statistics.median(m[0] for m in measured)
        rows.append(
            {
                "engine": name,
                "seconds": round(seconds, 1),
                "seconds_range": [round(min(m[0] for m in measured), 1), round(max(m[0] for m in measured), 1)],
                "sentences_per_second": round(sentences / seconds, 1),
                "startup_seconds": round(statistics.median(m[1] for m in measured), 2),
                "peak_tree_mib": round(max(m[2] for m in measured)),
            }
        )
    one = rows[0]["sentences_per_second"]
    print(f"{sentences} sentences in {len(shards)} shards, model {args.model}, median of {args.repeats} runs\n")
    print("| engine | seconds (range) | sentences/s | speed-up | start-up s | peak MiB (process tree) |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        row["speedup"] = round(row["sentences_per_second"] / one, 2)
        print(
            f"| {row['engine']} | {row['seconds']} ({row['seconds_range'][0]}-{row['seconds_range'][1]}) | "
            f"{row['sentences_per_second']} | {row['speedup']}x | {row['startup_seconds']} | {row['peak_tree_mib']} |"
        )
    if args.json:
        Path(args.json).write_text(json.dumps({"sentences": sentences, "rows": rows}, indent=2) + "\n")


def engines():
    """(name, context manager giving the extra command-line arguments) for each engine measured."""
    from contextlib import contextmanager

    @contextmanager
    def local(workers: int):
        yield ["--workers", str(workers)]

    @contextmanager
    def dask_cluster():
        from distributed import LocalCluster

        start = time.time()
        cluster = LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        )
        print(f"Dask cluster (scheduler + 2 workers) started in {time.time() - start:.1f} s", file=sys.stderr)
        try:
            yield ["--scheduler", cluster.scheduler_address]
        finally:
            cluster.close()

    return [
        ("local, 1 worker", lambda: local(1)),
        ("local, 2 workers", lambda: local(2)),
        ("Dask, 2 workers", dask_cluster),
    ]


def run(model: str, shards: list[Path], output_dir: Path, extra: list[str]) -> tuple[float, float]:
    """(seconds, peak MiB of the process tree) of one parse-corpus run."""
    command = [sys.executable, "-m", "lstmparse", "parse-corpus", "--model", model, "--quiet"]
    command += [*extra, *map(str, shards), "--output-dir", str(output_dir)]
    peak = [0]
    done = threading.Event()
    sampler = threading.Thread(target=sample_tree_rss, args=(done, peak), daemon=True)
    sampler.start()
    start = time.time()
    subprocess.run(command, check=True, cwd=ROOT)
    seconds = time.time() - start
    done.set()
    sampler.join()
    return seconds, peak[0] / 1024


def sample_tree_rss(done: threading.Event, peak: list[int]) -> None:
    while not done.is_set():
        peak[0] = max(peak[0], tree_rss_kib(os.getpid()))
        time.sleep(SAMPLE_SECONDS)


def tree_rss_kib(root: int) -> int:
    """Resident KiB of ``root`` and all its descendants."""
    parents, rss = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        rss[int(entry.name)] = int(fields[21]) * PAGE_KIB
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo.extend(child for child, parent in parents.items() if parent == pid)
    return total


def cut(treebank: Path, folder: Path, shards: int) -> list[Path]:
    blocks = [b for b in treebank.read_text(encoding="utf-8").split("\n\n") if b.strip()]
    folder.mkdir(parents=True)
    size = -(-len(blocks) // shards)
    paths = []
    for k in range(shards):
        path = folder / f"shard{k}.conllu"
        path.write_text("\n\n".join(blocks[k * size : (k + 1) * size]) + "\n\n", encoding="utf-8")
        paths.append(path)
    return paths


def cut_first_sentence(treebank: Path, folder: Path) -> Path:
    folder.mkdir(parents=True)
    path = folder / "one.conllu"
    path.write_text(treebank.read_text(encoding="utf-8").split("\n\n")[0] + "\n\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    main()
