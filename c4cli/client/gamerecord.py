"""A game's record from the chain's record of its calls (`c4 export`): its tags and
its moves with their heights and times, in :mod:`c4cli.movetext`'s format."""

from __future__ import annotations

from c4cli.chain.clock import format_time
from c4cli.chain.interface import GameCall
from c4cli.client.realm_client import GameView, Status, history
from c4cli.movetext import GameRecord, Move


def recorded(
    game: GameView,
    order: str | None,
    calls: list[GameCall],
    *,
    realm_path: str,
    chain_id: str,
    known: dict[str, str],
) -> GameRecord:
    """The record of ``game`` as the chain's record of its calls (``calls``, their
    order of moves ``order``: None where not every move is known) gives it."""
    first = game.acceptor if game.creator_is_yellow else game.creator
    tags = {"Realm": realm_path, "ChainId": chain_id, "Game": str(game.id)}
    for role, address in (("Creator", game.creator), ("Acceptor", game.acceptor)):
        if address:
            tags[role] = address
            if address in known:
                tags[f"{role}Key"] = known[address]
    if game.moves or game.status not in (Status.OPEN, Status.CANCELLED):
        tags["FirstMover"] = "creator" if first == game.creator else "acceptor"
    tags |= {"Stake": f"{game.stake}ugnot", "Fee": f"{game.fee}ugnot", "Status": str(game.status)}
    tags["Result"] = _result(game, first)
    ending = game.ending(history(calls, game.id).last_call)
    if ending is not None:
        tags["Ending"] = ending.value
    if game.winner:
        tags["Winner"] = game.winner
    if calls:
        for name, call in (("Start", calls[0]), ("End", calls[-1])):
            if name == "End" and game.status in (Status.OPEN, Status.PLAYING):
                break
            if call.time:
                tags[name] = format_time(call.time)
            tags[f"{name}Height"] = str(call.height)
    moves = _moves(order, calls)
    tags["Moves"] = "".join(str(move.column) for move in moves)
    tags["Known"] = "all" if order is not None else "partial: the chain's record here lacks moves"
    return GameRecord(tags, moves)


def _result(game: GameView, first: str) -> str:
    """From the first mover's side, as PGN writes a result from white's."""
    if game.status == Status.WON:
        return "1-0" if game.winner == first else "0-1"
    if game.status == Status.DRAW:
        return "1/2-1/2"
    return "*"


def _moves(order: str | None, calls: list[GameCall]) -> list[Move]:
    """Each move of ``order`` with the height and time of the Play that made it."""
    if order is None:
        return []
    where: dict[int, GameCall] = {}
    for call in calls:
        for func, args in zip(call.funcs, call.args, strict=False):
            if func == "Play" and len(args) > 2 and args[2].isdigit():
                where[int(args[2])] = call
    moves = []
    for index, char in enumerate(order):
        made = where.get(index)
        height = made.height if made is not None else 0
        time = format_time(made.time) if made is not None and made.time else ""
        moves.append(Move(index + 1, int(char), height, time))
    return moves
