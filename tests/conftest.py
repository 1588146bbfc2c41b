"""Shared fixtures: a home with keys and a manual-clock chain, and a way to run c4 in it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support import GENESIS, Home


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path / "home")


@pytest.fixture
def chain(home: Home) -> Home:
    """Keys alice, bob, carol (unencrypted) and a manual-clock chain from 2026-01-01."""
    for name in ("alice", "bob", "carol"):
        home.ok("keys", "add", name)
    home.ok("init", "--clock", "manual", "--genesis-time", GENESIS)
    return home


@pytest.fixture(scope="session")
def c4_bin() -> str:
    """The installed console script, run as a shell user would."""
    found = shutil.which("c4", path=os.path.dirname(sys.executable))
    assert found is not None, "the c4 console script is not installed beside this python"
    return found


@pytest.fixture
def shell(home: Home, c4_bin: str) -> Iterator[Any]:
    """Run the installed ``c4`` in a subprocess against the test home."""

    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        env = dict(os.environ, C4_HOME=str(home.path), C4_PASSWORD="")
        proc = subprocess.run(
            [c4_bin, *args], env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL
        )
        if check:
            assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
        return proc

    yield run


@pytest.fixture(scope="session")
def go_amino() -> Iterator[Any]:
    """gno's amino codec (Go, the pinned gno version) answering over a pipe."""
    from oracles import WIRE, GoAmino, LineOracle, build_go_oracle

    oracle = LineOracle([str(build_go_oracle())], WIRE)
    yield GoAmino(oracle)
    oracle.close()


@pytest.fixture(scope="session")
def js_client() -> Iterator[Any]:
    """gno's JS clients (@gnolang/tm2-js-client, gno-js-client) answering over a pipe."""
    from oracles import start_js_oracle

    oracle = start_js_oracle()
    yield oracle
    oracle.close()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Whatever runs gno (a gnoland, gno test, c4 node) is marked ``node``, so that
    ``pytest -m "not node"`` runs the rest without Go."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if (
            "real_gnoland" in Path(str(item.fspath)).parts
            or "gno_node" in fixtures
            or "gno_env" in fixtures
        ):
            item.add_marker(pytest.mark.node)


# The differential test's figures (steps played on both chains, fields compared), said
# at the end of the run. Under pytest-xdist each worker hands its own to the controller.
GATHERED: list[list[int]] = []


def _differential() -> list[list[int]]:
    twin = sys.modules.get("real_gnoland.twin")
    made = getattr(twin, "MADE", [])
    return [[t.steps, t.comparisons, t.differences] for t in made]


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["differential"] = _differential()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    GATHERED.extend(getattr(node, "workeroutput", {}).get("differential", []))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for steps, comparisons, differences in _differential() + GATHERED:
        terminalreporter.write_line(
            f"differential (node vs local chain): {steps} steps, "
            f"{comparisons} comparisons, {differences} differences"
        )


@pytest.fixture(autouse=True)
def _a_run_of_its_own() -> None:
    """Each test is a run of c4 of its own (its outbox, its notes), as each command
    line is: a command body a test calls directly sees no earlier test's state."""
    from c4cli.commands.run import Invocation

    Invocation([]).begin().end()  # its own notes and outbox; the environment as it is
