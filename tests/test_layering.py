"""The package's layering: importing it or its command line loads no DyNet, and no module imports another in a cycle."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import ROOT

from lstmparse.core.backend import DEFAULT_MEMORY_MB, memory_pools

IMPORT_CYCLES = ROOT.parent / "shared" / "tools" / "import_cycles.py"


def test_importing_the_package_and_its_command_line_leaves_dynet_unloaded():
    """DyNet reads its settings once, when imported: only configure() (or a model's first use) may import it."""
    script = (
        "import sys, lstmparse, lstmparse.cli, lstmparse.io.document, lstmparse.app.catalog, lstmparse.io.render, "
        "lstmparse.io.formats, lstmparse.app.corpus, lstmparse.core.processes\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dynet', '_dynet')))"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0 and result.stdout.strip() == "[]", result.stderr + result.stdout


def test_dynet_is_configured_by_one_explicit_call_not_by_importing():
    """Importing sets nothing; lstmparse.load() applies the defaults; a configure() before it wins."""
    script = (
        "import dynet_config, lstmparse\n"
        "assert dynet_config.get() is None, dynet_config.get()\n"
        "lstmparse.configure(seed=5, memory_mb=96)\n"
        "lstmparse.load('en_ewt_wp')\n"
        "print(dynet_config.get()['mem'], dynet_config.get()['seed'])\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0 and result.stdout.split() == [memory_pools(96), "5"], result.stderr + result.stdout
    script = "import dynet_config, lstmparse\nlstmparse.load('en_ewt_wp')\nprint(dynet_config.get()['mem'])\n"
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "LSTMPARSE_MEMORY_MB": "80"},
    )
    assert result.returncode == 0 and result.stdout.strip() == memory_pools(80), result.stderr + result.stdout


@pytest.mark.parametrize(
    "module", ["lstmparse.pipeline.api", "lstmparse.tokenizer.api", "lstmparse.tagger.model", "lstmparse.layers.birnn"]
)
def test_a_module_that_imports_dynet_starts_it_with_the_toolkits_settings_not_dynets(module):
    """Importing a model module directly starts DyNet with the toolkit's small pool, not DyNet's own 512 MB
    (a pipeline then held 660 MiB after loading instead of 275); a configure() call before it still wins."""
    script = f"import sys, dynet_config, {module}\nassert 'dynet' in sys.modules\nprint(dynet_config.get()['mem'])\n"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0 and result.stdout.strip() == memory_pools(DEFAULT_MEMORY_MB), (
        result.stderr + result.stdout
    )
    script = f"import lstmparse, dynet_config\nlstmparse.configure(memory_mb=96)\nimport {module}\n"
    script += "print(dynet_config.get()['mem'])\n"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0 and result.stdout.strip() == memory_pools(96), result.stderr + result.stdout


@pytest.mark.skipif(not IMPORT_CYCLES.is_file(), reason="the shared tools are not beside the checkout")
def test_no_import_cycle():
    result = subprocess.run([sys.executable, str(IMPORT_CYCLES), "lstmparse"], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0 and "cycle" not in result.stdout + result.stderr, result.stdout


# The rooms of the package, lowest first: a module may import its own room and any room below it, never one above.
ROOM_ORDER = ["errors", "io", "core", "scoring", "layers", "families", "app", "facade", "cli"]
FAMILY_PACKAGES = {"stacklstm", "tagger", "tokenizer", "treelstm", "seq2seq", "pipeline"}
INTEGRATIONS = {"spacy"}  # lstmparse inside other toolkits: services, as the app layer
FACADE_CONSTANTS = {"__version__"}  # names of the package itself that any room may read


def room_of(module: str) -> str:
    """The room a dotted module name (``lstmparse.io.formats``) lives in."""
    parts = module.split(".")
    if parts == ["lstmparse"] or parts[1] == "__main__":
        return "facade" if parts == ["lstmparse"] else "cli"
    top = parts[1]
    return "families" if top in FAMILY_PACKAGES else "app" if top in INTEGRATIONS else top


def upward_imports(module: str, source: str) -> list[str]:
    """The imports in ``source`` (module level or inside functions) that reach a room above ``module``'s."""
    import ast

    rank = ROOM_ORDER.index(room_of(module))
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "lstmparse":
                names = {alias.name for alias in node.names} - FACADE_CONSTANTS
                targets = [f"lstmparse.{name}" for name in names]
            else:
                targets = [node.module]
        else:
            continue
        for target in targets:
            if target.split(".")[0] == "lstmparse" and ROOM_ORDER.index(room_of(target)) > rank:
                found.append(f"{module} imports {target}")
    return found


def test_imports_run_down_the_rooms_never_up():
    """io never imports core, core never a family, no family the app layer, nothing below the CLI the CLI."""
    package = ROOT / "lstmparse"
    violations = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        violations += upward_imports(module, path.read_text(encoding="utf-8"))
    assert not violations, "\n".join(violations)
    assert {room_of(f"lstmparse.{p.name}") for p in package.iterdir() if p.is_dir() and p.name != "__pycache__"} <= set(
        ROOM_ORDER
    ), "a new room must take its place in ROOM_ORDER"


def test_the_room_check_sees_an_upward_import_even_inside_a_function():
    source = "import os\n\ndef f():\n    from lstmparse.app.catalog import resolve_model\n"
    assert upward_imports("lstmparse.io.formats", source) == ["lstmparse.io.formats imports lstmparse.app.catalog"]
    assert upward_imports("lstmparse.core.training", "from lstmparse import cli\n") == [
        "lstmparse.core.training imports lstmparse.cli"
    ]
    assert upward_imports("lstmparse.app.serve", "from lstmparse import __version__\n") == []
    assert upward_imports("lstmparse.cli.parse", "from lstmparse.app import catalog\n") == []


@pytest.mark.slow
def test_the_type_checker_finds_nothing():
    """mypy over the package (its settings in pyproject.toml: DyNet and the other untyped packages let in at one
    place); ``make lint`` runs the same check."""
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental"], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-1000:]


def test_parsing_pools_start_lean_and_training_pools_with_room_for_the_backward_pass():
    """Parsing computes no gradient: backward and scratch pools start at 1 MB, the parameters' small (they grow).
    Training (and autobatching, whose backward pass cannot grow a pool) keeps DyNet's equal split."""
    assert memory_pools(8) == "4,1,4,1" and memory_pools(512) == "256,1,4,1" and memory_pools(1) == "1,1,1,1"
    assert memory_pools(512, backward=True) == "512"
    script = (
        "import dynet_config\nfrom lstmparse.cli.common import configure_dynet\n"
        "configure_dynet(seed=1, memory_mb=64, training=True)\nprint(dynet_config.get()['mem'])\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0 and result.stdout.strip() == "64", result.stderr + result.stdout


def test_every_benchmark_is_listed_in_benchs_readme_and_none_edits_the_import_path():
    """bench/ holds benchmarks only, each findable from bench/README.md, importing the installed package as users do."""
    bench = ROOT / "bench"
    listed = (bench / "README.md").read_text(encoding="utf-8")
    scripts = sorted(bench.glob("*.py"))
    assert scripts
    assert [path.name for path in scripts if f"`{path.name}`" not in listed] == []
    assert [path.name for path in scripts if "sys.path" in path.read_text(encoding="utf-8")] == []
