"""A gnoland node of one's own: gno's real node and GnoVM on 127.0.0.1, for `c4 node`.

`c4 node start` runs ``gnoland`` (gno's binaries at the pinned version, built
by ``scripts/install-gno.sh``, or found on ``$PATH``) in ``<home>/node``: a chain
of its own whose genesis funds every key of the home, on free ports, with a
block each second (as gno.land makes them, so block time follows the clock). It
deploys the realm in ``gno/`` with ``gnokey maketx addpkg`` (signed by test1,
the public dev key) and binds the home to the node, so that every c4 command of
that home acts on the real GnoVM. The test suite's node is the same code (its
blocks come only with transactions).

Nothing is downloaded: gnoland, gnokey and gno's standard library must be on
this machine already.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from c4cli.errors import BadInput, Unreachable
from c4cli.gnoland import genesis_txs
from c4cli.gnoland.binaries import GNO_VERSION
from c4cli.jsonvalue import Document
from c4cli.wire import crypto
from c4cli.wire.rpc import Method, ResultStatus

CHAIN_ID = "dev"
NODE_DIR = "node"
PID_FILE = "gnoland.pid"
START_TIMEOUT = 120.0

# The packages `c4 node start` deploys, in order: the rules, then the realm.
RULES_PATH = "gno.land/p/c4cli/gno4"


class NodeFailed(Unreachable):
    """gnoland or gnokey did not do what was asked (exit 4, with their words)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def claim_port(port: int, url: str) -> None:
    """Refuse to start a node whose RPC port another process holds: its URL, which a
    script may have kept, would reach that process instead."""
    with socket.socket() as sock:
        # As gnoland listens: connections of the last run waiting out TIME_WAIT do not
        # hold the port, a listening process does.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
            sock.listen()
        except OSError:
            raise NodeFailed(
                f"port {port} of 127.0.0.1 is taken by another process: the node keeps its "
                f"URL {url} across a restart, so free the port and run c4 node start again"
            ) from None


# The packages of gno's examples that the realm imports (on gno.land they are deployed
# in its genesis, as they are on a node c4 starts).
EXAMPLES_IMPORTED = ("gno.land/p/nt/avl/v0",)


def gno_sources() -> Path:
    """The rules package and the realm in Gno, as installed with c4 (``c4cli/gno``: in a
    checkout, a link to the repository's ``gno/``; in a wheel, a copy of it)."""
    folder = Path(__file__).resolve().parents[1] / "gno"
    if not (folder / "r" / "c4cli" / "connect4" / "connect4.gno").is_file():
        raise BadInput(
            f"the realm's Gno sources are missing from this install ({folder}): reinstall c4"
        )
    return folder


class DevNode:
    """One gnoland in ``folder``: its genesis, its data, its log and its process."""

    def __init__(
        self, folder: Path, bin_dir: Path, gnoroot: Path, *, rpc_port: int | None = None
    ) -> None:
        self.dir = folder.resolve()  # gnoland runs in it: no path may be relative
        self.bin = bin_dir
        self.gnoroot = gnoroot
        self.proc: subprocess.Popen[bytes] | None = None
        self.log: IO[bytes] | None = None
        # A node that ran before listens where it did (a URL a script kept still serves).
        self.rpc_port = rpc_port or self._bound_port() or free_port()
        self.url = f"http://127.0.0.1:{self.rpc_port}"
        self._id = 0

    @property
    def started_before(self) -> bool:
        return (self.dir / "data" / "config" / "config.toml").is_file()

    def _bound_port(self) -> int | None:
        """The RPC port a node that ran before listened on (its config's rpc.laddr)."""
        try:
            text = (self.dir / "data" / "config" / "config.toml").read_text()
        except OSError:
            return None
        found = re.search(r'^laddr = "tcp://127\.0\.0\.1:(\d+)"', text.split("[rpc]", 1)[-1], re.M)
        return None if found is None else int(found[1])

    def create(
        self,
        balances: dict[str, int],
        *,
        empty_blocks: bool = False,
        packages: Sequence[tuple[Path, str]] = (),
        creator_key: bytes = b"",
    ) -> None:
        """A new chain whose genesis gives each address its ugnot. Its blocks come only
        with transactions, at least a second apart; with ``empty_blocks``, one a second
        with or without any, so block time follows the clock as on gno.land (a move
        clock runs out, and `c4 claim-timeout --wait` sees it, with nobody sending).

        tm2 waits ``create_empty_blocks_interval`` for a transaction after the commit
        timeout before it makes an empty block: 1s there made a block every 2 s; 0s
        proposes the next block as soon as the commit timeout (1 s) has passed.

        ``packages`` (a folder of Gno files, and the path to deploy it at) are in the
        genesis, deployed by ``creator_key``'s address (gnoland/genesis_txs.py)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        creator = crypto.address_of(crypto.public_key(creator_key)) if packages else ""
        self._gnoroot(packages, creator)
        config = self.dir / "data" / "config" / "config.toml"
        config.parent.mkdir(parents=True)
        self._gnoland("config", "init", "--config-path", str(config))
        self.configure(
            {
                "consensus.create_empty_blocks": "true" if empty_blocks else "false",
                "consensus.create_empty_blocks_interval": "0s" if empty_blocks else "1s",
                "consensus.timeout_commit": "1s",
                "consensus.timeout_propose": "1s",
            }
        )
        (self.dir / "balances.txt").write_text(
            "".join(f"{addr}={amount}ugnot\n" for addr, amount in balances.items())
        )
        (self.dir / "txs.jsonl").write_text("")
        if packages:
            self.bind(self.rpc_port, free_port())
            if genesis_txs.sign_packages(self, creator_key, CHAIN_ID) is None:
                raise NodeFailed(f"gnoland wrote no genesis: {self.tail()}")

    def launch(self, *, at_least: int = 1, detach: bool = False) -> None:
        """Run gnoland on this folder's chain, its RPC on ``rpc_port`` (kept across a
        restart) and its peers' port free, and wait until it has block ``at_least``.
        ``detach``: in a session of its own, to outlive c4."""
        claim_port(self.rpc_port, self.url)
        self.bind(self.rpc_port, free_port())
        self.spawn(detach=detach, lazy=True)
        self.wait(at_least)

    def bind(self, rpc_port: int, p2p_port: int) -> None:
        """Listen for RPC and for peers on these ports of 127.0.0.1."""
        self.rpc_port = rpc_port
        self.url = f"http://127.0.0.1:{rpc_port}"
        self.configure(
            {"rpc.laddr": f"tcp://127.0.0.1:{rpc_port}", "p2p.laddr": f"tcp://127.0.0.1:{p2p_port}"}
        )

    def configure(self, settings: dict[str, str]) -> None:
        """``gnoland config set`` each setting in this node's config.toml."""
        config = str(self.dir / "data" / "config" / "config.toml")
        for key, value in settings.items():
            self._gnoland("config", "set", "--config-path", config, key, value)

    def spawn(self, *, detach: bool, lazy: bool) -> None:
        """Start gnoland, its pid in the folder. ``lazy``: the first start of a chain of
        one validator, which writes the genesis from the balances and this node's key."""
        genesis = ["-genesis", str(self.dir / "genesis.json")]
        if lazy:
            genesis = ["-lazy", *genesis, "-genesis-balances-file", str(self.dir / "balances.txt")]
            genesis += ["-genesis-txs-file", str(self.dir / "txs.jsonl")]
        self.log = (self.dir / "gnoland.log").open("ab")
        self.proc = subprocess.Popen(
            [
                str(self.bin / "gnoland"),
                "start",
                "-chainid",
                CHAIN_ID,
                "-data-dir",
                str(self.dir / "data"),
                "-gnoroot-dir",
                str(self.dir / "gnoroot"),
                *genesis,
                "-log-level",
                "error",
            ],
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            cwd=self.dir,
            start_new_session=detach,
        )
        (self.dir / PID_FILE).write_text(f"{self.proc.pid}\n")

    def wait(self, at_least: int, *, synced: bool = False) -> None:
        """Until the node answers with block ``at_least`` (and, ``synced``, no longer
        catching up); stopped and NodeFailed if it exits or takes over START_TIMEOUT."""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise NodeFailed(f"gnoland exited with {self.proc.returncode}: {self.tail()}")
            with contextlib.suppress(OSError, Unreachable, KeyError, ValueError, TypeError):
                status = ResultStatus.from_json(self.rpc(Method.STATUS))
                if status.latest_block_height >= at_least and not (synced and status.catching_up):
                    return
            time.sleep(0.2)
        self.stop()
        raise NodeFailed(f"gnoland did not answer within {START_TIMEOUT:.0f} s: {self.tail()}")

    def stop(self) -> None:
        """Stop the gnoland this object launched."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.log is not None:
            self.log.close()
            self.log = None
        with contextlib.suppress(FileNotFoundError):
            (self.dir / PID_FILE).unlink()

    def secrets(self, *args: str) -> str:
        """``gnoland secrets …`` on this node's secrets (its validator and node keys)."""
        return self._gnoland("secrets", *args, "--data-dir", str(self.dir / "data" / "secrets"))

    def validator_key(self) -> Document:
        key: Document = json.loads(
            (self.dir / "data" / "secrets" / "priv_validator_key.json").read_text()
        )
        return key

    def node_id(self) -> str:
        """The node's P2P id, as its peers name it."""
        return self.secrets("get", "node_id.id").strip().strip('"')

    def genesis_validators(self) -> list[Document]:
        """The validators this node's genesis names (address, public key, power)."""
        validators: list[Document] = json.loads((self.dir / "genesis.json").read_text())[
            "validators"
        ]
        return validators

    def tail(self) -> str:
        path = self.dir / "gnoland.log"
        return path.read_text(errors="replace")[-2000:].strip() if path.exists() else ""

    def _gnoroot(self, packages: Sequence[tuple[Path, str]], creator: str) -> None:
        """A GNOROOT with gno's standard libraries and, of its example packages, only
        those the realm imports (and ``packages``): genesis loads every package under
        ``examples/``, and all of them would take a minute to start where these take a
        second."""
        root = self.dir / "gnoroot"
        (root / "examples").mkdir(parents=True)
        for path in EXAMPLES_IMPORTED:  # copied (genesis follows no link), tests aside
            source = self.gnoroot / "examples" / path
            if not source.is_dir():
                raise NodeFailed(
                    f"{source} is missing: the realm imports {path}, which gno's sources "
                    f"hold (GNOROOT {self.gnoroot} is not a whole gno {GNO_VERSION} checkout)"
                )
            _copy_package(source, root / "examples" / path)
        for source, path in packages:
            into = root / "examples" / path
            _copy_package(source, into)
            (into / "gnomod.toml").write_text(
                f'module = "{path}"\ngno = "0.9"\n\n[addpkg]\n  creator = "{creator}"\n'
            )
        for name in ("gnovm", "tm2"):
            (root / name).symlink_to(self.gnoroot / name)
        genesis = root / "gno.land" / "genesis"
        genesis.mkdir(parents=True)
        shutil.copy(self.gnoroot / "gno.land" / "genesis" / "genesis_params.toml", genesis)

    def _gnoland(self, *args: str) -> str:
        proc = subprocess.run(
            [str(self.bin / "gnoland"), *args], capture_output=True, text=True, timeout=60
        )
        if proc.returncode != 0:
            raise NodeFailed(f"gnoland {args[0]} {args[1]} failed: {proc.stderr.strip()}")
        return proc.stdout

    # -- deploying ---------------------------------------------------------------------

    def deploy(
        self,
        pkgdir: Path,
        pkgpath: str,
        mnemonic: str,
        max_deposit: str = "",
        gas_wanted: int = 200_000_000,
    ) -> None:
        """``gnokey maketx addpkg`` a package folder, signed by ``mnemonic``'s key (the
        deployer, who owns a realm); its storage deposit bounded by ``max_deposit`` (""
        for the chain's default bound), its gas by ``gas_wanted`` (paid at 0.05 ugnot
        a unit)."""
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
                f"{gas_wanted // 20}ugnot",
                "-gas-wanted",
                str(gas_wanted),
                *(["-max-deposit", max_deposit] if max_deposit else []),
                "-broadcast",
                "-chainid",
                CHAIN_ID,
                "-remote",
                f"127.0.0.1:{self.rpc_port}",
                "deployer",
            ],
            "\n",
        )

    def deploy_package(self, source: Path, pkgpath: str, mnemonic: str) -> None:
        """A package folder of ``gno/`` deployed at ``pkgpath``: its sources without the
        tests, with a gnomod.toml naming that path."""
        package = self.dir / "packages" / pkgpath.replace("/", "_")
        if package.exists():
            shutil.rmtree(package)
        package.mkdir(parents=True)
        for item in source.glob("*.gno"):
            if not item.name.endswith(("_test.gno", "_filetest.gno")):
                shutil.copy(item, package / item.name)
        (package / "gnomod.toml").write_text(f'module = "{pkgpath}"\ngno = "0.9"\n')
        self.deploy(package, pkgpath, mnemonic)

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
            words = proc.stderr.strip().replace("Enter password.", "").strip()
            raise NodeFailed(f"gnokey {' '.join(args[:2])} failed: {words}")
        return proc.stdout

    # -- JSON-RPC ----------------------------------------------------------------------

    def rpc(self, method: str, *, timeout: float = 60, **params: Any) -> Any:
        """One JSON-RPC call's result (its error, or no answer, is Unreachable)."""
        self._id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self._id, "method": method, "params": params})
        request = urllib.request.Request(
            self.url, body.encode(), {"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                document = json.loads(answer.read())
        except (OSError, ValueError) as exc:  # refused, timed out, not JSON
            raise Unreachable(f"{method}: {exc}") from None
        if document.get("error"):
            raise Unreachable(f"{method}: {document['error']}")
        return document["result"]

    def latest_height(self, *, timeout: float = 60) -> int:
        answer = self.rpc(Method.STATUS, timeout=timeout)
        return ResultStatus.from_json(answer).latest_block_height


def _copy_package(source: Path, into: Path) -> None:
    """A package's files as a chain keeps them (its tests aside) copied into ``into``."""
    into.mkdir(parents=True)
    for item in source.iterdir():
        test = item.name.endswith(("_test.gno", "_filetest.gno"))
        if item.name == "gnomod.toml" or (item.suffix == ".gno" and not test):
            shutil.copy(item, into / item.name)


def running_pid(folder: Path) -> int | None:
    """The pid of the gnoland `c4 node start` left running in ``folder``, if it runs."""
    try:
        pid = int((folder / PID_FILE).read_text().strip())
    except (OSError, ValueError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return None  # another user's process: the pid was reused, not our node
    # A pid is reused once its process is gone: where the system says what runs
    # under it, only a gnoland is ours to stop.
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return pid
    return pid if b"gnoland" in command else None


def stop_pid(folder: Path, pid: int, *, kill: bool = False) -> None:
    """SIGTERM the node and wait for it to go (SIGKILL after 20 s, or at once: ``kill``)."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL if kill else signal.SIGTERM)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and running_pid(folder) == pid:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        time.sleep(0.1)
    if running_pid(folder) == pid:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(FileNotFoundError):
        (folder / PID_FILE).unlink()
