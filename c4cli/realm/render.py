"""Render(path): the realm's markdown pages for gnoweb.

Pages are drawn from realm state only. The raw path is never echoed back, so
nothing a visitor types can end up in the page. Their layout is the one of the
realm deployed on gno.land (headings, tables with full addresses, a board of
seven linked column images while a move can be played), with this realm's
additions: each offer's fee, and the offer link's ``maxFee``.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, quote

from c4cli.address import is_canonical
from c4cli.coins import gnot
from c4cli.commitment import is_commitment
from c4cli.realm.memory import CANCELLED, DRAW, OPEN, PLAYING, VOID, WON, Game, RealmState
from c4cli.realm.rules import (
    ACCEPTOR,
    CREATOR,
    LOBBY_ROWS,
    MAX_VALID_FOR,
    MIN_STAKE,
    MIN_VALID_FOR,
    clock_ran_out,
    offer_expired,
)


def web_path(state: RealmState) -> str:
    """The realm's path on gnoweb: the package path without the domain."""
    return state.path.removeprefix("gno.land")


def action(state: RealmState, func: str, args: list[tuple[str, str]], send: str = "") -> str:
    link = f"{web_path(state)}$help&func={func}"
    for name, value in args:
        link += f"&{name}={quote(value, safe='')}"
    if send:
        link += f"&.send={send}"
    return link


def clock(seconds: int) -> str:
    """Time left as Go's ``time.Duration`` prints whole seconds, or that it ran out.

    >>> clock(45), clock(300), clock(3600), clock(0), clock(-1)
    ('45s', '5m0s', '1h0m0s', '0s', 'clock ran out')
    """
    if seconds < 0:
        return "clock ran out"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{secs}s"
    return f"{minutes}m{secs}s" if minutes else f"{secs}s"


def atoi(text: str) -> int | None:
    """Go's ``strconv.Atoi``: an optional sign, ASCII digits, within int64; else None.

    >>> atoi("+1"), atoi("007"), atoi("-2"), atoi("1x"), atoi("")
    (1, 7, -2, None, None)
    """
    if _ATOI.fullmatch(text) is None:
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


_ATOI = re.compile("[+-]?[0-9]+")


def render(state: RealmState, now: int, path: str) -> str:
    """The page at ``path``; a query (``?…``) is cut off before the page is chosen."""
    route, _, query = path.partition("?")
    if route == "":
        return _lobby(state, now)
    if route == "new":
        return _new(state, query)
    if route.startswith("game/"):
        game_id = atoi(route[5:])
        game = None if game_id is None else state.games.get(game_id)
        if game is not None:
            return _game(state, now, game)
    return "# Not found\n"


def _game_link(state: RealmState, game: Game) -> str:
    return f"[#{game.id}]({web_path(state)}:game/{game.id})"


def _accept_link(state: RealmState, game: Game) -> str:
    args = [("id", str(game.id)), ("seedCommitment", "")]
    return action(state, "Accept", args, f"{game.stake}ugnot")


def _open_to(game: Game) -> str:
    return game.opponent or "anyone"


def _lobby(state: RealmState, now: int) -> str:
    base = web_path(state)
    out = [
        "# Connect 4\n\n",
        "Two players stake the same amount of GNOT. The winner is paid the pot less the "
        f"house fee named on the offer (new offers: {gnot(state.fee)}). A player who "
        "lets the 90-second move clock run out forfeits; if the first mover never "
        "moves, both stakes go back.\n\n",
        f"**[Post an offer]({base}:new)** · or open a game below\n\n",
    ]
    # The rows go to the listed games in id order, open offers and live games alike.
    listed = [
        game
        for game in (state.games[game_id] for game_id in state.active)
        if game.status == PLAYING
        or (game.status == OPEN and not offer_expired(now, game.expires_at))
    ]
    shown = listed[:LOBBY_ROWS]
    offers = [game for game in shown if game.status == OPEN]
    live = [game for game in shown if game.status == PLAYING]
    out.append("## Open offers\n\n")
    if offers:
        out.append("| Game | Stake | Fee | Creator | For | Expires in | |\n")
        out.append("|---|---|---|---|---|---|---|\n")
        for game in offers:
            out.append(
                f"| {_game_link(state, game)} | {gnot(game.stake)} | {gnot(game.fee)} "
                f"| {game.creator} | {_open_to(game)} | {clock(game.expires_at - now)} "
                f"| [Accept]({_accept_link(state, game)}) |\n"
            )
        out.append("\n")
    else:
        out.append("No open offers.\n\n")
    out.append("## Live games\n\n")
    if live:
        out.append("| Game | Pot | Turn | Time left |\n|---|---|---|---|\n")
        for game in live:
            out.append(
                f"| {_game_link(state, game)} | {gnot(2 * game.stake)} | {_on_turn(game)} "
                f"| {clock(game.deadline - now)} |\n"
            )
        out.append("\n")
    else:
        out.append("No games in progress.\n\n")
    if len(shown) < len(listed):
        out.append(f"Showing the first {LOBBY_ROWS} games; ActiveJSON pages through all.\n\n")
    out.append("## Most games won\n\n")
    out.append(_leaderboard([(a, str(score)) for a, score in state.wins_board]))
    out.append("## Most gnot won\n\n")
    out.append(_leaderboard([(a, gnot(score)) for a, score in state.gnot_board]))
    return "".join(out)


def _on_turn(game: Game) -> str:
    """Who the game waits for."""
    if game.turn != 0:
        return game.player(game.turn)
    if game.revealed:
        return f"{game.acceptor} (reveal seed)"
    return f"{game.creator} (reveal)"


def _leaderboard(rows: list[tuple[str, str]]) -> str:
    if not rows:
        return "No finished games yet.\n\n"
    out = ["| # | Player | |\n|---|---|---|\n"]
    out += [f"| {rank} | {address} | {score} |\n" for rank, (address, score) in enumerate(rows, 1)]
    out.append("\n")
    return "".join(out)


_FORM = (
    '<gno-form path="new">\n'
    '<gno-input name="stake" type="text" placeholder="Stake in GNOT (at least 1), e.g. 5" />\n'
    '<gno-input name="validFor" type="number" '
    'placeholder="Minutes the offer stays open: 1 to 60 (15 if empty)" />\n'
    '<gno-input name="opponent" type="text" '
    'placeholder="Opponent address (empty: open to anyone)" />\n'
    '<gno-input name="commitment" type="text" '
    'placeholder="sha256 of your passphrase, 64 hex characters" />\n'
    "</gno-form>\n\n"
)


def _new(state: RealmState, query: str) -> str:
    out = [
        f"# Post an offer\n\n[← Lobby]({web_path(state)})\n\n",
        "Make a new random passphrase for each offer and keep it safe: once your offer "
        "is accepted you have 90 seconds to reveal it, or you forfeit, and the first "
        "mover is drawn from it and your opponent's seed. Give only its sha256 here:\n\n"
        '    pass=$(openssl rand -hex 32); echo "$pass"\n'
        '    printf %s "$pass" | sha256sum\n\n',
        f"New offers pay a house fee of {gnot(state.fee)}; the offer link carries it as "
        "maxFee, so a fee raised before the offer lands refuses it instead of charging "
        "more.\n\n",
        _FORM,
    ]
    if not query:
        return "".join(out)
    fields = {k: v[0] for k, v in parse_qs(query, keep_blank_values=True).items()}
    problems = []
    # The form's stake is in GNOT, as a person types it (12.5); the link sends ugnot.
    stake = parse_gnot(fields.get("stake", ""))
    if stake < MIN_STAKE:
        problems.append("stake below minimum of 1 GNOT")
    if stake <= state.fee:
        problems.append(f"stake must exceed the house fee of {gnot(state.fee)}")
    valid = atoi(fields["validFor"]) if "validFor" in fields else DEFAULT_VALID_FOR
    if valid is None or not MIN_VALID_FOR <= valid <= MAX_VALID_FOR:
        problems.append("validFor must be between 1 and 60 minutes")
    opponent = fields.get("opponent", "")
    if opponent and not is_canonical(opponent):
        problems.append("invalid opponent address (use the lower-case g1… form)")
    commitment = fields.get("commitment", "")
    if not is_commitment(commitment):
        problems.append("commitment must be 64 lowercase hex chars (sha256 of your passphrase)")
    if problems:
        out.append("**Fix the following:**\n\n")
        out += [f"- {p}\n" for p in problems]
        return "".join(out)
    link = action(
        state,
        "Offer",
        [
            ("opponent", opponent),
            ("validFor", str(valid)),
            ("commitment", commitment),
            ("maxFee", str(state.fee)),
        ],
        f"{stake}ugnot",
    )
    out.append("## Ready\n\n")
    out.append(
        f"Stake {gnot(stake)}, open to {opponent or 'anyone'} for {valid} min, fee at most "
        f"{gnot(state.fee)}, commitment `{commitment}`: make sure it is the sha256 of "
        "your own passphrase before you sign.\n\n"
    )
    out.append(f"**[Post offer for {gnot(stake)}]({link})**\n")
    return "".join(out)


def parse_gnot(text: str) -> int:
    """A GNOT amount typed in the form, as ugnot; 0 for anything that is not one.

    >>> parse_gnot("12.5"), parse_gnot("1"), parse_gnot("0.000001"), parse_gnot("1.0000001")
    (12500000, 1000000, 1, 0)
    """
    match = _GNOT.fullmatch(text)
    if match is None:
        return 0
    whole, frac = match[1], (match[2] or "").ljust(6, "0")
    value = int(whole) * 1_000_000 + int(frac)
    return value if value < 2**63 else 0


_GNOT = re.compile(r"([0-9]{1,13})(?:\.([0-9]{1,6}))?")
DEFAULT_VALID_FOR = 15


def _board_view(state: RealmState, now: int, game: Game) -> str:
    """The board: while a move can be played, seven column images side by side, each
    the link that plays its column; otherwise one image. Alt texts name each disc."""
    board, swap = game.board(), game.first == ACCEPTOR
    columns = [
        f"column {col + 1}: " + " ".join(board.disc_names(col, swap_colors=swap))
        for col in range(7)
    ]
    playable = game.status == PLAYING and game.turn != 0 and not clock_ran_out(now, game.deadline)
    if not playable:
        return board.image("board: " + "; ".join(columns) + ";", swap_colors=swap)
    move = str(len(game.moves))
    links = []
    for col in range(7):
        args = [("id", str(game.id)), ("column", str(col + 1)), ("move", move)]
        image = board.column_image(col, columns[col], swap_colors=swap)
        links.append(f"[{image}]({action(state, 'Play', args)})")
    return "".join(links)


def _game(state: RealmState, now: int, game: Game) -> str:
    gid = str(game.id)
    out = [f"# Game #{game.id} — {game.status}\n\n[← Lobby]({web_path(state)})\n\n"]
    out.append(f"🔴 {game.creator}  \n🟡 {game.acceptor or 'waiting for opponent'}  \n")
    out.append(f"Stake: {gnot(game.stake)} each · fee {gnot(game.fee)}\n\n")
    out.append(_board_view(state, now, game) + "\n\n")
    if game.status == OPEN:
        cancel = f"[Cancel offer]({action(state, 'Cancel', [('id', gid)])})"
        if not offer_expired(now, game.expires_at):
            out.append(
                f"Open offer for {_open_to(game)}, expires in {clock(game.expires_at - now)}.\n\n"
            )
            out.append(
                f"**[Accept for {gnot(game.stake)}]({_accept_link(state, game)})** with the "
                "sha256 of a new random seed, which you keep: you reveal it after the "
                "creator's passphrase, within 90 seconds, or forfeit.\n\n"
            )
            out.append(f"{cancel} (creator)\n")
        else:
            out.append(f"This offer expired: anyone may {cancel}, refunding the creator.\n")
    elif game.status == PLAYING:
        left = game.deadline - now
        claim = (
            "Clock ran out: "
            f"**[Claim timeout]({action(state, 'ClaimTimeout', [('id', gid)])})**\n\n"
        )
        if game.turn == 0:
            if not game.revealed:
                out.append("Waiting for the creator's passphrase.\n\n")
            else:
                out.append("Passphrase revealed; waiting for the acceptor's seed.\n\n")
            if left >= 0:
                out.append(f"Time left: {clock(left)}\n\n")
                if not game.revealed:
                    link = action(state, "Reveal", [("id", gid), ("passphrase", "")])
                    out.append(f"**[Reveal]({link})** (creator)\n\n")
                else:
                    link = action(state, "RevealSeed", [("id", gid), ("seed", "")])
                    out.append(f"**[Reveal seed]({link})** (acceptor)\n\n")
            else:
                out.append(claim)
        else:
            disc = "🔴" if game.turn == CREATOR else "🟡"
            out.append(f"Turn: {disc} {game.player(game.turn)}\n\n")
            if left >= 0:
                out.append(f"Time left: {clock(left)} · click a column to play it\n\n")
            else:
                out.append(claim)
        out.append(f"[Resign]({action(state, 'Resign', [('id', gid)])})\n")
    elif game.status == WON:
        out.append(f"Winner: {game.winner}, paid {gnot(game.payout())}.\n")
    elif game.status == DRAW:
        out.append("Draw: both stakes refunded.\n")
    elif game.status == VOID:
        out.append("Void: the first mover never moved; both stakes refunded.\n")
    elif game.status == CANCELLED:
        out.append("Cancelled: the stake went back to the creator.\n")
    return "".join(out)
