"""A local network of gnoland validators for `c4 node start --validators N`.

Each validator is a :class:`~c4cli.gnoland.devnode.DevNode` in a folder of its own;
this module writes their one genesis, their ports and peers, and starts and stops
them one by one (a validator stopped, killed as in a crash, and restarted).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

from c4cli.gnoland.devnode import CHAIN_ID, DevNode, claim_port, free_port, running_pid, stop_pid

NETWORK_FILE = "network.json"


class Network:
    """N gnoland validators of one chain on 127.0.0.1, in ``folder``/v0, v1, …

    gnoland v1.7.1 has no command that writes a genesis for several validators:
    node 0 starts once alone (``-lazy``) to write a genesis from the balances, whose
    ``validators`` are then every node's own key (``gnoland secrets init``), each with
    power 1; node 0 forgets the block it made alone. Every node has fixed RPC and P2P
    ports and the others as persistent peers (no peer exchange: the list is the
    network), so that one stopped or killed comes back where the others expect it.
    The ports and node ids are in ``network.json``. Blocks need more than two thirds
    of the validators: 4 go on without one of them, 3 halt when one stops.
    """

    def __init__(self, folder: Path, bin_dir: Path, gnoroot: Path) -> None:
        self.dir = folder.resolve()
        self.bin = bin_dir
        self.gnoroot = gnoroot
        self.ports: list[tuple[int, int]] = []  # (rpc, p2p) of each validator
        if self.exists:
            layout = json.loads((self.dir / NETWORK_FILE).read_text())
            self.ports = [(int(v["rpc"]), int(v["p2p"])) for v in layout["validators"]]
        self.nodes = [self._node(i) for i in range(len(self.ports))]

    @property
    def exists(self) -> bool:
        return (self.dir / NETWORK_FILE).is_file()

    @property
    def urls(self) -> list[str]:
        return [node.url for node in self.nodes]

    def _node(self, index: int) -> DevNode:
        rpc = self.ports[index][0] if index < len(self.ports) else None
        return DevNode(self.dir / f"v{index}", self.bin, self.gnoroot, rpc_port=rpc)

    def create(
        self,
        count: int,
        balances: dict[str, int],
        packages: Sequence[tuple[Path, str]] = (),
        creator_key: bytes = b"",
    ) -> None:
        """A new chain of ``count`` validators (stopped: :meth:`start` runs them), with
        ``packages`` in its genesis (see DevNode.create)."""
        self.nodes = [self._node(i) for i in range(count)]
        for index, node in enumerate(self.nodes):  # the first node's genesis is every one's
            genesis = packages if index == 0 else ()
            node.create(balances, empty_blocks=True, packages=genesis, creator_key=creator_key)
            node.secrets("init")
        first = self.nodes[0]
        first.launch(at_least=1)  # writes genesis.json
        first.stop()
        genesis = json.loads((first.dir / "genesis.json").read_text())
        genesis["validators"] = [
            {"address": key["address"], "pub_key": key["pub_key"], "power": "1", "name": f"v{i}"}
            for i, key in enumerate(node.validator_key() for node in self.nodes)
        ]
        text = json.dumps(genesis, indent=2)
        for node in self.nodes:
            (node.dir / "genesis.json").write_text(text)
        # Node 0 made block 1 alone, under the old genesis: gone, with its signing state.
        for name in ("db", "wal"):
            shutil.rmtree(first.dir / "data" / name, ignore_errors=True)
        first.secrets("init", "validator_state", "--force")
        free: list[int] = []
        while len(free) < 2 * count:  # two ports a node, none given twice
            port = free_port()
            if port not in free:
                free.append(port)
        self.ports = [(free[2 * i], free[2 * i + 1]) for i in range(count)]
        ids = [node.node_id() for node in self.nodes]
        for index, node in enumerate(self.nodes):
            node.bind(*self.ports[index])
            peers = [f"{ids[j]}@127.0.0.1:{self.ports[j][1]}" for j in range(count) if j != index]
            node.configure(
                {
                    "p2p.persistent_peers": ",".join(peers),
                    "p2p.allow_duplicate_ip": "true",
                    "p2p.pex": "false",
                }
            )
        layout = {
            "chain_id": CHAIN_ID,
            "validators": [
                {"rpc": rpc, "p2p": p2p, "node_id": ids[i]}
                for i, (rpc, p2p) in enumerate(self.ports)
            ],
        }
        (self.dir / NETWORK_FILE).write_text(json.dumps(layout, indent=2) + "\n")

    def running(self, index: int) -> int | None:
        return running_pid(self.nodes[index].dir)

    def start(self, indexes: list[int], *, detach: bool) -> None:
        """Run these validators (those not running already) and wait until each has a
        block and has caught up with the others."""
        started = [i for i in indexes if self.running(i) is None]
        for i in started:
            claim_port(self.nodes[i].rpc_port, self.nodes[i].url)
        for i in started:
            self.nodes[i].spawn(detach=detach, lazy=False)
        try:
            for i in started:
                self.nodes[i].wait(1, synced=True)
        except BaseException:
            for i in started:
                self.stop(i)
            raise

    def stop(self, index: int, *, kill: bool = False) -> int | None:
        """Stop one validator (SIGTERM; ``kill``: SIGKILL, as a crash); its pid, or None
        if it was not running."""
        node = self.nodes[index]
        if node.proc is not None:  # launched by this object
            if kill and node.proc.poll() is None:
                node.proc.kill()
            launched = node.proc.pid
            node.stop()
            return launched
        pid = running_pid(node.dir)
        if pid is not None:
            stop_pid(node.dir, pid, kill=kill)
        return pid
