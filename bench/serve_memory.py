"""Resident memory of `lstmparse serve` over a bounded run of requests (make bench-serve).

    python bench/serve_memory.py [--model en_ewt_pipeline] [--workers 2] [--requests 1000]

Starts the service on 127.0.0.1 (a free port, nothing else is contacted), sends
``--requests`` POST /process requests one after another, each a different EWT dev
paragraph of raw text to tokenize, tag and parse (UDPipe 2's REST parameters), and
prints the summed resident memory of the server and its worker processes after the
workers have started and every 200 requests.  The issue's ceiling: 2 workers and the
default model within 500 MiB after 1,000 requests, and no growth from request 200 on.
"""

from __future__ import annotations

import argparse
import json
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT.parent / "shared" / "data" / "ud" / "en_ewt" / "dev.conllu"
EVERY = 200


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def tree_rss_mib(pid: int) -> float:
    """The resident MiB of a process and all its descendants."""
    process = psutil.Process(pid)
    members = [process, *process.children(recursive=True)]
    return sum(member.memory_info().rss for member in members) / 2**20


def paragraphs(count: int) -> list[str]:
    """``count`` texts of EWT dev, three sentences each (repeated from the start when dev runs out)."""
    texts = [
        line[len("# text = ") :]
        for line in DEV.read_text(encoding="utf-8").splitlines()
        if line.startswith("# text = ")
    ]
    groups = [" ".join(texts[i : i + 3]) for i in range(0, len(texts) - 2, 3)]
    return [groups[k % len(groups)] for k in range(count)]


def post(port: int, model: str, text: str) -> dict:
    body = urllib.parse.urlencode({"model": model, "tokenizer": "", "tagger": "", "parser": "", "data": text})
    request = urllib.request.Request(f"http://127.0.0.1:{port}/process", data=body.encode("utf-8"))
    with urllib.request.urlopen(request, timeout=120) as answer:
        return json.loads(answer.read())


def wait_until_up(port: int, server: subprocess.Popen, deadline_seconds: float = 120) -> None:
    deadline = time.time() + deadline_seconds
    while time.time() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server stopped: {server.stderr.read().decode()[-500:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/models", timeout=5):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the server did not answer within two minutes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="en_ewt_pipeline")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    port = free_port()
    command = [sys.executable, "-m", "lstmparse", "serve", "--model", args.model, "--workers", str(args.workers)]
    server = subprocess.Popen([*command, "--host", "127.0.0.1", "--port", str(port)], stderr=subprocess.PIPE)
    rows = []
    try:
        wait_until_up(port, server)
        texts = paragraphs(args.requests)
        with ThreadPoolExecutor(args.workers) as clients:  # requests at once, so every worker starts and loads
            list(clients.map(lambda text: post(port, args.model, text), texts[: 2 * args.workers]))
        rows.append({"requests": 0, "rss_mib": round(tree_rss_mib(server.pid))})
        started = time.time()
        for number, text in enumerate(texts, start=1):
            if not post(port, args.model, text)["result"].strip():
                raise RuntimeError(f"request {number}: an empty answer")
            if number % EVERY == 0 or number == args.requests:
                rows.append({"requests": number, "rss_mib": round(tree_rss_mib(server.pid))})
                print(f"{number} requests, {rows[-1]['rss_mib']} MiB", file=sys.stderr, flush=True)
        seconds = time.time() - started
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=60)
    print(
        f"`lstmparse serve --model {args.model} --workers {args.workers}`, {args.requests} requests in {seconds:.1f} s"
    )
    print("\n| requests | server and workers, RSS MiB |\n|---|---|")
    for row in rows:
        print(f"| {row['requests']} | {row['rss_mib']} |")
    if args.json:
        args.json.write_text(
            json.dumps({"seconds": round(seconds, 1), "rows": rows}, indent=1) + "\n", encoding="utf-8"
        )


if __name__ == "__main__":
    main()
