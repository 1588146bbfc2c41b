"""The node tests' fixtures: one real gnoland for the session, and its local twin."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from oracles import missing
from real_gnoland.gnonode import ROOT, GnoNode, install_gno, node_available
from real_gnoland.twin import (
    PACKAGE_PATH,
    PLAYER_FUNDS,
    PLAYERS,
    REALM_PATH,
    WHALE_FUNDS,
    Twin,
    address_of_key,
    is_account,
    player_key,
)

from c4cli.home.keys import DEV_MNEMONIC
from c4cli.wire import crypto


@pytest.fixture(scope="session")
def gno_node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A real gnoland on 127.0.0.1 with the two Gno packages deployed, for the whole session.

    Started once, stopped at the end of the session also when tests fail. Without
    Go the node tests skip, naming scripts/install-gno.sh; with ``CI`` set they fail.
    """
    from real_gnoland.twin import (
        address_of_key,
    )

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
        gno = ROOT / "gno"
        node.deploy(gno / "p" / "c4cli" / "gno4", PACKAGE_PATH, DEV_MNEMONIC)
        node.deploy(gno / "r" / "c4cli" / "connect4", REALM_PATH, DEV_MNEMONIC)
        node.keys = keys  # type: ignore[attr-defined]
        node.whales = whales  # type: ignore[attr-defined]
        yield node
    finally:
        node.stop()


@pytest.fixture(scope="session")
def gno_env() -> dict[str, str]:
    """Where gno's binaries and standard library are, for a `c4 node` run as a shell
    user runs it (the install script builds them)."""
    reason = node_available()
    if reason is not None:
        missing("go", reason + " (scripts/install-gno.sh installs gnoland, gnokey and gno)")
    bin_dir, gnoroot = install_gno()
    return {"GNO_BIN": str(bin_dir), "GNOROOT": str(gnoroot)}


@pytest.fixture(scope="session")
def twin(gno_node: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The node and a local chain made to mirror it (``--realm-path gno.land/r/c4cli/connect4``)."""
    keys = gno_node.keys
    return Twin.create(
        gno_node, tmp_path_factory.mktemp("twin"), keys, address_of_key(keys["test1"])
    )
