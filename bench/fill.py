"""Fill a real gnoland with whole games of the realm, fast: signed here, sent unawaited.

    from fill import Filler
    filler = Filler(node, realm_path)        # sixteen keys, funded by the node's genesis
    filler.games(1000, per_tx=10)            # 1,000 whole games, ten calls a transaction
    filler.games(2000, per_tx=1)             # or one call a transaction: 11 a game

Each game is a pair of the sixteen keys playing offer, accept, both reveals and
seven moves to a win (columns 4 and 5), so every call a real game makes runs, and
the realm's games, players' records, leaderboards and used commitments grow as on a
used realm. Transactions are signed with c4's own signer (``c4cli.wire.tx``) and
sent with ``broadcast_tx_sync``, in order, without waiting for their blocks: tm2's
mempool keeps that order, so each call finds the state the previous ones made (and
the ids the realm gives are known in advance). With ``per_tx`` above one, a
transaction holds one signer's calls of that many games at the same step. At the end
the filler waits for every key's sequence to be the one it signed up to, and checks
that the realm counts the games it was sent.
"""

from __future__ import annotations

import base64
import hashlib
import time
from pathlib import Path
from typing import Any

from c4cli.client import workflow
from c4cli.commitment import commitment_of
from c4cli.realm.memory import first_mover
from c4cli.realm.rules import CREATOR
from c4cli.wire import crypto
from c4cli.wire.std import encode_tx
from c4cli.wire.tx import fee, signed_tx

PLAYERS = 16
STAKE = 1_000_000  # ugnot
MOVES = "4545454"  # the first mover wins on its fourth disc
GAS_A_CALL = 60_000_000  # what a transaction may burn per call it holds
BLOCK_GAS = 3_000_000_000  # gnoland's block limit: no transaction may want more
FUNDS = 10**13  # ugnot each key is given in genesis
TEST1 = "g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5"  # the dev mnemonic's key: deploys
PACKAGE_PATH = "gno.land/p/c4cli/gno4"
GNO = Path(__file__).resolve().parents[1] / "gno"  # the rules package and the realm


def fast_node(folder: Path, *, empty_blocks: bool = False) -> Any:
    """A gnoland in ``folder`` (tests/real_gnoland/gnonode.py's GnoNode, gno's binaries from
    scripts/install-gno.sh) that makes a block 20 ms after the last (with
    ``empty_blocks``, whether or not a transaction came), whose genesis funds the
    sixteen players and test1, with the rules package deployed; the caller stops it."""
    from real_gnoland.gnonode import GnoNode, install_gno

    from c4cli.home.keys import DEV_MNEMONIC

    bin_dir, gnoroot = install_gno()
    node = GnoNode(bin_dir, gnoroot, folder / "node")
    node.create(
        {address: FUNDS for address in addresses()} | {TEST1: FUNDS}, empty_blocks=empty_blocks
    )
    node.configure({"consensus.timeout_commit": "20ms", "consensus.timeout_propose": "200ms"})
    node.launch()
    try:
        node.deploy(GNO / "p" / "c4cli" / "gno4", PACKAGE_PATH, DEV_MNEMONIC)
    except BaseException:
        node.stop()
        raise
    return node


def key_of(n: int) -> bytes:
    return hashlib.sha256(f"c4 bench player {n}".encode()).digest()


def addresses() -> list[str]:
    """The sixteen players' addresses, to fund in a node's genesis."""
    return [crypto.address_of(crypto.public_key(key_of(n))) for n in range(PLAYERS)]


class Filler:
    """Whole games sent to ``realm_path`` on ``node`` (tests/real_gnoland/gnonode.py's GnoNode)."""

    def __init__(
        self, node: Any, realm_path: str, chain_id: str = "dev", counter: str = "gameCount"
    ) -> None:
        self.node = node
        self.realm = realm_path
        self.chain_id = chain_id
        self.players = addresses()
        self.accounts = [node.account(address) for address in self.players]
        self.sequences = [sequence for _, sequence in self.accounts]
        self.sent = 0  # transactions
        self.counter = counter  # the realm's expression of how many games it made
        self.made = self.count()

    def games(self, count: int, *, per_tx: int = 1) -> None:
        """``count`` more whole games, every call landed; ``per_tx`` games' calls of
        one step and one signer in each transaction."""
        pairs = PLAYERS // 2
        left = count
        while left:
            # A round: each pair plays a batch of games, step by step, in one order.
            batches: list[tuple[int, list[int]]] = []
            for pair in range(pairs):
                size = min(per_tx, left)
                if not size:
                    break
                ids = list(range(self.made + 1, self.made + size + 1))
                self.made += size
                left -= size
                batches.append((pair, ids))
            for step in range(4 + len(MOVES)):
                for pair, ids in batches:
                    self._step(pair, ids, step)
        self.settle()

    def _step(self, pair: int, ids: list[int], step: int) -> None:
        """One step of a pair's games: each of its two keys signs its calls in one
        transaction (or one a call when a transaction holds one game)."""
        a, b = 2 * pair, 2 * pair + 1
        calls: dict[int, list[workflow.Call]] = {a: [], b: []}
        for game in ids:
            passphrase, seed = f"pass-{self.realm}-{game}", f"seed-{self.realm}-{game}"
            if step == 0:
                calls[a].append(
                    workflow.offer_call(
                        STAKE, commitment_of(passphrase), valid_for=60, max_fee=500_000
                    )
                )
            elif step == 1:
                calls[b].append(workflow.accept_call(game, commitment_of(seed), STAKE))
            elif step == 2:
                calls[a].append(workflow.reveal_call(game, passphrase, acceptor=False))
            elif step == 3:
                calls[b].append(workflow.reveal_call(game, seed, acceptor=True))
            else:
                number = step - 4
                first = first_mover(passphrase, seed, game, self.players[a], self.players[b])
                movers = (a, b) if first == CREATOR else (b, a)
                calls[movers[number % 2]].append(workflow.play_call(game, MOVES[number], number))
        for player, made in calls.items():
            if made:
                self.send(player, made)

    def signed(self, player: int, calls: list[workflow.Call], wanted: int) -> str:
        """``player``'s calls in one transaction at its next sequence, ``wanted`` gas
        paid at 0.1 ugnot a unit: its bytes, base64, as the RPC takes them."""
        number, _ = self.accounts[player]
        tx = signed_tx(
            [call.msg(self.players[player], self.realm) for call in calls],
            fee(wanted, f"{wanted // 10}ugnot"),
            "",
            private_key=key_of(player),
            chain_id=self.chain_id,
            account_number=number,
            sequence=self.sequences[player],
        )
        self.sequences[player] += 1
        return base64.b64encode(encode_tx(tx)).decode()

    def send(self, player: int, calls: list[workflow.Call]) -> None:
        """One transaction of ``player``'s calls, sent unawaited (refused: an error)."""
        tx = self.signed(player, calls, min(GAS_A_CALL * len(calls), BLOCK_GAS))
        answer = self.node.rpc("broadcast_tx_sync", tx=tx)
        error = answer.get("error")
        if error:
            raise RuntimeError(f"the node refused a transaction: {answer.get('log') or error}")
        self.sent += 1

    def count(self) -> int:
        return int(self.node.qeval(self.realm, self.counter).split(" ")[0].lstrip("("))

    def resync(self) -> None:
        """The keys' sequences read again, after others signed for them (c4 itself)."""
        self.settle_sent()
        self.sequences = [self.node.account(address)[1] for address in self.players]

    def settle_sent(self, timeout: float = 1800) -> None:
        """Wait until every transaction sent is in a block."""
        deadline = time.monotonic() + timeout
        for player, address in enumerate(self.players):
            while self.node.account(address)[1] < self.sequences[player]:
                if time.monotonic() > deadline:
                    raise RuntimeError("the node did not take every transaction in time")
                time.sleep(0.2)

    def settle(self, timeout: float = 1800) -> None:
        """Wait until every transaction sent is in a block, then check that each game
        was made and none is left open or in play."""
        self.settle_sent(timeout)
        counted = self.count()
        live = self.node.query("vm/qeval", f"{self.realm}.ActiveJSON(0, 100)")[0]
        if counted != self.made or '"games":[]' not in live.replace('\\"', '"'):
            raise RuntimeError(
                f"the realm counts {counted} games of the {self.made} sent; live: {live[:200]}"
            )
