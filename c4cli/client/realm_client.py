"""The connect4 realm as any gno.land client reads it: its JSON accessors and Render.

Everything here comes through :class:`~c4cli.chain.interface.Reader` queries
(``vm/qeval`` of ``GameJSON``, ``ActiveJSON``, ``LeadersJSON`` and the fee
variables, ``vm/qrender``), so a view built on it looks the same against the
local chain and against a node. What the published state means (the payout,
whether a clock ran out, how a game ended) is asked of the realm's own rules
(:mod:`c4cli.realm.rules`), never worked out again here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

from c4cli.chain.interface import GameCall, Reader, TxOutcome
from c4cli.client.verified import checker_of, history_checker_of
from c4cli.engine import BadEncoding, Board
from c4cli.errors import UNDECLARED, Refused, Unreachable
from c4cli.escape import printable
from c4cli.gotext import parse_result
from c4cli.realm import rules
from c4cli.realm.rules import ACCEPTOR, CREATOR, Ending
from c4cli.realm.rules import Status as Status  # GameJSON's statuses, for the commands
from c4cli.records import Record
from c4cli.wire.msgs import MsgCall
from c4cli.wire.paths import QEVAL, QFUNCS, QRENDER


class GameView(Record):
    """One game as GameJSON publishes it, read at block time ``now``."""

    __slots__ = (
        "acceptor",
        "cells",  # column-major, 0 empty, 1 creator's disc, 2 acceptor's
        "commitment",
        "creator",
        "deadline",
        "document",  # the object exactly as published, for --json
        "expires_at",
        "fee",
        "id",
        "last_col",
        "last_row",
        "moves",
        "now",
        "opponent",
        "revealed",
        "seed_commitment",
        "stake",
        "status",
        "turn",
        "turn_player",
        "winner",
    )

    def __init__(self, document: dict[str, Any], now: int) -> None:
        self.id = int(document["id"])
        self.creator = str(document["creator"])
        self.opponent = str(document["opponent"])
        self.acceptor = str(document["acceptor"])
        self.stake = int(document["stake"])
        self.fee = int(document["fee"])
        self.expires_at = int(document["expiresAt"])
        self.commitment = str(document["commitment"])
        self.seed_commitment = str(document["seedCommitment"])
        self.revealed = bool(document["revealed"])
        self.cells = str(document["board"])
        if len(self.cells) != 42 or self.cells.strip("012"):
            raise ValueError("a board that is not 42 cells of 0, 1 and 2")
        self.turn = int(document["turn"])
        self.turn_player = str(document["turnPlayer"])
        self.moves = int(document["moves"])
        self.last_col = int(document["lastCol"])
        self.last_row = int(document["lastRow"])
        self.deadline = int(document["deadline"])
        self.status = Status(document["status"])
        self.winner = str(document["winner"])
        self.now = now
        self.document = document

    def player(self, side: int) -> str:
        return self.creator if side == CREATOR else self.acceptor if side == ACCEPTOR else ""

    @property
    def creator_is_yellow(self) -> bool:
        """Whether the engine's red (the first mover) is the acceptor: drawings swap the
        colours, so the creator's discs are always the red ones (R)."""
        return self._position()[0] == ACCEPTOR

    def board(self) -> Board:
        """The position as the engine's board (red = the first mover)."""
        return self._position()[1]

    def _position(self) -> tuple[int, Board]:
        """Who moved first, and the position with that side's discs red.

        The side with more discs moved first; with equal counts, the side to move
        while the game is played. A settled game with equal counts may have been won
        by either side's last disc: the engine's search, which refuses a four before
        the last move, tells which side moved first (CREATOR when both fit).
        """
        mine, theirs = self.cells.count("1"), self.cells.count("2")
        if mine != theirs:
            first = CREATOR if mine > theirs else ACCEPTOR
        else:
            first = self.turn if self.status == Status.PLAYING and self.turn else CREATOR
        try:
            return first, Board.from_cells(self._red(first))
        except BadEncoding:
            if mine != theirs or first != CREATOR or self.status == Status.PLAYING:
                raise
            return ACCEPTOR, Board.from_cells(self._red(ACCEPTOR))

    def _red(self, first: int) -> str:
        """The published cells with ``first``'s discs as 1, the engine's red."""
        return self.cells if first == CREATOR else self.cells.translate(str.maketrans("12", "21"))

    def four(self) -> tuple[int, ...]:
        """The winning four's cells (``row*7 + col``), or () without one."""
        return self.board().line

    def payout(self) -> int:
        return rules.payout(self.stake, self.fee)

    def ending(self, settled_by: str | None = None) -> Ending | None:
        """How the game ended; ``settled_by`` names the settling call where it is known
        (a receipt, the log), to tell a resignation from a timeout."""
        return rules.ending(self.status, four_in_a_row=bool(self.four()), settled_by=settled_by)

    def offer_expired(self, at: int) -> bool:
        return self.status == Status.OPEN and rules.offer_expired(at, self.expires_at)

    def clock_ran_out(self, at: int) -> bool:
        return self.status == Status.PLAYING and rules.clock_ran_out(at, self.deadline)

    def legal_columns(self) -> list[int]:
        """The 1-based columns with room for a disc."""
        return [col + 1 for col in range(7) if self.cells[col * 6 + 5] == "0"]


class Lobby(NamedTuple):
    """ActiveJSON: the open and playing games, the fee for new offers, at ``now``."""

    now: int
    fee: int
    games: list[GameView]


class Fees(NamedTuple):
    fee: int
    collected: int
    owner: str
    pending_owner: str


class History(NamedTuple):
    """A game as a record of its transactions tells it: the column of each move the
    record holds (by move number), and the last call about the game (for a settled
    game, the one that settled it, when the record holds it)."""

    columns: dict[int, str]
    last_call: str | None

    def order(self, moves: int) -> str | None:
        """The first ``moves`` columns in the order played, if the record holds them all."""
        if any(number not in self.columns for number in range(moves)):
            return None
        return "".join(self.columns[number] for number in range(moves))


def history(calls: list[GameCall], game_id: int) -> History:
    """What a chain's record of one game's transactions says (see ``Chain.game_calls``).

    A move's number is the Play call's own argument: the realm takes a move only at
    that number, so a partial record (a node's journal) still places each move.
    """
    columns: dict[int, str] = {}
    last: str | None = None
    for call in calls:
        for func, args in zip(call.funcs, call.args, strict=False):
            if func != "Offer" and _int_arg(args, 0) != game_id:
                continue  # another message of the same transaction
            number = _int_arg(args, 2)
            if func == "Play" and number is not None:
                columns[number] = args[1]
            last = func
    return History(columns, last)


def game_of(result: TxOutcome) -> int | None:
    """The game a delivered transaction is about (its last realm call about one), or
    None: what the client knows of the realm's calls, not what the chain recorded."""
    game = None
    results = [value for value, _ in result.values]
    for msg in result.tx.msgs:
        if isinstance(msg, MsgCall):
            found = rules.game_of_call(msg.func, list(msg.args), results)
            game = found if found is not None else game
    return game


def game_read_back(reader: Reader, result: TxOutcome) -> list[tuple[str, str]]:
    """What a command reads once its transaction landed (a Chain.submit ``then_read``):
    the game the transaction was about, as :meth:`RealmClient.game` asks for it."""
    about = game_of(result)
    return [] if about is None else [RealmClient(reader).game_query(about)]


def _int_arg(args: list[str], index: int) -> int | None:
    try:
        return int(args[index])
    except (IndexError, ValueError):
        return None


class RealmClient:
    """The realm's reads over any :class:`Reader` (a chain, or a state inside the lock)."""

    def __init__(self, reader: Reader, *, proofs: bool = True) -> None:
        self.reader = reader
        # On a node home whose blocks are proven, every value is held to the realm's
        # history or its committed state; without ``proofs``, to the history alone (a
        # receipt's game, read with its block: proving the state after that block
        # would wait for the next one).
        self.checker = checker_of(reader) if proofs else history_checker_of(reader)

    def _value(self, expression: str) -> str:
        return self._typed(expression)[0]

    def _query(self, expression: str) -> tuple[str, str]:
        """The query (path, data) that evaluates ``expression`` in the realm."""
        return QEVAL, f"{self.reader.realm_path}.{expression}"

    def _typed(self, expression: str, data: str | None = None) -> tuple[str, str]:
        """A value of the realm and its type, as ``vm/qeval`` prints them: asked now, or
        read from ``data``, the answer to that query asked with others."""
        if data is None:
            data = self.reader.query(*self._query(expression)).data
        typed = self._parsed(expression, data)
        if self.checker is not None:

            def again() -> str:
                asked = self.reader.query(*self._query(expression)).data
                return self._parsed(expression, asked)[0]

            # What the history makes is shown; the node's answer only checks it.
            return self.checker.check(expression, typed[0], again), typed[1]
        return typed

    @staticmethod
    def _parsed(expression: str, data: str) -> tuple[str, str]:
        try:
            return parse_result(data)
        except ValueError:
            raise Unreachable(f"the chain answered {expression} with garbage") from None

    def _declared(self, *names: str) -> str:
        """The value of the first of ``names`` the realm declares: versions of the realm
        name the same variable differently (``collected``, ``feesCollected``)."""
        for name in names[:-1]:
            try:
                return self._value(name)
            except Refused as exc:
                if exc.code != UNDECLARED:
                    raise
        return self._value(names[-1])

    def _document(self, expression: str, data: str | None = None) -> Any:
        text = self._typed(expression, data)[0]
        try:
            return json.loads(text)
        except ValueError:
            raise Unreachable(f"the realm's {expression} is not JSON") from None

    def game_json(self, game_id: int) -> str:
        text = self._value(f"GameJSON({game_id})")
        with self._shape("GameJSON"):
            self._same_game(game_id, json.loads(text))
        return text

    def game_query(self, game_id: int) -> tuple[str, str]:
        """The query :meth:`game` asks, to be asked ahead of it."""
        return self._query(f"GameJSON({game_id})")

    def prove_games(self, ids: Sequence[int]) -> None:
        """Where reads are proven by the realm's digests, games ``ids`` proven ahead of
        their reads, in as few requests as the proofs allow (client/proven.py)."""
        ahead = getattr(self.checker, "prove_games", None)
        if callable(ahead):
            ahead(ids)

    def game(self, game_id: int) -> GameView | None:
        return self._game(game_id, self._document(f"GameJSON({game_id})"))

    def game_answer(self, game_id: int, data: str) -> GameView | None:
        """The game in the answer to :meth:`game_query` (asked with others at once)."""
        return self._game(game_id, self._document(f"GameJSON({game_id})", data))

    def _game(self, game_id: int, document: Any) -> GameView | None:
        with self._shape("GameJSON"):
            if document.get("game") is None:
                return None
            self._same_game(game_id, document)
            return GameView(document["game"], int(document["now"]))

    def _same_game(self, game_id: int, document: Any) -> None:
        """The answer is about the game asked for: a node or a proxy that answers with
        another game's JSON is caught here, not drawn as if it were this one."""
        game = document.get("game")
        if game is not None and game.get("id") != game_id:
            other = printable(str(game.get("id")))[:20]
            raise Unreachable(f"the node answered GameJSON({game_id}) with game {other}")

    @contextmanager
    def _shape(self, accessor: str) -> Iterator[None]:
        """JSON in another shape than the realm's accessors have (another realm's?) is
        one line, not a traceback."""
        try:
            yield
        except (KeyError, TypeError, ValueError, AttributeError):
            raise Unreachable(
                f"the realm at {self.reader.realm_path} answered {accessor} "
                "in a shape c4 does not read"
            ) from None

    def active_json(self, offset: int = 0, limit: int = 100) -> str:
        return self._value(f"ActiveJSON({offset}, {limit})")

    def lobby(self, offset: int = 0, limit: int = 100) -> Lobby:
        document = self._document(f"ActiveJSON({offset}, {limit})")
        with self._shape("ActiveJSON"):
            now = int(document["now"])
            games = [GameView(game, now) for game in document["games"]]
            # The design record's realm gives the fee for new offers beside the games;
            # the one deployed on gno.land does not: its `fee` variable says it.
            fee = None if document.get("fee") is None else int(document["fee"])
        return Lobby(now, self.fee() if fee is None else fee, games)

    def leaders_json(self) -> str:
        return self._value("LeadersJSON()")

    def leaders(self) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
        """The two boards, most wins and most ugnot won, highest first."""
        document = self._document("LeadersJSON()")
        with self._shape("LeadersJSON"):
            return (
                [(str(e["addr"]), int(e["score"])) for e in document["wins"]],
                [(str(e["addr"]), int(e["score"])) for e in document["gnot"]],
            )

    def render(self, path: str = "") -> str:
        return self.reader.query(QRENDER, f"{self.reader.realm_path}:{path}").data

    def fees(self) -> Fees:
        with self._shape("its fee variables"):
            return Fees(
                fee=int(self._value("fee")),
                collected=int(self._declared("collected", "feesCollected")),
                owner=self._owner(),
                pending_owner=self._value("pendingOwner"),
            )

    def _owner(self) -> str:
        """The owner's address: an ``address`` variable, or (the realm deployed on
        gno.land) a ``*ownable.Ownable``, whose Owner() says it ("" for none)."""
        value, kind = self._typed("owner")
        if kind.endswith("address"):
            return value
        return self._value("owner.Owner()")

    def fee(self) -> int:
        """The house fee for new offers (what an Offer's maxFee defaults to)."""
        with self._shape("fee"):
            return int(self._value("fee"))

    def params(self, func: str) -> list[str] | None:
        """The names of ``func``'s parameters on this realm (``vm/qfuncs``), without the
        ``cur realm`` a crossing function takes first; None if the realm has no ``func``."""
        answer = self.reader.query(QFUNCS, self.reader.realm_path)
        try:
            listed = json.loads(answer.data)
            for entry in listed:
                if entry["FuncName"] == func:
                    params = entry["Params"]
                    if params and ".uverse.realm" in str(params[0]["Type"]):
                        params = params[1:]  # the ``cur realm`` of a crossing function
                    return [str(p["Name"]) for p in params]
        except (ValueError, KeyError, TypeError):
            raise Unreachable("the chain answered vm/qfuncs with garbage") from None
        return None
