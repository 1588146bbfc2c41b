"""The realm in Gno, on the real GnoVM: gno's own test runner, formatter and linter."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from oracles import missing
from real_gnoland.gnonode import ROOT, gno_home, install_gno, node_available

pytestmark = pytest.mark.node


@pytest.fixture(scope="module")
def gno() -> tuple[Path, dict[str, str]]:
    reason = node_available()
    if reason is not None:
        missing("go", reason + " (scripts/install-gno.sh installs gnoland, gnokey and gno)")
    bin_dir, gnoroot = install_gno()
    home = gno_home()
    return bin_dir / "gno", dict(os.environ, GNOROOT=str(gnoroot), GNOHOME=str(home))


def run(gno: tuple[Path, dict[str, str]], *args: str) -> subprocess.CompletedProcess[str]:
    binary, env = gno
    return subprocess.run(
        [str(binary), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )


def test_gno_test_passes(gno: tuple[Path, dict[str, str]]) -> None:
    proc = run(gno, "test", "-v", "./gno/...")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    output = proc.stdout + proc.stderr
    passed = re.findall(r"^--- PASS: (\S+)", output, re.M)
    tests = [name for name in passed if not name.endswith(".gno")]
    filetests = [name for name in passed if name.endswith("_filetest.gno")]
    # The packages' tests and the Render filetests all ran (not just compiled).
    assert len(tests) >= 35 and len(filetests) == 3, (tests, filetests)
    assert "FAIL" not in output


def test_gno_code_is_formatted_and_lint_clean(gno: tuple[Path, dict[str, str]]) -> None:
    fmt = run(gno, "fmt", "-diff", "./gno/...")
    assert fmt.returncode == 0 and not fmt.stdout.strip(), fmt.stdout + fmt.stderr
    lint = run(gno, "lint", "./gno/...")
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_the_install_scripts_package_cache_is_marked_as_gno_marks_it() -> None:
    """gno finds a package in its cache by a marker named by the package's address:
    the one scripts/install-gno.sh writes is the address c4 derives for each package."""
    from c4cli.address import package_address
    from c4cli.gnoland.devnode import EXAMPLES_IMPORTED

    script = (ROOT / "scripts" / "install-gno.sh").read_text()
    for path in EXAMPLES_IMPORTED:
        assert f".markers/{package_address(path)}" in script and path in script
