"""The package's layering: importing it or its command line loads no DyNet, and no module imports another in a cycle."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import ROOT

IMPORT_CYCLES = ROOT.parent / "shared" / "tools" / "import_cycles.py"


def test_importing_the_package_and_its_command_line_leaves_dynet_unloaded():
    """DyNet reads its settings once, when imported: only configure() (or a model's first use) may import it."""
    script = (
        "import sys, lstmparse, lstmparse.cli, lstmparse.document, lstmparse.catalog, lstmparse.render, "
        "lstmparse.formats, lstmparse.corpus, lstmparse.processes\n"
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
    assert result.returncode == 0 and result.stdout.split() == ["96", "5"], result.stderr + result.stdout
    script = "import dynet_config, lstmparse\nlstmparse.load('en_ewt_wp')\nprint(dynet_config.get()['mem'])\n"
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "LSTMPARSE_MEMORY_MB": "80"},
    )
    assert result.returncode == 0 and result.stdout.strip() == "80", result.stderr + result.stdout


@pytest.mark.skipif(not IMPORT_CYCLES.is_file(), reason="the shared tools are not beside the checkout")
def test_no_import_cycle():
    result = subprocess.run([sys.executable, str(IMPORT_CYCLES), "lstmparse"], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0 and "cycle" not in result.stdout + result.stderr, result.stdout
