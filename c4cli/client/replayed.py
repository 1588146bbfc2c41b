"""The realm's state computed from its history: every delivered call run again by c4's
mirror of the realm, with its block's time and height and the account that signed.

The history (:mod:`c4cli.node.history`) holds the realm's deployment (its creator is
the realm's first owner, as its ``init`` reads the origin caller) and every call the
chain delivered or refused; only the delivered ones change the state, and each must
be delivered by the mirror too: one the mirror refuses is a divergence of c4 from the
GnoVM (or a forged history, which the blocks' proofs rule out), exit 4, never a state
shown as the realm's. What c4 does not replay (code run once, a call through another
realm, bytes c4 cannot read) leaves the state from that block on the node's word,
and says so.
"""

from __future__ import annotations

from typing import NamedTuple

from c4cli.address import package_address
from c4cli.chain.interface import GameCall
from c4cli.chain.trust import CALL, DEPLOY, RUN, SEND, UNKNOWN, IndexedTx, RealmHistory
from c4cli.coins import UGNOT, parse_coins
from c4cli.errors import BadInput, Unverified
from c4cli.local import sources
from c4cli.realm import abi, rules
from c4cli.realm.memory import Context, RealmPanic, RealmState
from c4cli.wire.amino import DecodeError, decode_tx, package_files
from c4cli.wire.msgs import MSG_ADD_PACKAGE, MSG_CALL, MSG_SEND

ABOUT_GAMES = (DEPLOY, CALL, SEND, RUN, UNKNOWN)


class Flow(NamedTuple):
    """Coins one delivered call moved: what it sent the realm, and what the realm paid
    out (to, ugnot); or, for ``func`` "", coins sent to the realm's address."""

    func: str
    sent: int
    transfers: tuple[tuple[str, int], ...]


class Computed(NamedTuple):
    """The realm's state as its history makes it, through the history's last block;
    ``state`` None, or ``unknown`` said, where the history cannot make it (why)."""

    state: RealmState | None
    height: int
    unknown: str
    calls: list[tuple[IndexedTx, int | None]]  # each delivered call, with its game
    flows: list[Flow]  # the coins each moved, in the chain's order
    # The time of the last block that held a transaction about the realm (0: none): the
    # realm's state stands from there to the head, so any block between answers it.
    changed: int = 0


def computed(history: RealmHistory, height: int) -> Computed:
    """The state the history's delivered calls make (it holds blocks up to ``height``),
    run again by the mirror, and the coins they moved."""
    realm = history.realm_path
    state: RealmState | None = None
    calls: list[tuple[IndexedTx, int | None]] = []
    flows: list[Flow] = []
    changed = 0
    for row in history.rows(kinds=ABOUT_GAMES):
        changed = row.time
        if not row.ok:
            continue
        if row.kind == SEND:
            flows.append(Flow("", _sent_to(row, package_address(realm)), ()))
            continue
        if row.kind == DEPLOY:
            if state is not None:
                again = f"block {row.height} deployed the realm again"
                return Computed(state, height, again, calls, flows)
            foreign = _not_mirrored(row, realm)
            if foreign:
                return Computed(None, height, foreign, calls, flows)
            state = RealmState(realm, row.signer)
            continue
        if state is None:
            return Computed(None, height, UNDEPLOYED, calls, flows)
        if row.kind in (RUN, UNKNOWN):
            what = "code run once" if row.kind == RUN else "a transaction c4 does not replay"
            return Computed(
                state,
                height,
                f"block {row.height}: {what} ({row.hash}) reached the realm; from there its "
                "state is the node's word",
                calls,
                flows,
            )
        for game, flow in _replay(state, realm, row):
            calls.append((row, game))
            flows.append(flow)
    if state is None:
        return Computed(None, height, UNDEPLOYED, calls, flows)
    return Computed(state, height, "", calls, flows, changed)


def _sent_to(row: IndexedTx, address: str) -> int:
    """The ugnot a delivered bank send gave the realm's address."""
    total = 0
    for msg in decode_tx(row.tx)["msg"]:
        if msg.get("@type") == MSG_SEND and msg.get("to_address") == address:
            total += parse_coins(str(msg.get("amount") or "")).get(UGNOT, 0)
    return total


def _not_mirrored(row: IndexedTx, realm: str) -> str:
    """Why the realm a deployment holds is not the one c4's mirror runs; "" when its Gno
    files (tests aside) are c4's, byte for byte. Another version (an older realm, one
    changed by hand) is the node's word, said, never held to a mirror of other code."""
    mine = {name: sources.file_text(name, realm) for name in sources.source_files()}
    try:
        msgs = decode_tx(row.tx)["msg"]
    except (DecodeError, UnicodeDecodeError, ValueError):
        msgs = []
    for msg in msgs:
        package = msg.get("package")
        if msg.get("@type") != MSG_ADD_PACKAGE or not isinstance(package, dict):
            continue
        if package.get("path") != realm:
            continue
        theirs = {name: body for name, body in package_files(msg).items() if name in mine}
        differs = sorted(n for n in mine if n != sources.GNOMOD and theirs.get(n) != mine[n])
        if not differs:
            return ""
        return (
            f"block {row.height} deployed a realm whose code is not the one c4's mirror runs "
            f"({differs[0]} differs): its state is the node's word"
        )
    return f"block {row.height}: a deployment of the realm c4 cannot read"


UNDEPLOYED = (
    "the history holds no deployment of the realm (made in the chain's genesis, or "
    "before the first block read): its state is the node's word"
)


def _replay(state: RealmState, realm: str, row: IndexedTx) -> list[tuple[int | None, Flow]]:
    """Run a delivered transaction's calls of the realm; the game each was about, and
    the coins it moved."""
    try:
        msgs = decode_tx(row.tx)["msg"]
    except (DecodeError, UnicodeDecodeError) as exc:
        raise Unverified(
            f"block {row.height}: transaction {row.hash} cannot be read: {exc}"
        ) from None
    games: list[tuple[int | None, Flow]] = []
    for msg in msgs:
        if msg.get("@type") != MSG_CALL or msg.get("pkg_path") != realm:
            continue
        func, args = str(msg.get("func")), [str(arg) for arg in msg.get("args") or []]
        try:
            sent = parse_coins(str(msg.get("send") or ""))
        except BadInput as exc:
            raise Unverified(f"block {row.height}: {row.hash} sent {exc}") from None
        ctx = Context(
            caller=str(msg.get("caller")),
            send=sent,
            now=row.time,
            height=row.height,
            realm_address=package_address(realm),
            session=bool(row.session),
        )
        try:
            result = abi.call(state, ctx, func, args)
        except (RealmPanic, abi.ArgumentError) as exc:
            raise Unverified(
                f"block {row.height}: the chain delivered {func} ({row.hash}), which c4's "
                f"mirror of the realm refuses ({exc}): c4 and the GnoVM differ here"
            ) from None
        game = rules.game_of_call(func, args, [value for value, _ in result.values])
        games.append((game, Flow(func, sent.get(UGNOT, 0), result.transfers)))
    return games


def game_calls(done: Computed, game_id: int) -> list[GameCall]:
    """The delivered calls about one game, oldest first, as a chain's record gives them."""
    found: list[GameCall] = []
    for row, game in done.calls:
        if game != game_id or (found and found[-1].hash == row.hash):
            continue
        msgs = decode_tx(row.tx)["msg"]
        funcs = [str(m.get("func")) for m in msgs if m.get("@type") == MSG_CALL]
        args = [[str(a) for a in m.get("args") or []] for m in msgs if m.get("@type") == MSG_CALL]
        found.append(GameCall(row.height, row.hash, row.signer, funcs, args, row.time))
    return found
