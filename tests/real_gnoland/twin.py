"""Two chains, one scenario: c4's local chain and a real gno.land node.

Every step is signed by c4 (the same message, each chain's own account number
and sequence), sent to the node, then appended to the local chain at the
node's block time. After each step the two are compared on everything a
client can read: accepted or refused and the realm's text, the call's result,
GameJSON of the games touched, ActiveJSON, LeadersJSON, Render of the lobby
and of those games, every player's balance (net of what each chain charges
for gas and storage), the realm's balance, the fees collected and the owner, the
records the realm commits (GameRecord, BooksRecord, LeadersRecord), and the digests
it committed in its parameters (the node's main store) against the mirror's.

The node makes a block only for a transaction (and for the proof block that
follows it), so a query's ``now`` is the latest block time; the local chain is
moved to that same second before it is read.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from real_gnoland.gnonode import GAS_FEE, GAS_WANTED, GnoNode, NodeError

from c4cli.chain.interface import Signer
from c4cli.client import workflow
from c4cli.coins import UGNOT, format_coins
from c4cli.errors import Refused
from c4cli.gotext import parse_result
from c4cli.local.chain import LocalChain
from c4cli.local.genesis import Genesis
from c4cli.realm import commitments
from c4cli.wire import crypto
from c4cli.wire.std import encode_tx
from c4cli.wire.tx import fee, signed_tx

T = TypeVar("T")
REALM_PATH = "gno.land/r/c4cli/connect4"
PACKAGE_PATH = "gno.land/p/c4cli/gno4"
FEE_UGNOT = int(GAS_FEE.removesuffix("ugnot"))
PLAYER_FUNDS = 1_000_000_000_000  # 1M GNOT each
PLAYERS = ("alice", "bob", "carol", "dave")
WHALE_FUNDS = 2**62 - 10**14  # two of them, and the players, stay within int64
GAME_FUNCS = ("Accept", "Reveal", "RevealSeed", "Play", "ClaimTimeout", "Resign", "Cancel")


def player_key(name: str) -> bytes:
    """A fixed private key per test player (sha256 of its name: a valid secp256k1 scalar)."""
    return hashlib.sha256(f"c4cli differential test key {name}".encode()).digest()


def is_account(name: str) -> bool:
    """Whether a test key is an account (funded at genesis), not a session key."""
    return not name.endswith("-session")


def address_of_key(private_key: bytes) -> str:
    return crypto.address_of(crypto.public_key(private_key))


MADE: list[Twin] = []  # every twin of the session, for the summary line


class Difference(AssertionError):
    """The two chains answered differently."""


@dataclass
class Outcome:
    accepted: bool
    text: str  # the refusal's text, "" when accepted
    data: str  # the call's result, as the VM delivers it
    height: int
    time: int


@dataclass
class Twin:
    node: GnoNode
    local: LocalChain
    keys: dict[str, bytes]
    steps: int = 0
    comparisons: int = 0
    costs_node: dict[str, int] = field(default_factory=dict)
    costs_local: dict[str, int] = field(default_factory=dict)
    start_node: dict[str, int] = field(default_factory=dict)
    start_local: dict[str, int] = field(default_factory=dict)
    max_game: int = 0
    differences: int = 0

    @classmethod
    def create(cls, node: GnoNode, home: Path, keys: dict[str, bytes], deployer: str) -> Twin:
        start = node.block_time(node.latest_height())
        balances = {
            address_of_key(k): node.balance(address_of_key(k))
            for name, k in keys.items()
            if is_account(name)
        }
        local = LocalChain(home)
        local.init(
            Genesis(
                chain_id="dev",
                time=start,
                clock="manual",
                block_interval=1,
                realm_path=REALM_PATH,
                deployer=deployer,
                balances=tuple((a, format_coins({UGNOT: n})) for a, n in balances.items()),
            )
        )
        twin = cls(node=node, local=local, keys=keys)
        MADE.append(twin)
        twin.start_node = dict(balances)
        twin.start_local = dict(balances)
        return twin

    def address(self, name: str) -> str:
        return address_of_key(self.keys[name])

    # -- one step on both chains -------------------------------------------------------

    def call(
        self, who: str, func: str, args: Iterable[str], send: int = 0, *, session: str = ""
    ) -> Outcome:
        """Sign and run one realm call on both chains, then compare everything readable.

        ``session`` names a key in ``keys`` that signs as a session of ``who``.
        """
        return self.send(
            who, workflow.Call(func, list(args), workflow.coins(send)), session=session
        )

    def send(self, who: str, call: workflow.Call, *, session: str = "") -> Outcome:
        """One call, as the game workflow builds it, on both chains; then compare."""
        label = (
            f"{who} {call.func}({', '.join(map(repr, call.args))})"
            + (f" sending {call.send}" if call.send else "")
            + (f" signed by the session {session}" if session else "")
        )
        msg = call.msg(self.address(who), REALM_PATH)
        outcome = self.submit(label, who, msg, session=session, realm_texts=True)
        touched = set()
        if outcome.accepted and call.func == "Offer":
            touched.add(int(outcome.data.split()[0].lstrip("(")))
        first = call.args[0] if call.args else ""
        if call.func in GAME_FUNCS and first.isdigit() and int(first) < 2**31:
            touched.add(int(first))
        self.compare(f"step {self.steps}: {label}", touched)
        return outcome

    def submit(
        self,
        label: str,
        who: str,
        msg: dict[str, Any],
        *,
        session: str = "",
        realm_texts: bool = False,
    ) -> Outcome:
        """One message on both chains: accepted or not must agree, and with
        ``realm_texts`` the refusal's words and the result too (the chain's own
        refusals, outside the realm, are worded by each chain its own way)."""
        self.steps += 1
        label = f"step {self.steps}: {label}"
        address = self.address(who)
        key = self.keys[session] if session else self.keys[who]
        session_addr = address_of_key(key) if session else None
        on_node = self._node_tx(key, address, msg, session_addr)
        on_local = self._local_tx(key, address, msg, session_addr, on_node.time)
        self._same(
            label, "accepted", on_node.accepted, on_local.accepted, on_node.text, on_local.text
        )
        if on_node.accepted:
            self._same(label, "block time", on_node.time, on_local.time)
        if realm_texts:
            self._same(label, "refusal text", on_node.text, on_local.text)
            self._same(label, "result", on_node.data, on_local.data)
        return on_node

    def _node_tx(
        self, key: bytes, address: str, msg: dict[str, Any], session_addr: str | None
    ) -> Outcome:
        number, sequence = self.node.account(address)
        if session_addr is not None:
            try:
                number, sequence = self.node.session_account(address, session_addr)
            except NodeError:  # revoked or never made: the node will refuse the tx
                number, sequence = 0, 0
        tx = signed_tx(
            [msg],
            fee(GAS_WANTED, GAS_FEE),
            "",
            private_key=key,
            chain_id="dev",
            account_number=number,
            sequence=sequence,
            session_addr=session_addr,
        )
        answer = self.node.broadcast(encode_tx(tx))
        check = answer["check_tx"]["ResponseBase"]
        if check.get("Error"):
            text = _first_line(str(check.get("Log", "")))
            return Outcome(False, text, "", 0, self.node.block_time(self.node.latest_height()))
        deliver = answer["deliver_tx"]["ResponseBase"]
        height = int(answer["height"])
        self.costs_node[address] = self.costs_node.get(address, 0) + FEE_UGNOT
        for event in deliver.get("Events") or []:
            kind = event.get("@type", "")
            if kind == "/tm.StorageDepositEvent":
                self.costs_node[address] += _ugnot(event["fee_delta"])
            elif kind == "/tm.StorageUnlockEvent" and not event.get("refund_withheld"):
                self.costs_node[address] -= _ugnot(event["fee_refund"])
        error = deliver.get("Error")
        if error:
            if error.get("@type") == "/abci.StringError":
                text = str(error.get("value"))
            else:  # argument errors: the keeper's panic, recovered by the app
                log = str(deliver.get("Log", ""))
                text = log.split("\nstack:", 1)[0].removeprefix("recovered: ")
            return Outcome(False, text, "", height, self.node.block_time(height))
        data = _b64text(deliver.get("Data"))
        return Outcome(True, "", data, height, self.node.block_time(height))

    def _local_tx(
        self, key: bytes, address: str, msg: dict[str, Any], session_addr: str | None, at: int
    ) -> Outcome:
        state = self.local.state()
        if at - 1 > state.time:
            self.local.set_time(at - 1)
        try:
            receipt = self.local.submit(
                Signer(address, key, session_addr),
                lambda _reader: [msg],
                fee(GAS_WANTED, GAS_FEE),
                "",
            )
        except Refused as exc:
            # A refused transaction is not appended; the node still made a
            # block for it, so the local clock follows it there.
            self._follow(at)
            return Outcome(False, str(exc), "", 0, at)
        self.costs_local[address] = self.costs_local.get(address, 0) + FEE_UGNOT
        return Outcome(True, "", receipt.result.data, receipt.height, receipt.time)

    def _follow(self, unix: int) -> None:
        if unix > self.local.state().time:
            self.local.set_time(unix)

    # -- comparing ---------------------------------------------------------------------

    def _same(self, label: str, what: str, node: Any, local: Any, *why: str) -> None:
        self.comparisons += 1
        if node != local:
            self.differences += 1
            because = f"\n  (node: {why[0]!r}, local: {why[1]!r})" if why else ""
            raise Difference(
                f"{label}: {what} differs\n  node:  {node!r}\n  local: {local!r}{because}"
            )

    def _within_one_block(self, label: str, read: Callable[[], T]) -> T:
        """What ``read`` gets from the node while no block comes (the proof block after a
        transaction's may come late on a busy machine); the local chain is then moved to
        the time the node's realm read."""
        for _ in range(20):
            before = self.node.latest_height(), self._node_now()
            got = read()
            if (self.node.latest_height(), self._node_now()) == before:
                self._follow(before[1])
                return got
        raise Difference(f"{label}: the node kept making blocks while it was read")

    def _node_now(self) -> int:
        """The time the realm reads on the node: its last block as the app committed it.
        The block store (``status``) can be a block ahead of the app for a moment."""
        value, _ = parse_result(self.node.qeval(REALM_PATH, "ActiveJSON(0,0)"))
        return int(json.loads(value)["now"])

    def compare(self, label: str, games: Iterable[int] = ()) -> None:
        """Compare every read of the realm, and the balances, at the node's latest block."""
        node_reads = self._within_one_block(label, lambda: self._node_reads(games))
        local_reads = self._local_reads(games)
        for what, value in node_reads.items():
            self._same(label, what, value, local_reads[what])

    def compare_reads(self, label: str, reads: list[tuple[str, list[str]]]) -> None:
        """Compare read-only calls (no transaction) on both chains at the same block."""
        for func, args in reads:
            what = f"{func}({', '.join(map(repr, args))})"

            def node_read(func: str = func, args: list[str] = args) -> Any:
                if func == "Render":
                    return self.node.render(REALM_PATH, args[0])
                return self.node.qeval(REALM_PATH, f"{func}({','.join(args)})")

            node = self._within_one_block(label, node_read)
            self._same(label, what, node, self._local_read(func, args))

    def _reads(self, games: Iterable[int]) -> list[tuple[str, str, list[str]]]:
        reads = [
            ("ActiveJSON", "ActiveJSON", ["0", "100"]),
            ("LeadersJSON", "LeadersJSON", []),
            ("Render('')", "Render", [""]),
            ("Render('new')", "Render", ["new"]),
        ]
        reads.append(("BooksRecord()", "BooksRecord", []))
        reads.append(("LeadersRecord()", "LeadersRecord", []))
        for game in sorted(set(games)):
            reads.append((f"GameJSON({game})", "GameJSON", [str(game)]))
            reads.append((f"GameRecord({game})", "GameRecord", [str(game)]))
            reads.append((f"Render('game/{game}')", "Render", [f"game/{game}"]))
        return reads

    @staticmethod
    def _committed(games: Iterable[int]) -> list[str]:
        """The realm-local parameters the realm commits its state in: its books', its
        leaderboards' and each game's (chain/params, proven by the main store)."""
        games = (commitments.game_key(g) for g in sorted(set(games)))
        return [commitments.BOOKS_KEY, commitments.LEADERS_KEY, *games]

    def _node_reads(self, games: Iterable[int]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, func, args in self._reads(games):
            if func == "Render":
                out[name] = self.node.render(REALM_PATH, args[0])
            else:
                out[name] = self.node.qeval(REALM_PATH, f"{func}({','.join(args)})")
        out["collected"] = self.node.qeval(REALM_PATH, "collected")
        out["owner"] = self.node.qeval(REALM_PATH, "owner")
        for key in self._committed(games):
            found = self.node.stored(commitments.store_key(REALM_PATH, key))
            out[f"committed {key}"] = found.hex() if found is not None else None
        realm = self.local.state().realm_address
        out["realm balance"] = self.node.balance(realm)
        for name, key in self.keys.items():
            if not is_account(name):
                continue
            address = address_of_key(key)
            spent = self.costs_node.get(address, 0)
            out[f"{name}'s balance"] = self.node.balance(address) - self.start_node[address] + spent
        return out

    def _local_read(self, expression: str, args: list[str]) -> str:
        """What the local chain answers, through the same Chain interface every command uses."""
        if expression == "Render":
            return self.local.query("vm/qrender", f"{REALM_PATH}:{args[0]}").data
        if expression in ("collected", "owner"):
            return self.local.query("vm/qeval", f"{REALM_PATH}.{expression}").data
        return self.local.query("vm/qeval", f"{REALM_PATH}.{expression}({','.join(args)})").data

    def _local_reads(self, games: Iterable[int]) -> dict[str, Any]:
        state = self.local.state()
        out: dict[str, Any] = {}
        for name, func, args in self._reads(games):
            out[name] = self._local_read(func, args)
        out["collected"] = self._local_read("collected", [])
        out["owner"] = self._local_read("owner", [])
        realm = state.realm
        for key in self._committed(games):
            if key == commitments.BOOKS_KEY:
                record: bytes | None = commitments.books_of(realm).encode()
            elif key == commitments.LEADERS_KEY:
                record = commitments.leaders_of(realm).encode()
            else:
                game = realm.games.get(int(key.removeprefix(commitments.GAME_PREFIX)))
                record = None if game is None else commitments.game_record(game)
            out[f"committed {key}"] = None if record is None else commitments.digest(record).hex()
        out["realm balance"] = state.balance(state.realm_address)
        for name, key in self.keys.items():
            if not is_account(name):
                continue
            address = address_of_key(key)
            spent = self.costs_local.get(address, 0)
            out[f"{name}'s balance"] = state.balance(address) - self.start_local[address] + spent
        return out


def _first_line(log: str) -> str:
    """The message of a tm2 error log ("--= Error =--" then "Data: …", or plain text)."""
    lines = [line for line in log.splitlines() if line.strip()]
    if lines and lines[0].startswith("--= Error =--") and len(lines) > 1:
        return lines[1]
    return lines[0] if lines else ""


def _ugnot(coin: Any) -> int:
    text = str(coin.get("amount") if isinstance(coin, dict) else coin)
    return int(text.removesuffix("ugnot"))


def _b64text(data: Any) -> str:
    import base64

    return base64.b64decode(data or "").decode()


def dump(value: Any) -> str:
    return json.dumps(value)
