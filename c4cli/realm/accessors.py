"""The realm's read accessors: hand-built JSON in an exact field order.

Clients (and ``c4``) read games through these instead of scraping Render. Every
response carries ``now``, the block time, so a client counts the 90 s clock in
chain time rather than its own.
"""

from __future__ import annotations

import json

from c4cli.engine import COLS, ROWS
from c4cli.realm.jsonfmt import active_envelope, active_page, game_envelope
from c4cli.realm.memory import PLAYING, Game, RealmState


def _q(text: str) -> str:
    # Stored strings are validated on write (addresses, hex, statuses), so JSON
    # quoting and Go's strconv.Quote agree on every one of them.
    return json.dumps(text)


def _b(flag: bool) -> str:
    return "true" if flag else "false"


def board_cells(game: Game) -> str:
    """42 chars, column-major (column c, row r at c*6+r): 0 empty, 1 creator, 2 acceptor."""
    board = game.board()
    return "".join(
        str(game.side_of(board.at(col, row))) for col in range(COLS) for row in range(ROWS)
    )


def game_object(game: Game) -> str:
    playing = game.status == PLAYING
    return (
        "{"
        f'"id":{game.id},"creator":{_q(game.creator)},"opponent":{_q(game.opponent)},'
        f'"acceptor":{_q(game.acceptor)},"stake":{game.stake},"fee":{game.fee},'
        f'"expiresAt":{game.expires_at},"commitment":{_q(game.commitment)},'
        f'"seedCommitment":{_q(game.seed_commitment)},"revealed":{_b(game.revealed)},'
        f'"board":{_q(board_cells(game))},"turn":{game.turn},'
        f'"turnPlayer":{_q(game.turn_player())},"moves":{len(game.moves)},'
        f'"lastCol":{game.last_col},"lastRow":{game.last_row},'
        f'"deadline":{game.deadline if playing else 0},"status":{_q(game.status)},'
        f'"winner":{_q(game.winner)}'
        "}"
    )


def game_json(state: RealmState, now: int, game_id: int) -> str:
    game = state.games.get(game_id)
    return game_envelope(now, None if game is None else game_object(game))


def active_json(state: RealmState, now: int, offset: int, limit: int) -> str:
    page = active_page(list(state.active), offset, limit)
    return active_envelope(now, state.fee, [game_object(state.games[i]) for i in page])


def leaders_json(state: RealmState) -> str:
    def board(entries: list[tuple[str, int]]) -> str:
        return ",".join(f'{{"addr":{_q(a)},"score":{s}}}' for a, s in entries)

    return f'{{"wins":[{board(state.wins_board)}],"gnot":[{board(state.gnot_board)}]}}'
