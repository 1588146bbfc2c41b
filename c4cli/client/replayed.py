"""The realm's state computed from its history: every delivered call run again by c4's
mirror of the realm, with its block's time and height and the account that signed.

The history (:mod:`c4cli.node.history.index`) holds the realm's deployment (its creator is
the realm's first owner, as its ``init`` reads the origin caller) and every call the
chain delivered or refused; only the delivered ones change the state, and each must
be delivered by the mirror too: one the mirror refuses is a divergence of c4 from the
GnoVM (or a forged history, which the blocks' proofs rule out), exit 4, never a state
shown as the realm's. What c4 does not replay (code run once, a call through another
realm, bytes c4 cannot read) leaves the state from that block on the node's word,
and says so.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import NamedTuple, TypeVar

from c4cli.address import package_address
from c4cli.chain.interface import GameCall
from c4cli.chain.trust import (
    CALL,
    DEPLOY,
    RUN,
    SEND,
    UNKNOWN,
    CheckpointDamaged,
    IndexedTx,
    RealmHistory,
    ReplayKeep,
    Saved,
)
from c4cli.coins import UGNOT, parse_coins
from c4cli.errors import BadInput, Unverified
from c4cli.local import sources
from c4cli.local.cache import code_fingerprint
from c4cli.realm import abi, rules
from c4cli.realm.memory import Context, Game, RealmPanic, RealmState
from c4cli.wire.msgs import MSG_ADD_PACKAGE, MsgCall, MsgPackage, MsgSend
from c4cli.wire.std import DecodeError, decode_tx

ABOUT_GAMES = (DEPLOY, CALL, SEND, RUN, UNKNOWN)
T = TypeVar("T")


class Flow(NamedTuple):
    """Coins one delivered call moved: what it sent the realm, and what the realm paid
    out (to, ugnot); or, for ``func`` "", coins sent to the realm's address."""

    func: str
    sent: int
    transfers: tuple[tuple[str, int], ...]


REFUNDS = ("Cancel",)  # a call whose payout gives a stake back, whatever it pays
WITHDRAWALS = ("WithdrawFees",)


class Tally(NamedTuple):
    """The coins the realm's calls moved, summed (ugnot): what they sent it, what bank
    sends gave its address, the payouts of won games, the stakes given back, the fees
    withdrawn. Kept as sums, so that the books cost the same on any history."""

    taken: int = 0
    sent: int = 0
    paid: int = 0
    refunded: int = 0
    withdrawn: int = 0

    def plus(self, flow: Flow) -> Tally:
        if not flow.func:
            return self._replace(sent=self.sent + flow.sent)
        out = sum(amount for _, amount in flow.transfers)
        taken = self.taken + flow.sent
        if flow.func in WITHDRAWALS:
            return self._replace(taken=taken, withdrawn=self.withdrawn + out)
        if flow.func in REFUNDS or len(flow.transfers) > 1:
            # A cancelled offer; a draw or a void game gives both stakes back.
            return self._replace(taken=taken, refunded=self.refunded + out)
        return self._replace(taken=taken, paid=self.paid + out)


def tally_of(flows: Iterable[Flow]) -> Tally:
    tally = Tally()
    for flow in flows:
        tally = tally.plus(flow)
    return tally


class Computed(NamedTuple):
    """The realm's state as its history makes it, through the history's last block;
    ``state`` None, or ``unknown`` said, where the history cannot make it (why)."""

    state: RealmState | None
    height: int
    unknown: str
    # The delivered calls this run replayed, with their games (the earlier ones are
    # in the checkpoint, to ``kept`` blocks).
    calls: list[tuple[IndexedTx, int | None]]
    tally: Tally  # the coins the delivered calls moved
    # The time of the last block that held a transaction about the realm (0: none): the
    # realm's state stands from there to the head, so any block between answers it.
    changed: int = 0
    keep: ReplayKeep | None = None
    kept: int = 0  # the block the checkpoint the run began from stands at


REPLAY_VERSION = "1"  # the checkpoint's state, as this module makes and keeps it


@lru_cache(maxsize=1)
def mirror_code() -> str:
    """What names the code a checkpoint's state was made by (this module's version and
    the mirror's files): a checkpoint of another is made again, never read."""
    return f"replay {REPLAY_VERSION} {code_fingerprint()}"


class _Cold:
    """The realm's ``Store`` over a checkpoint: the settled games and used commitments
    its state leaves out, read back one at a time."""

    def __init__(self, keep: ReplayKeep) -> None:
        self.keep = keep

    def game(self, game_id: int) -> Game:
        try:
            game = Game.from_record(self.keep.record(game_id))
        except (KeyError, TypeError, ValueError) as exc:
            raise CheckpointDamaged(f"game {game_id}: {exc}") from None
        if game.id != game_id:
            raise CheckpointDamaged(f"game {game_id} is kept as game {game.id}")
        return game

    def used(self, address: str, commitment: str) -> bool:
        return self.keep.used(address, commitment)


def computed(history: RealmHistory, height: int) -> Computed:
    """The state the history's delivered calls make (it holds blocks up to ``height``),
    run again by the mirror from the history's checkpoint (kept between runs, brought
    forward here by the rows since), and the coins they moved. A checkpoint that does
    not hold together is forgotten, and the state made from the first row."""
    keep = history.checkpoint(mirror_code())
    try:
        return _computed(history, height, keep)
    except CheckpointDamaged:
        if keep is None:
            raise
        try:
            keep.discard()
        except sqlite3.Error:  # a file that cannot be written: made in memory, each run
            return _computed(history, height, None)
        return _computed(history, height, keep)


def read_made(history: RealmHistory, height: int, read: Callable[[Computed], T]) -> T:
    """``read`` of the state the history makes (:func:`computed`); a checkpoint found
    damaged while it reads (a settled game, a game's calls) is forgotten, and the state
    made again from the first row for a second read."""
    try:
        return read(computed(history, height))
    except CheckpointDamaged:
        forget(history)
        return read(computed(history, height))


def forget(history: RealmHistory) -> None:
    """The history's checkpoint forgotten: the next :func:`computed` makes the state from
    the first row (a file that cannot be written keeps it, and is found damaged again)."""
    keep = history.checkpoint(mirror_code())
    if keep is not None:
        with contextlib.suppress(sqlite3.Error):
            keep.discard()


def _computed(history: RealmHistory, height: int, keep: ReplayKeep | None) -> Computed:
    realm = history.realm_path
    address = package_address(realm)  # once a run, not once a row
    saved = None if keep is None else keep.load(height)
    if keep is not None and saved is None:
        # None to begin from (or one of other code, or above ``height``): its rows
        # would answer for games and commitments this run has not made. Made anew.
        try:
            keep.discard()
        except sqlite3.Error:
            keep = None  # a file that cannot be written: made in memory, each run
    state: RealmState | None = None
    unknown, changed, tally, above = "", 0, Tally(), 0
    if saved is not None:
        assert keep is not None
        try:
            if saved.state is not None:
                state = RealmState.restore(saved.state, _Cold(keep))
            tally = Tally(*saved.tally)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise CheckpointDamaged(f"its state cannot be read: {exc}") from None
        unknown, changed, above = saved.unknown, saved.changed, saved.height
    calls: list[tuple[IndexedTx, int | None]] = []
    for row in () if unknown else history.rows(kinds=ABOUT_GAMES, above=above):
        changed = row.time
        if not row.ok:
            continue
        if row.kind == SEND:
            tally = tally.plus(Flow("", _sent_to(row, address), ()))
            continue
        if row.kind == DEPLOY:
            if state is not None:
                unknown = f"block {row.height} deployed the realm again"
                break
            unknown = _not_mirrored(row, realm)
            if unknown:
                break
            state = RealmState(realm, row.signer, None if keep is None else _Cold(keep))
            continue
        if state is None:
            unknown = UNDEPLOYED
            break
        if row.kind in (RUN, UNKNOWN):
            what = "code run once" if row.kind == RUN else "a transaction c4 does not replay"
            unknown = (
                f"block {row.height}: {what} ({row.hash}) reached the realm; from there its "
                "state is the node's word"
            )
            break
        for game, flow in _replay(state, realm, address, row):
            calls.append((row, game))
            tally = tally.plus(flow)
    if keep is not None and (saved is None or saved.height < height):
        _keep(keep, Saved(height, None, unknown, changed, tuple(tally)), state, calls)
    if state is None and not unknown:
        unknown = UNDEPLOYED
    kept = 0 if saved is None else saved.height
    return Computed(state, height, unknown, calls, tally, changed, keep, kept)


def _keep(
    keep: ReplayKeep,
    saved: Saved,
    state: RealmState | None,
    calls: list[tuple[IndexedTx, int | None]],
) -> None:
    """The run's state kept as the checkpoint (a file that cannot be written only makes
    the next run replay more): the games it settled and commitments it used go to
    their rows, and leave memory."""
    settled = [] if state is None else state.games.settled_in_memory()
    used = set() if state is None else state.used_commitments.recent()
    where = [(game, row.height, row.position) for row, game in calls if game is not None]
    try:
        done = keep.save(
            saved._replace(state=None if state is None else state.snapshot()),
            [(game.id, game.to_record()) for game in settled],
            sorted(used),
            where,
        )
    except sqlite3.Error:
        return
    if done and state is not None:
        state.games.release(settled)
        state.used_commitments.release(used)


def _sent_to(row: IndexedTx, address: str) -> int:
    """The ugnot a delivered bank send gave the realm's address."""
    total = 0
    for msg in decode_tx(row.tx).msgs:
        if isinstance(msg, MsgSend) and msg.to_address == address:
            total += parse_coins(msg.amount).get(UGNOT, 0)
    return total


def _not_mirrored(row: IndexedTx, realm: str) -> str:
    """Why the realm a deployment holds is not the one c4's mirror runs; "" when its Gno
    files (tests aside) are c4's, byte for byte. Another version (an older realm, one
    changed by hand) is the node's word, said, never held to a mirror of other code."""
    mine = {name: sources.file_text(name, realm) for name in sources.source_files()}
    try:
        msgs = decode_tx(row.tx).msgs
    except (DecodeError, UnicodeDecodeError, ValueError):
        msgs = ()
    for msg in msgs:
        if not isinstance(msg, MsgPackage) or msg.type_url != MSG_ADD_PACKAGE:
            continue
        if msg.package_path != realm:
            continue
        try:
            files = msg.files()
        except (DecodeError, UnicodeDecodeError):
            break
        theirs = {name: body for name, body in files.items() if name in mine}
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


def _replay(
    state: RealmState, realm: str, address: str, row: IndexedTx
) -> list[tuple[int | None, Flow]]:
    """Run a delivered transaction's calls of the realm; the game each was about, and
    the coins it moved."""
    try:
        msgs = decode_tx(row.tx).msgs
    except (DecodeError, UnicodeDecodeError) as exc:
        raise Unverified(
            f"block {row.height}: transaction {row.hash} cannot be read: {exc}"
        ) from None
    games: list[tuple[int | None, Flow]] = []
    for msg in msgs:
        if not isinstance(msg, MsgCall) or msg.pkg_path != realm:
            continue
        func, args = msg.func, list(msg.args)
        try:
            sent = parse_coins(msg.send)
        except BadInput as exc:
            raise Unverified(f"block {row.height}: {row.hash} sent {exc}") from None
        ctx = Context(
            caller=msg.caller,
            send=sent,
            now=row.time,
            height=row.height,
            realm_address=address,
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
    """The delivered calls about one game, oldest first, as a chain's record gives them:
    those the checkpoint holds, then those this run replayed."""
    rows = [] if done.keep is None or not done.kept else done.keep.calls_of(game_id, done.kept)
    rows += [row for row, game in done.calls if game == game_id]
    found: list[GameCall] = []
    for row in rows:
        if found and found[-1].hash == row.hash:
            continue
        msgs = [m for m in decode_tx(row.tx).msgs if isinstance(m, MsgCall)]
        funcs = [m.func for m in msgs]
        args = [list(m.args) for m in msgs]
        found.append(GameCall(row.height, row.hash, row.signer, funcs, args, row.time))
    return found
