"""A real gno.land node for the tests: gnoland on 127.0.0.1, and a small RPC client.

The binaries come from ``scripts/install-gno.sh`` (gno's own, at the pinned
version, built from the Go module proxy and cached). The node runs in a
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
import socket
import subprocess
import time
import urllib.error
import urllib.request
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
INSTALL = ROOT / "scripts" / "install-gno.sh"
CHAIN_ID = "dev"
GAS_FEE = "1000000ugnot"  # what every test transaction pays, on both chains
GAS_WANTED = 50_000_000


class NodeError(RuntimeError):
    """The node did something a test did not expect (not a realm refusal)."""


def install_gno() -> tuple[Path, Path]:
    """Run the install script; the folder of gno's binaries and the GNOROOT they use."""
    proc = subprocess.run(
        ["bash", str(INSTALL), "--env"], capture_output=True, text=True, timeout=1200
    )
    if proc.returncode != 0:
        raise NodeError(f"{INSTALL.name} failed: {proc.stderr.strip()}")
    env = dict(line.split("=", 1) for line in proc.stdout.split())
    return Path(env["GNO_BIN"]), Path(env["GNOROOT"])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def unix_time(rfc3339: str) -> int:
    """Whole seconds of a tm2 block time (nanosecond RFC 3339), as the realm reads it."""
    text = rfc3339.rstrip("Z")
    whole = text.split(".")[0]
    return int(datetime.fromisoformat(whole + "+00:00").timestamp())


class GnoNode:
    """One gnoland process and what the tests ask of it."""

    def __init__(self, bin_dir: Path, gnoroot: Path, workdir: Path) -> None:
        self.bin = bin_dir
        self.gnoroot = gnoroot
        self.dir = workdir
        self.proc: subprocess.Popen[bytes] | None = None
        self.rpc_port = free_port()
        self.url = f"http://127.0.0.1:{self.rpc_port}"
        self._id = 0
        self.stopped_at = 1

    # -- life ---------------------------------------------------------------------

    def start(self, balances: dict[str, int]) -> None:
        """Start a fresh chain whose genesis gives each address its ugnot."""
        self._gnoroot()
        data = self.dir / "data"
        config = data / "config" / "config.toml"
        config.parent.mkdir(parents=True)
        self._gnoland("config", "init", "--config-path", str(config))
        for key, value in (
            ("rpc.laddr", f"tcp://127.0.0.1:{self.rpc_port}"),
            ("p2p.laddr", f"tcp://127.0.0.1:{free_port()}"),
            ("consensus.create_empty_blocks", "false"),
            ("consensus.timeout_commit", "1s"),
            ("consensus.timeout_propose", "1s"),
        ):
            self._gnoland("config", "set", "--config-path", str(config), key, value)
        balances_file = self.dir / "balances.txt"
        balances_file.write_text(
            "".join(f"{addr}={amount}ugnot\n" for addr, amount in balances.items())
        )
        txs_file = self.dir / "txs.jsonl"
        txs_file.write_text("")
        self._launch()

    def _launch(self, at_least: int = 1) -> None:
        """Run gnoland on this folder's data, and wait until it has block ``at_least``."""
        root = self.dir / "gnoroot"
        data = self.dir / "data"
        self.log = (self.dir / "gnoland.log").open("ab")
        self.proc = subprocess.Popen(
            [
                str(self.bin / "gnoland"),
                "start",
                "-lazy",
                "-chainid",
                CHAIN_ID,
                "-data-dir",
                str(data),
                "-gnoroot-dir",
                str(root),
                "-genesis",
                str(self.dir / "genesis.json"),
                "-genesis-balances-file",
                str(self.dir / "balances.txt"),
                "-genesis-txs-file",
                str(self.dir / "txs.jsonl"),
                "-log-level",
                "error",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            cwd=self.dir,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise NodeError(f"gnoland exited with {self.proc.returncode}: {self.tail()}")
            try:
                if self.latest_height() >= at_least:
                    return
            except (OSError, NodeError, KeyError, ValueError):
                pass
            time.sleep(0.2)
        raise NodeError(f"gnoland did not answer within 120 s: {self.tail()}")

    def restart(self) -> None:
        """Start the stopped node again on its own data: the chain goes on where it was."""
        self._launch(at_least=self.stopped_at)

    def stop(self) -> None:
        with contextlib.suppress(OSError, NodeError, KeyError, ValueError):
            self.stopped_at = self.latest_height()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if getattr(self, "log", None) is not None:
            self.log.close()

    def tail(self) -> str:
        path = self.dir / "gnoland.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else ""

    def _gnoroot(self) -> Path:
        """A GNOROOT with gno's standard libraries and no example packages.

        Genesis loads every package under ``examples/``; the tests deploy their
        own two, so an empty one keeps the node's start to a second.
        """
        root = self.dir / "gnoroot"
        (root / "examples").mkdir(parents=True)
        for name in ("gnovm", "tm2"):
            (root / name).symlink_to(self.gnoroot / name)
        genesis = root / "gno.land" / "genesis"
        genesis.mkdir(parents=True)
        shutil.copy(self.gnoroot / "gno.land" / "genesis" / "genesis_params.toml", genesis)
        return root

    def _gnoland(self, *args: str) -> None:
        subprocess.run(
            [str(self.bin / "gnoland"), *args], check=True, capture_output=True, timeout=60
        )

    # -- deploying with gnokey -------------------------------------------------------

    def deploy(self, pkgdir: Path, pkgpath: str, mnemonic: str) -> None:
        """``gnokey maketx addpkg`` a package folder as the README shows it, signed by
        ``mnemonic``'s key (the deployer, who owns the realm)."""
        keyhome = self.dir / "gnokey"
        if not (keyhome / "data").exists():
            self._gnokey(["add", "deployer", "--recover"], f"{mnemonic}\n\n\n")
        self._gnokey(
            [
                "maketx",
                "addpkg",
                "-pkgpath",
                pkgpath,
                "-pkgdir",
                str(pkgdir),
                "-gas-fee",
                "10000000ugnot",
                "-gas-wanted",
                "200000000",
                "-broadcast",
                "-chainid",
                CHAIN_ID,
                "-remote",
                f"127.0.0.1:{self.rpc_port}",
                "deployer",
            ],
            "\n",
        )

    def _gnokey(self, args: list[str], stdin: str) -> str:
        proc = subprocess.run(
            [
                str(self.bin / "gnokey"),
                *args,
                "-home",
                str(self.dir / "gnokey"),
                "-insecure-password-stdin",
            ],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if proc.returncode != 0:
            raise NodeError(f"gnokey {' '.join(args[:2])} failed: {proc.stderr.strip()}")
        return proc.stdout

    # -- JSON-RPC ---------------------------------------------------------------------

    def rpc(self, method: str, **params: Any) -> Any:
        self._id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self._id, "method": method, "params": params})
        request = urllib.request.Request(
            self.url, body.encode(), {"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                document = json.loads(answer.read())
        except urllib.error.URLError as exc:
            raise NodeError(f"{method}: {exc}") from None
        if document.get("error"):
            raise NodeError(f"{method}: {document['error']}")
        return document["result"]

    def query(self, path: str, data: str = "") -> tuple[str, str]:
        """abci_query: (the answer's data as text, its error log or "")."""
        result = self.rpc("abci_query", path=path, data=base64.b64encode(data.encode()).decode())
        response = result["response"]
        base = response.get("ResponseBase", response)
        value = base64.b64decode(base.get("Data") or response.get("Value") or "")
        error = base.get("Error")
        return value.decode(), (base.get("Log") or "error") if error else ""

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

    def latest_height(self) -> int:
        return int(self.rpc("status")["sync_info"]["latest_block_height"])

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
