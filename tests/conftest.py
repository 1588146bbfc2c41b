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

from c4cli.home.keys import DEV_MNEMONIC
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


PLAYERS = ("alice", "bob", "carol", "dave")
WHALE_FUNDS = 2**62 - 10**14  # two of them, and the players, stay within int64


@pytest.fixture(scope="session")
def gno_node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A real gnoland on 127.0.0.1 with the two Gno packages deployed, for the whole session.

    Started once, stopped at the end of the session also when tests fail. Without
    Go the node tests skip, naming scripts/install-gno.sh; with ``CI`` set they fail.
    """
    from gnonode import GnoNode, install_gno, node_available
    from oracles import missing
    from twin import (
        PACKAGE_PATH,
        PLAYER_FUNDS,
        REALM_PATH,
        address_of_key,
        is_account,
        player_key,
    )

    from c4cli.chain import crypto

    reason = node_available()
    if reason is not None:
        missing("go", reason + " (scripts/install-gno.sh installs gnoland, gnokey and gno)")
    bin_dir, gnoroot = install_gno()
    node = GnoNode(bin_dir, gnoroot, tmp_path_factory.mktemp("gnoland"))
    keys = {"test1": crypto.derive_private_key(DEV_MNEMONIC)}
    keys.update({name: player_key(name) for name in PLAYERS})
    keys["alice-session"] = player_key("alice-session")
    # Two accounts near the int64 edge (gnoland refuses a genesis whose supply passes it).
    whales = {name: player_key(name) for name in ("whale1", "whale2")}
    balances = {address_of_key(k): PLAYER_FUNDS for n, k in keys.items() if is_account(n)}
    balances.update({address_of_key(k): WHALE_FUNDS for k in whales.values()})
    try:
        node.start(balances)
        gno = Path(__file__).resolve().parent.parent / "gno"
        node.deploy(gno / "p" / "c4cli" / "gno4", PACKAGE_PATH, DEV_MNEMONIC)
        node.deploy(gno / "r" / "c4cli" / "connect4", REALM_PATH, DEV_MNEMONIC)
        node.keys = keys  # type: ignore[attr-defined]
        node.whales = whales  # type: ignore[attr-defined]
        yield node
    finally:
        node.stop()


@pytest.fixture(scope="session")
def twin(gno_node: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The node and a local chain made to mirror it (``--realm-path gno.land/r/c4cli/connect4``)."""
    from twin import Twin, address_of_key

    keys = gno_node.keys
    return Twin.create(
        gno_node, tmp_path_factory.mktemp("twin"), keys, address_of_key(keys["test1"])
    )


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The differential test's figures: steps played on both chains, fields compared."""
    import twin

    for made in twin.MADE:
        terminalreporter.write_line(
            f"differential (node vs local chain): {made.steps} steps, "
            f"{made.comparisons} comparisons, {made.differences} differences"
        )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Whatever runs gno (a gnoland, gno test, c4 node) is marked ``node``, so that
    ``pytest -m "not node"`` runs the rest without Go."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if (
            "node" in Path(str(item.fspath)).parts
            or "gno_node" in fixtures
            or "gno_env" in fixtures
        ):
            item.add_marker(pytest.mark.node)
