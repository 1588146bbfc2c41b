"""A real gno.land node for the tests: gnoland on 127.0.0.1, and a small RPC client.

The binaries come from ``scripts/install-gno.sh`` (gno's own, at the pinned
version, built from the Go module proxy and cached). The node is the one
`c4 node start` runs (c4cli/gnoland/devnode.py), here a child of the session: it runs in a
temporary folder with a genesis that funds the keys the tests sign with; it
makes a block only when a transaction arrives, at least one second after the
previous one, so every transaction has a block (and a block time, in whole
seconds) of its own and a query right after it reads the state it left.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
from datetime import datetime
from pathlib import Path
from typing import Any

from c4cli.errors import Unreachable
from c4cli.gnoland.devnode import DevNode

ROOT = Path(__file__).resolve().parents[2]
INSTALL = ROOT / "scripts" / "install-gno.sh"
CHAIN_ID = "dev"
GAS_FEE = "1000000ugnot"  # what every test transaction pays, on both chains
GAS_WANTED = 50_000_000


class NodeError(Unreachable):
    """The node did something a test did not expect (not a realm refusal)."""


def installed() -> dict[str, str]:
    """Run the install script: what it prints with --env (GNO_BIN, GNOROOT, GNOHOME)."""
    from oracles import building

    with building("gno"):
        proc = subprocess.run(
            ["bash", str(INSTALL), "--env"], capture_output=True, text=True, timeout=1200
        )
    if proc.returncode != 0:
        raise NodeError(f"{INSTALL.name} failed: {proc.stderr.strip()}")
    return dict(line.split("=", 1) for line in proc.stdout.split())


def install_gno() -> tuple[Path, Path]:
    """The folder of gno's binaries and the GNOROOT they use, installed if need be."""
    env = installed()
    return Path(env["GNO_BIN"]), Path(env["GNOROOT"])


def gno_home() -> Path:
    """The GNOHOME the install script prepares: its package cache holds the packages of
    gno's examples the realm imports, so `gno test` and `gno lint` download nothing."""
    return Path(installed()["GNOHOME"])


def gnokey_with_test1(folder: Path) -> tuple[str, str, str]:
    """The pinned gnokey, a gnokey home in ``folder`` holding test1 (the dev mnemonic,
    no passphrase), and what ``gnokey add`` printed of it."""
    from c4cli.home.keys import DEV_MNEMONIC

    gnokey = str(install_gno()[0] / "gnokey")
    add = subprocess.run(
        [gnokey, "add", "test1", "--recover", "--insecure-password-stdin", "--home", str(folder)],
        input=f"{DEV_MNEMONIC}\n\n\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert add.returncode == 0, add.stderr
    return gnokey, str(folder), add.stdout + add.stderr


def unix_time(rfc3339: str) -> int:
    """Whole seconds of a tm2 block time (nanosecond RFC 3339), as the realm reads it."""
    text = rfc3339.rstrip("Z")
    whole = text.split(".")[0]
    return int(datetime.fromisoformat(whole + "+00:00").timestamp())


class GnoNode(DevNode):
    """The node `c4 node start` runs (c4cli/gnoland/devnode.py), as a child of the test
    session, and what the tests ask of it."""

    def __init__(self, bin_dir: Path, gnoroot: Path, workdir: Path) -> None:
        super().__init__(workdir, bin_dir, gnoroot)
        self.stopped_at = 1

    def start(self, balances: dict[str, int]) -> None:
        """Start a fresh chain whose genesis gives each address its ugnot."""
        try:
            self.create(balances)
            self.launch()
        except Unreachable as exc:
            raise NodeError(str(exc)) from None

    def restart(self) -> None:
        """Start the stopped node again on its own data: the chain goes on where it was."""
        self.launch(at_least=self.stopped_at)

    def stop(self) -> None:
        with contextlib.suppress(OSError, Unreachable, KeyError, ValueError):
            self.stopped_at = self.latest_height()
        super().stop()

    def deploy(
        self,
        pkgdir: Path,
        pkgpath: str,
        mnemonic: str,
        max_deposit: str = "",
        gas_wanted: int = 200_000_000,
    ) -> None:
        try:
            super().deploy(pkgdir, pkgpath, mnemonic, max_deposit, gas_wanted)
        except Unreachable as exc:
            raise NodeError(str(exc)) from None

    # -- JSON-RPC ---------------------------------------------------------------------

    def rpc(self, method: str, **params: Any) -> Any:
        try:
            return super().rpc(method, **params)
        except Unreachable as exc:
            raise NodeError(str(exc)) from None

    def query(self, path: str, data: str = "") -> tuple[str, str]:
        """abci_query: (the answer's data as text, its error log or "")."""
        result = self.rpc("abci_query", path=path, data=base64.b64encode(data.encode()).decode())
        response = result["response"]
        base = response.get("ResponseBase", response)
        value = base64.b64decode(base.get("Data") or response.get("Value") or "")
        error = base.get("Error")
        return value.decode(), (base.get("Log") or "error") if error else ""

    def stored(self, key: bytes) -> bytes | None:
        """The main store's value at ``key`` at the last block (None: no such key)."""
        result = self.rpc("abci_query", path=".store/main/key", data=base64.b64encode(key).decode())
        response = result["response"]
        base = response.get("ResponseBase", response)
        if base.get("Error"):
            raise NodeError(f".store/main/key {key!r}: {base.get('Log') or 'error'}")
        value = response.get("Value") or base.get("Data")
        return base64.b64decode(value) if value else None

    def account(self, address: str) -> tuple[int, int]:
        """(account number, sequence) of an address, as the node has it."""
        text, error = self.query(f"auth/accounts/{address}")
        if error:
            raise NodeError(f"auth/accounts/{address}: {error}")
        document = json.loads(text)
        base = document.get("BaseAccount", document)
        return int(base.get("account_number") or 0), int(base.get("sequence") or 0)

    def session_account(self, master: str, session: str) -> tuple[int, int]:
        """(account number, sequence) of a session key, which is an account of its own."""
        text, error = self.query(f"auth/accounts/{master}/session/{session}")
        if error:
            raise NodeError(f"session {session} of {master}: {error}")
        document = json.loads(text)
        base = document.get("BaseSessionAccount", document)
        base = base.get("BaseAccount", base)
        return int(base.get("account_number") or 0), int(base.get("sequence") or 0)

    def balance(self, address: str) -> int:
        text, error = self.query(f"bank/balances/{address}")
        if error:
            raise NodeError(f"bank/balances/{address}: {error}")
        coins = json.loads(text) if text.startswith('"') else text
        for coin in str(coins).split(","):
            if coin.endswith("ugnot"):
                return int(coin[: -len("ugnot")])
        return 0

    def qeval(self, pkgpath: str, expr: str) -> str:
        text, error = self.query("vm/qeval", f"{pkgpath}.{expr}")
        if error:
            raise NodeError(f"vm/qeval {expr}: {error}")
        return text

    def render(self, pkgpath: str, path: str) -> str:
        text, error = self.query("vm/qrender", f"{pkgpath}:{path}")
        if error:
            raise NodeError(f"vm/qrender {path}: {error}")
        return text

    def broadcast(self, tx_bytes: bytes) -> dict[str, Any]:
        """broadcast_tx_commit; the result as the node gives it."""
        result: dict[str, Any] = self.rpc(
            "broadcast_tx_commit", tx=base64.b64encode(tx_bytes).decode()
        )
        return result

    def block_time(self, height: int) -> int:
        header = self.rpc("block", height=str(height))["block"]["header"]
        return unix_time(header["time"])


def node_available() -> str | None:
    """Why a node cannot run here, or None when it can."""
    if shutil.which("go") is None:
        return "go not found: gno's binaries are built by scripts/install-gno.sh (Go >= 1.25.9)"
    if os.name != "posix":
        return "the node fixture runs gnoland on a POSIX system"
    return None
