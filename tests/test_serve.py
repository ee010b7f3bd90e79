"""`lstmparse serve`: UDPipe 2's REST API over plain HTTP, limits, concurrency, and the page in a real browser."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import ROOT

from lstmparse.io.formats import sentences_from_text

TEXT = "Dogs don't bark. The cat sat on the mat."


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A service of the default pipeline, the UPOS parser and the constituency model, two workers."""
    port = free_port()
    command = [sys.executable, "-m", "lstmparse", "serve", "--port", str(port), "--workers", "2", "--max-chars", "5000"]
    command += ["--model", "en_ewt_pipeline", "--model", "en_ewt_upos", "--model", "en_gum_seq2seq"]
    log = tmp_path_factory.mktemp("serve") / "stderr"
    with open(log, "w") as stderr:
        process = subprocess.Popen(command, stderr=stderr, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while True:
        try:
            urllib.request.urlopen(f"{base}/models", timeout=5).read()
            break
        except OSError:
            assert process.poll() is None and time.time() < deadline, log.read_text()
            time.sleep(0.3)
    yield base, process, log
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)


def call(base: str, path: str, params: dict | None = None, post: bool = False) -> tuple[int, str]:
    """(HTTP status, body) of a GET with a query string or a URL-encoded POST."""
    encoded = urllib.parse.urlencode(params or {})
    if post:
        request = urllib.request.Request(f"{base}{path}", data=encoded.encode())
    else:
        request = urllib.request.Request(f"{base}{path}?{encoded}")
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def multipart(base: str, fields: dict[str, str]) -> tuple[int, str]:
    """A multipart/form-data POST, as UDPipe's own client sends a file."""
    boundary = "lstmparse-test-boundary"
    body = "".join(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n' for k, v in fields.items()
    )
    body += f"--{boundary}--\r\n"
    request = urllib.request.Request(
        f"{base}/process", data=body.encode(), headers={"Content-Type": f"multipart/form-data; boundary={boundary}"}
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        return response.status, response.read().decode()


def test_models_lists_each_model_with_its_stages(server):
    base, _, _ = server
    status, body = call(base, "/models")
    assert status == 200
    listed = json.loads(body)
    assert listed["default_model"] == "en_ewt_pipeline"
    assert listed["models"] == {
        "en_ewt_pipeline": ["tokenizer", "tagger", "parser"],
        "en_ewt_upos": ["parser"],
        "en_gum_seq2seq": ["tokenizer", "parser"],
    }


def test_raw_text_through_all_three_stages_as_the_cli_parses_it(server):
    base, _, _ = server
    status, body = multipart(base, {"tokenizer": "", "tagger": "", "parser": "", "data": TEXT})
    assert status == 200
    answer = json.loads(body)
    assert answer["model"] == "en_ewt_pipeline" and answer["acknowledgements"]
    cli = subprocess.run(
        [sys.executable, "-m", "lstmparse", "parse", "--input-format", "raw", "--retag", "--quiet"],
        input=TEXT,
        capture_output=True,
        text=True,
    )
    assert answer["result"] == cli.stdout  # UDPipe's tagger replaces tags, as --retag does


def test_conllu_through_the_parser_alone(server):
    base, _, _ = server
    tagged = (ROOT / "data" / "sample.trees.conllu").read_text(encoding="utf-8")
    status, body = call(base, "/process", {"model": "en_ewt_upos", "parser": "", "data": tagged}, post=True)
    assert status == 200
    parsed = sentences_from_text(json.loads(body)["result"])
    given = sentences_from_text(tagged)
    assert [s.forms for s in parsed] == [s.forms for s in given]
    assert [[t.upos for t in s.tokens] for s in parsed] == [[t.upos for t in s.tokens] for s in given]
    status, body = call(base, "/process", {"model": "en_ewt_up", "parser": "", "data": tagged, "output": "json"})
    records = [json.loads(line) for line in json.loads(body)["result"].splitlines()]
    assert status == 200 and [r["text"] for r in records] == [s.text for s in given]  # a model name's prefix


def test_horizontal_and_vertical_input_and_output(server):
    base, _, _ = server
    params = {
        "tagger": "",
        "parser": "",
        "input": "horizontal",
        "output": "vertical",
        "data": "Dogs bark .\nIt rains .\n",
    }
    status, body = call(base, "/process", params)
    assert status == 200 and json.loads(body)["result"] == "Dogs\nbark\n.\n\nIt\nrains\n.\n\n"
    params = {"tagger": "", "input": "vertical", "output": "horizontal", "data": "Dogs\nbark\n.\n\nIt\nrains\n.\n"}
    assert json.loads(call(base, "/process", params)[1])["result"] == "Dogs bark .\nIt rains .\n"


def test_a_constituency_model_answers_with_its_trees(server):
    base, _, _ = server
    status, body = call(base, "/process", {"model": "en_gum_seq2seq", "tokenizer": "", "parser": "", "data": TEXT})
    assert status == 200
    parsed = sentences_from_text(json.loads(body)["result"])
    assert len(parsed) == 2 and all(s.metadata["constituency"].startswith("(ROOT") for s in parsed)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"model": "nope", "data": "x"}, "Unknown model 'nope'"),
        ({"model": "en_ewt_upos", "tokenizer": "", "data": "x"}, "has no tokenizer"),
        ({"input": "xml", "parser": "", "data": "x"}, "Unknown input format 'xml'"),
        ({"output": "xml", "parser": "", "data": "x"}, "Unknown output format 'xml'"),
        ({"parser": "", "data": "1\tDogs\n"}, "data:1:"),
        ({"parser": "", "data": "Dogs bark."}, "give tokenizer= (running text) or input=horizontal"),
        ({"model": "en_ewt_upos", "parser": "", "input": "horizontal", "data": "Dogs bark ."}, "UPOS column is empty"),
        ({"tokenizer": "", "data": "x" * 5001}, "at most 5000"),
        ({"tokenizer": "", "data": "x" * 100_000}, "this server takes data of at most 5000 characters"),
    ],
)
def test_bad_requests_are_http_400_with_a_plain_message(server, params, message):
    base, _, _ = server
    status, body = call(base, "/process", params, post=True)
    assert status == 400 and message in body and "Traceback" not in body
    assert len(body.strip().splitlines()) == 1
    assert "--" not in body  # REST parameters, never command-line options


def test_concurrent_clients_get_their_own_answers(server):
    base, _, _ = server
    texts = [f"Sentence number {k} is here." for k in range(12)]

    def parse(text: str) -> str:
        status, body = call(base, "/process", {"tokenizer": "", "tagger": "", "parser": "", "data": text}, post=True)
        assert status == 200
        return json.loads(body)["result"]

    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(parse, texts))
    for text, result in zip(texts, results, strict=True):
        assert sentences_from_text(result)[0].text == text


def test_an_address_in_use_is_one_line(server):
    base, _, _ = server
    port = base.rsplit(":", 1)[1]
    result = subprocess.run(
        [sys.executable, "-m", "lstmparse", "serve", "--port", port], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2 and f"--port {port}: cannot listen there" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_ctrl_c_stops_the_service_and_its_workers(tmp_path):
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "lstmparse", "serve", "--port", str(port), "--model", "en_ewt_wp", "--workers", "2"],
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while call_ok(base) is False:
        assert time.time() < deadline and process.poll() is None
        time.sleep(0.3)
    status, _ = call(base, "/process", {"parser": "", "input": "horizontal", "data": "Dogs/NOUN bark ."})
    assert status in (200, 400)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 0 and "stopped" in stderr and "Traceback" not in stderr


def call_ok(base: str) -> bool:
    try:
        urllib.request.urlopen(f"{base}/models", timeout=5).read()
        return True
    except OSError:
        return False


CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")
NO_BROWSER = (CHROMIUM is None or CHROMEDRIVER is None) and not os.environ.get("LSTMPARSE_REQUIRE_BROWSER")


@pytest.mark.slow
@pytest.mark.skipif(NO_BROWSER, reason="needs Debian's chromium and chromium-driver (.ci/run installs them)")
def test_the_page_draws_the_parse_in_a_real_browser(server, tmp_path):
    """Headless Chromium opens the page, types a sentence, submits, and finds one labelled arc per word."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    base, _, _ = server
    gold = sentences_from_text((ROOT / "data" / "sample.trees.conllu").read_text(encoding="utf-8"))
    changed = [s.with_tree(s.heads, ["dep", *s.deprels[1:]]) for s in gold]  # each first word's label is wrong
    (tmp_path / "system.conllu").write_text("".join(s.to_conllu() for s in changed), encoding="utf-8")
    render = [sys.executable, "-m", "lstmparse", "render", str(tmp_path / "system.conllu")]
    render += ["--gold", str(ROOT / "data" / "sample.trees.conllu"), "--output", str(tmp_path / "gold.html")]
    subprocess.run(render, check=True, capture_output=True)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,900"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.get(base + "/")
        box = driver.find_element(By.NAME, "text")
        box.send_keys("Dogs chase cats.")
        driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        # the answer page loads after the click returns (the parse runs in a worker): wait for its trees or error
        WebDriverWait(driver, 120).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".trees svg, p.error"))
        assert not driver.find_elements(By.CSS_SELECTOR, "p.error"), driver.find_element(By.TAG_NAME, "body").text
        svg = driver.find_element(By.CSS_SELECTOR, ".trees svg")
        arcs = svg.find_elements(By.CSS_SELECTOR, "path.arc")
        labels = [t.text for t in svg.find_elements(By.CSS_SELECTOR, "text.label")]
        conllu = driver.find_element(By.CSS_SELECTOR, "pre.conllu").get_attribute("textContent")
        screenshot = Path(tmp_path) / "page.png"
        driver.save_screenshot(str(screenshot))
        driver.get((tmp_path / "gold.html").as_uri())
        marked = driver.find_elements(By.CSS_SELECTOR, "g.wrong text.form")
        marked_words = [element.text for element in marked]
        driver.save_screenshot(str(tmp_path / "gold.png"))
    finally:
        driver.quit()
    (sentence,) = sentences_from_text(conllu + "\n")
    assert len(arcs) == len(sentence) == 4
    assert sorted(labels) == sorted(sentence.deprels)
    assert screenshot.stat().st_size > 1000
    assert marked_words == [s.forms[0] for s in gold if s.deprels[0] != "dep"]
    print(f"screenshots: {screenshot} {tmp_path / 'gold.png'}")
