"""One player's games and stakes, as any client reads them from the realm.

The realm lists only its live games (``ActiveJSON``, expired offers among them),
which is all `cancel --expired` reads; a player's finished games and record are
found by reading every game with ``GameJSON``, a page of ids at a time (one
request a page on a node), until an id the realm does not know: ids are given in
order and games are never removed.

The record (games, wins, draws, net ugnot won) is the one the realm keeps at
settlement, counted again from the settled games by the realm's own rule
(:mod:`c4cli.realm.rules`); the node tests hold it to the realm's ``playerStats``.
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import StrEnum
from typing import NamedTuple

from c4cli.chain.interface import ChainReader
from c4cli.client.realm_client import GameView, RealmClient, Status
from c4cli.realm import rules

# GameJSON reads a request. Each runs the realm's code on the node: a hundred at once
# outlasted a busy node's deadline ($C4_TIMEOUT) in CI; 25 answer in a fraction of it.
PAGE = 25
ACTIVE_PAGE = 100  # games an ActiveJSON page holds at most (the realm's own cap)


class Group(StrEnum):
    """Where a game stands for one player: what they can do about it, first."""

    YOUR_MOVE = "your_move"  # a live game waiting for this player (a move, a reveal)
    INVITED = "invited"  # an open offer reserved for this player
    OPEN = "open"  # this player's offer, open to accept
    EXPIRED = "expired"  # this player's offer, expired: the stake waits to be cancelled
    WAITING = "waiting"  # a live game waiting for the other side
    FINISHED = "finished"


# `c4 games --status`: the groups each word takes.
STATUSES = {
    "open": (Group.INVITED, Group.OPEN),
    "expired": (Group.EXPIRED,),
    "live": (Group.YOUR_MOVE, Group.WAITING),
    "finished": (Group.FINISHED,),
}


class Standing(NamedTuple):
    """One game as it stands for a player."""

    group: Group
    game: GameView
    role: str  # creator, acceptor, or invited (the offer's reserved opponent)
    rival: str  # the other side's address ("" while no one has accepted)
    claimable: bool  # live, and the clock of the side on turn ran out (not this player's)
    outcome: str | None  # finished: won, lost, draw, void or cancelled
    delta: int | None  # finished: ugnot the game moved to (+) or from (-) this player


class PlayerRecord(NamedTuple):
    """A player's record as the realm keeps it (``playerStats``: its words), and the
    net c4 computes from the player's settled games."""

    games: int
    wins: int
    draws: int
    won: int  # the realm's "net": ugnot won beyond the stakes; losses are not subtracted
    net: int = 0  # what every settled game moved to (+) or from (-) the player


class Ledger(NamedTuple):
    """Everything a player has in the realm, at block time ``now``."""

    address: str
    now: int
    standings: list[Standing]
    held: int  # ugnot the realm holds for this player: open offers and live games
    takeable: int  # of it, what cancelling this player's open offers takes back now
    record: PlayerRecord


def every_game(chain: ChainReader, page: int = PAGE) -> Iterator[GameView]:
    """Every game of the realm, oldest first, read ``page`` ids a request."""
    client = RealmClient(chain)
    first = 1
    while True:
        ids = range(first, first + page)
        answers = chain.queries([client.game_query(game_id) for game_id in ids])
        client.prove_games(ids)
        for game_id, answer in zip(ids, answers, strict=True):
            game = client.game_answer(game_id, answer.data)
            if game is None:
                return
            yield game
        first += page


def live_games(chain: ChainReader) -> Iterator[GameView]:
    """The realm's open and playing games (its ActiveJSON), page after page until an
    empty one: what an expired offer can be, without reading every settled game."""
    client = RealmClient(chain)
    offset = 0
    while page := client.lobby(offset, ACTIVE_PAGE).games:
        yield from page
        offset += len(page)


def expired_offers(chain: ChainReader, address: str, at: int) -> list[GameView]:
    """``address``'s offers expired at block time ``at``, whose stakes the realm holds."""
    return [
        game
        for game in live_games(chain)
        if (found := standing(game, address, at)) is not None and found.group == Group.EXPIRED
    ]


def to_act(game: GameView) -> str:
    """The address the game waits for: the player on turn, or in the draw of the first
    mover the creator's reveal, then the acceptor's seed; "" when it waits for no one."""
    if game.status != Status.PLAYING:
        return ""
    if game.turn:
        return game.player(game.turn)
    return game.acceptor if game.revealed else game.creator


def standing(game: GameView, address: str, at: int) -> Standing | None:
    """Where ``game`` stands for ``address`` when a call is judged at block time ``at``
    (the next block's: what a cancel or a claim sent now meets); None if it is not
    this player's game."""
    if address in (game.creator, game.acceptor):
        role = "creator" if address == game.creator else "acceptor"
        rival = game.acceptor if role == "creator" else game.creator
    elif address == game.opponent and game.status == Status.OPEN:
        return Standing(Group.INVITED, game, "invited", game.creator, False, None, None)
    else:
        return None
    if game.status == Status.OPEN:
        group = Group.EXPIRED if game.offer_expired(at) else Group.OPEN
        return Standing(group, game, role, rival, False, None, None)
    if game.status == Status.PLAYING:
        waits_for = to_act(game)
        claimable = waits_for != address and game.clock_ran_out(at)
        group = Group.YOUR_MOVE if waits_for == address or claimable else Group.WAITING
        return Standing(group, game, role, rival, claimable, None, None)
    outcome, delta = _settled(game, address)
    return Standing(Group.FINISHED, game, role, rival, False, outcome, delta)


def _settled(game: GameView, address: str) -> tuple[str, int]:
    """How a settled game ended for ``address``, and what it moved for them."""
    if game.status == Status.WON:
        if game.winner == address:
            return "won", rules.payout(game.stake, game.fee) - game.stake
        return "lost", -game.stake
    return str(game.status), 0  # draw, void, cancelled: the stake came back


def ledger(chain: ChainReader, address: str, at: int) -> Ledger:
    """``address``'s games, stakes and record, judged at block time ``at``."""
    standings = [
        found for game in every_game(chain) if (found := standing(game, address, at)) is not None
    ]
    now = standings[0].game.now if standings else chain.head().time
    held = sum(s.game.stake for s in standings if s.group not in (Group.INVITED, Group.FINISHED))
    takeable = sum(s.game.stake for s in standings if s.group in (Group.OPEN, Group.EXPIRED))
    return Ledger(address, now, standings, held, takeable, record_of(standings))


def record_of(standings: list[Standing]) -> PlayerRecord:
    """The realm's record of a player, from their settled games: a decisive game or a
    draw counts a game; a win, a win and what the winner took beyond the stakes (the
    realm's "net"); void and cancelled games count nothing. Beside it, the net: what
    the settled games moved, losses included."""
    games = wins = draws = won = net = 0
    for s in standings:
        net += s.delta or 0
        if s.outcome in ("won", "lost", "draw"):
            games += 1
        if s.outcome == "won":
            wins += 1
            won += rules.payout(s.game.stake, s.game.fee) - s.game.stake
        elif s.outcome == "draw":
            draws += 1
    return PlayerRecord(games, wins, draws, won, net)
