"""Packages in a new chain's genesis, deployed by a key of the home (`c4 node start
--in-genesis`).

gnoland's lazy start writes a genesis that deploys every package under its GNOROOT's
``examples/``, each transaction signed by the node's own validator key, whose account
it funds with only the gas of those transactions. A package whose gnomod.toml names a
creator is deployed by that creator (who pays its storage and, for a realm, is its
caller at ``init``), but its transaction is still signed by the validator, and the
chain refuses it at InitChain: the signer is not the creator. So the genesis is made
in two steps: the lazy start writes it and stops on that refusal, and the
transactions whose messages are all the creator's are signed again by the creator's
key, as genesis transactions are signed (account number and sequence 0); the chain
the refused start began is cleared, and the next start runs on the genesis as fixed.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
from typing import TYPE_CHECKING

from c4cli.wire.tx import resigned_genesis_tx

if TYPE_CHECKING:
    from c4cli.gnoland.devnode import DevNode

WRITTEN = 60.0  # seconds the lazy start is given to write the genesis and stop


def sign_packages(node: DevNode, key: bytes, chain_id: str) -> int | None:
    """Make ``node``'s genesis with its packages deployed by ``key``'s address (see the
    module's docstring): the number of transactions signed again, None when gnoland
    wrote no genesis."""
    genesis = node.dir / "genesis.json"
    node.spawn(detach=False, lazy=True)
    assert node.proc is not None, "spawn starts a process"
    # A gnoland that took the genesis as it was is stopped: it is fixed all the same.
    with contextlib.suppress(subprocess.TimeoutExpired):
        node.proc.wait(timeout=WRITTEN)
    node.stop()
    if not genesis.is_file():
        return None
    document = json.loads(genesis.read_text())
    items = document["app_state"]["txs"]
    signed = 0
    for item in items:
        again = resigned_genesis_tx(item["tx"], key, chain_id)
        if again is not None:
            item["tx"], signed = again, signed + 1
    genesis.write_text(json.dumps(document, indent=2))
    for name in ("db", "wal"):
        shutil.rmtree(node.dir / "data" / name, ignore_errors=True)
    node.secrets("init", "validator_state", "--force")
    return signed
