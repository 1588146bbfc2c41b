"""Render(path): the realm's markdown pages for gnoweb.

Pages are drawn from realm state only. The raw path is never echoed back, so
nothing a visitor types can end up in the page.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, quote

from c4cli.address import is_canonical
from c4cli.coins import gnot
from c4cli.commitment import is_commitment
from c4cli.realm.connect4 import (
    CANCELLED,
    DRAW,
    OPEN,
    PLAYING,
    VOID,
    WON,
    Game,
    RealmState,
)
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


def short(address: str) -> str:
    return f"{address[:8]}…{address[-4:]}" if address else ""


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


def _lobby(state: RealmState, now: int) -> str:
    out = [
        "# Connect Four, staked\n\n",
        "Both players stake the same amount; the winner takes the pot minus the offer's "
        f"own house fee (new offers: {gnot(state.fee)}). Each move has 90 s of block "
        "time; if the first mover never moves, both stakes are refunded.\n\n",
        f"[Make an offer]({web_path(state)}:new)\n\n",
    ]
    # The 50 rows go to the listed games in id order, open offers and live games alike.
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
        out.append("| game | stake | fee | creator | open to | expires in | |\n")
        out.append("|---|---|---|---|---|---|---|\n")
        for game in offers:
            accept = action(
                state,
                "Accept",
                [("id", str(game.id)), ("seedCommitment", "")],
                f"{game.stake}ugnot",
            )
            out.append(
                f"| [#{game.id}]({web_path(state)}:game/{game.id}) | {gnot(game.stake)} "
                f"| {gnot(game.fee)} | {short(game.creator)} "
                f"| {short(game.opponent) or 'anyone'} | {clock(game.expires_at - now)} "
                f"| [Accept]({accept}) |\n"
            )
        out.append("\n")
    else:
        out.append("No open offers.\n\n")
    out.append("## Live games\n\n")
    if live:
        out.append("| game | pot | on turn | time left |\n|---|---|---|---|\n")
        for game in live:
            out.append(
                f"| [#{game.id}]({web_path(state)}:game/{game.id}) "
                f"| {gnot(2 * game.stake)} | {_waiting_on(game)} "
                f"| {clock(game.deadline - now)} |\n"
            )
        out.append("\n")
    else:
        out.append("No live games.\n\n")
    if len(shown) < len(listed):
        out.append(f"Showing {len(shown)} of {len(listed)}; page with ActiveJSON.\n\n")
    out.append(_leaders(state))
    return "".join(out)


def _waiting_on(game: Game) -> str:
    if game.turn == 0:
        who = game.acceptor if game.revealed else game.creator
        return f"{short(who)} must reveal"
    return short(game.player(game.turn))


def _leaders(state: RealmState) -> str:
    if not state.wins_board:
        return "No finished games yet.\n"
    out = ["## Most games won\n\n| # | player | wins |\n|---|---|---|\n"]
    out += [f"| {i} | {short(a)} | {s} |\n" for i, (a, s) in enumerate(state.wins_board, 1)]
    out.append("\n## Most gnot won\n\n| # | player | net won |\n|---|---|---|\n")
    out += [f"| {i} | {short(a)} | {gnot(s)} |\n" for i, (a, s) in enumerate(state.gnot_board, 1)]
    return "".join(out)


def _new(state: RealmState, query: str) -> str:
    out = [
        "# New offer\n\n",
        "Generate a fresh random passphrase (`openssl rand -hex 32`), keep it, and paste "
        "only its sha256 as the commitment: you reveal the passphrase after your offer "
        "is accepted, and the first mover is drawn from both players' secrets.\n\n",
        f"The house fee for new offers is {gnot(state.fee)}.\n\n",
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
        out.append("This offer would be refused:\n\n")
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
    out.append(f"[Offer {gnot(stake)}]({link})\n")
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


def _game(state: RealmState, now: int, game: Game) -> str:
    gid = str(game.id)
    out = [f"# Game #{game.id}: {game.status}\n\n"]
    out.append(f"- 🔴 {game.creator} (creator)\n")
    out.append(f"- 🟡 {game.acceptor or 'waiting for opponent'}\n")
    out.append(f"- stake {gnot(game.stake)} each, fee {gnot(game.fee)}\n\n")
    out.append(game.board().image(f"game {game.id}", swap_colors=game.first == ACCEPTOR) + "\n\n")
    if game.status == OPEN:
        if not offer_expired(now, game.expires_at):
            accept = action(
                state, "Accept", [("id", gid), ("seedCommitment", "")], f"{game.stake}ugnot"
            )
            out.append(f"Open for {clock(game.expires_at - now)}. [Accept]({accept}) · ")
        else:
            out.append("This offer has expired. ")
        out.append(f"[Cancel]({action(state, 'Cancel', [('id', gid)])})\n")
    elif game.status == PLAYING:
        left = game.deadline - now
        if game.turn == 0:
            who, func, arg = (
                (game.acceptor, "RevealSeed", "seed")
                if game.revealed
                else (game.creator, "Reveal", "passphrase")
            )
            out.append(f"Waiting for {who} to reveal: {clock(left)}. ")
            out.append(f"[{func}]({action(state, func, [('id', gid), (arg, '')])})\n\n")
        else:
            disc = "🔴" if game.turn == CREATOR else "🟡"
            out.append(f"{disc} {game.player(game.turn)} to move: {clock(left)}.\n\n")
            if not clock_ran_out(now, game.deadline):
                move = str(len(game.moves))
                links = []
                for col in game.board().legal():
                    args = [("id", gid), ("column", str(col + 1)), ("move", move)]
                    links.append(f"[{col + 1}]({action(state, 'Play', args)})")
                out.append("Play: " + " ".join(links) + "\n\n")
        if clock_ran_out(now, game.deadline):
            out.append(f"[Claim timeout]({action(state, 'ClaimTimeout', [('id', gid)])}) · ")
        out.append(f"[Resign]({action(state, 'Resign', [('id', gid)])})\n")
    elif game.status == WON:
        out.append(f"Won by {game.winner}: paid {gnot(game.payout())}.\n")
    elif game.status == DRAW:
        out.append("Draw: both stakes refunded.\n")
    elif game.status == VOID:
        out.append("Void: the clock ran out before the first move; both stakes refunded.\n")
    elif game.status == CANCELLED:
        out.append("Cancelled: the stake went back to the creator.\n")
    return "".join(out)
