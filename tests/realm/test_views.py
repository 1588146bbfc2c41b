"""The realm's read accessors byte for byte, and its Render pages."""

from __future__ import annotations

import hashlib

import pytest

from c4cli.realm import abi
from c4cli.realm.memory import Context, RealmPanic, RealmState
from c4cli.realm.render import render

A = "g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5"
B = "g1mtmrdmqfu0aryqfl4aw65n35haw2wdjkh5p4cp"
C = "g18e22n23g462drp4pyszyl6e6mwxkaylthgeeq4"
REALM = "g1k6gkjudkl2tls7mfzhctrgre2ltjlxtgp635n0"
T0 = 1767225600


def h(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def call(state: RealmState, caller: str, now: int, func: str, *args: str, send: int = 0) -> None:
    ctx = Context(
        caller=caller, send={"ugnot": send} if send else {}, now=now, height=1, realm_address=REALM
    )
    abi.call(state, ctx, func, list(args))


def playing(passphrase: str = "p", seed: str = "s") -> RealmState:
    state = RealmState(path="gno.land/r/samcrew/connect4", owner=A)
    call(state, A, T0, "Offer", "", "15", h(passphrase), "100000", send=10_000_000)
    call(state, B, T0 + 5, "Accept", "1", h(seed), send=10_000_000)
    call(state, A, T0 + 10, "Reveal", "1", passphrase)
    call(state, B, T0 + 15, "RevealSeed", "1", seed)
    return state


def test_game_json_open_exact() -> None:
    state = RealmState(path="gno.land/r/samcrew/connect4", owner=A)
    call(state, A, T0, "Offer", B, "15", h("p"), "100000", send=10_000_000)
    value, kind = abi.read(state, T0 + 30, "GameJSON", ["1"])
    assert kind == "string"
    assert value == (
        '{"now":1767225630,"game":{"id":1,"creator":"' + A + '","opponent":"' + B + '",'
        '"acceptor":"","stake":10000000,"fee":100000,"expiresAt":1767226500,'
        '"commitment":"' + h("p") + '","seedCommitment":"","revealed":false,'
        '"board":"' + "0" * 42 + '","turn":0,"turnPlayer":"","moves":0,"lastCol":0,'
        '"lastRow":0,"deadline":0,"status":"open","winner":""}}'
    )
    assert abi.read(state, T0, "GameJSON", ["7"])[0] == '{"now":1767225600,"game":null}'


def test_game_json_board_is_column_major_by_player() -> None:
    state = playing()
    game = state.games[1]
    first = game.player(game.turn)
    second = B if first == A else A
    call(state, first, T0 + 20, "Play", "1", "1", "0")  # column 1, floor
    call(state, second, T0 + 25, "Play", "1", "2", "1")  # column 2, floor
    call(state, first, T0 + 30, "Play", "1", "1", "2")  # column 1, row 1
    value = abi.read(state, T0 + 31, "GameJSON", ["1"])[0]
    creator_first = first == A
    one, two = ("1", "2") if creator_first else ("2", "1")
    board = one + one + "0000" + two + "00000" + "0" * 30
    assert f'"board":"{board}"' in value
    assert '"moves":3,"lastCol":0,"lastRow":1,"deadline":1767225720,"status":"playing"' in value
    assert f'"turnPlayer":"{second}"' in value


def test_active_json_clamps_and_pages() -> None:
    state = RealmState(path="gno.land/r/samcrew/connect4", owner=A)
    for n in range(3):
        call(state, A, T0, "Offer", "", "15", h(f"p{n}"), "100000", send=1_000_000)
    ids = lambda v: [int(part.split(",")[0]) for part in v.split('{"id":')[1:]]  # noqa: E731
    assert ids(abi.read(state, T0, "ActiveJSON", ["0", "0"])[0]) == [1]  # limit clamps to 1
    assert ids(abi.read(state, T0, "ActiveJSON", ["-5", "2"])[0]) == [1, 2]
    assert ids(abi.read(state, T0, "ActiveJSON", ["1", "1000"])[0]) == [2, 3]
    assert (
        abi.read(state, T0, "ActiveJSON", ["9", "9"])[0]
        == '{"now":1767225600,"fee":100000,"games":[]}'
    )
    call(state, A, T0, "Cancel", "2")
    assert ids(abi.read(state, T0, "ActiveJSON", ["0", "10"])[0]) == [1, 3]


def test_leaders_json_and_bump_ties() -> None:
    state = playing()
    game = state.games[1]
    loser = game.player(game.turn)
    call(state, loser, T0 + 20, "Resign", "1")
    winner = B if loser == A else A
    assert abi.read(state, T0, "LeadersJSON", [])[0] == (
        f'{{"wins":[{{"addr":"{winner}","score":1}}],"gnot":[{{"addr":"{winner}","score":9900000}}]}}'
    )


def test_bump_keeps_earlier_holder_first_and_cuts_at_ten() -> None:
    from c4cli.realm.connect4 import bump

    board: list[tuple[str, int]] = []
    for n in range(12):
        bump(board, f"a{n}", 1)
    assert [a for a, _ in board] == [f"a{n}" for n in range(10)]
    bump(board, "a11", 1)  # a tie never displaces an earlier holder
    assert "a11" not in [a for a, _ in board]
    bump(board, "a5", 2)
    assert board[0] == ("a5", 2) and len(board) == 10
    bump(board, "late", 2)
    assert board[:2] == [("a5", 2), ("late", 2)] and len(board) == 10


def test_render_pages() -> None:
    state = playing()
    lobby = render(state, T0 + 20, "")
    # The layout of the realm deployed on gno.land: its headings, its tables, full addresses.
    assert lobby.startswith("# Connect 4\n\n")
    assert "**[Post an offer](/r/samcrew/connect4:new)**" in lobby
    assert "## Live games\n\n| Game | Pot | Turn | Time left |\n|---|---|---|---|\n" in lobby
    game = state.games[1]
    turn = game.player(game.turn)
    assert f"| [#1](/r/samcrew/connect4:game/1) | 20 GNOT | {turn} | 1m25s |\n" in lobby
    assert "## Most games won\n\nNo finished games yet.\n\n## Most gnot won\n\n" in lobby
    page = render(state, T0 + 20, "game/1")
    assert page.startswith("# Game #1 — playing\n\n[← Lobby](/r/samcrew/connect4)\n\n")
    assert f"🔴 {A}  \n🟡 {B}  \nStake: 10 GNOT each · fee 0.1 GNOT\n\n" in page
    # A move can be played: seven column images, each the link that plays it.
    assert page.count("](data:image/svg+xml;base64,") == 7
    for col in range(1, 8):
        link = f"/r/samcrew/connect4$help&func=Play&id=1&column={col}&move=0"
        assert f"[![column {col}: empty empty empty empty empty empty](data:" in page
        assert f")]({link})" in page
    assert f"Turn: {'🔴' if turn == A else '🟡'} {turn}\n\n" in page
    assert "Time left: 1m25s · " in page and "Claim timeout" not in page
    late = render(state, T0 + 200, "game/1")
    assert (
        "Clock ran out: **[Claim timeout](/r/samcrew/connect4$help&func=ClaimTimeout&id=1)**"
        in late
    )
    assert late.count("](data:image/svg+xml;base64,") == 1  # no move to play: one image
    assert "![board: column 1: empty empty empty empty empty empty; column 2:" in late
    assert render(state, T0, "game/99") == "# Not found\n"
    assert render(state, T0, "<script>") == "# Not found\n"


def test_render_new_lists_broken_rules_or_a_ready_link() -> None:
    state = RealmState(path="gno.land/r/samcrew/connect4", owner=A)
    assert "openssl rand -hex 32" in render(state, T0, "new")
    broken = render(state, T0, "new?stake=0.5&validFor=99&opponent=G1X&commitment=nope")
    for rule in (
        "stake below minimum of 1 GNOT",
        "validFor must be between 1 and 60 minutes",
        "invalid opponent address (use the lower-case g1… form)",
        "commitment must be 64 lowercase hex chars (sha256 of your passphrase)",
    ):
        assert f"- {rule}\n" in broken
    assert "G1X" not in broken and "nope" not in broken  # raw input is never echoed
    assert broken.count("**Fix the following:**\n\n") == 1
    ready = render(state, T0, f"new?stake=2&validFor=15&opponent={C}&commitment={h('p')}")
    assert "## Ready\n\n" in ready and "**[Post offer for 2 GNOT](" in ready
    assert (
        f"/r/samcrew/connect4$help&func=Offer&opponent={C}&validFor=15&commitment={h('p')}"
        "&maxFee=100000&.send=2000000ugnot" in ready
    )


def test_payment_guard_is_kept_for_non_user_calls() -> None:
    from c4cli.realm.connect4 import Realm

    state = RealmState(path="gno.land/r/samcrew/connect4", owner=A)
    ctx = Context(
        caller=A, send={"ugnot": 10_000_000}, now=T0, height=1, realm_address=REALM, user_call=False
    )
    with pytest.raises(RealmPanic, match="only user-call"):
        Realm(state).Offer(ctx, "", 15, h("p"), 100_000)


def test_stake_must_exceed_the_fee_is_kept_as_defence() -> None:
    from c4cli.realm.connect4 import Realm

    state = RealmState(path="gno.land/r/samcrew/connect4", owner=A)
    state.fee = 2_000_000  # above the cap SetFee enforces: only reachable by a future bug
    ctx = Context(caller=A, send={"ugnot": 1_500_000}, now=T0, height=1, realm_address=REALM)
    with pytest.raises(RealmPanic, match="stake must exceed the house fee of 2 GNOT"):
        Realm(state).Offer(ctx, "", 15, h("p"), 2_000_000)


def test_render_new_reads_the_stake_in_gnot_and_defaults_valid_for() -> None:
    state = RealmState(path="gno.land/r/samcrew/connect4", owner=A)
    ready = render(state, T0, f"new?stake=12.5&commitment={h('p')}")
    assert (
        f"$help&func=Offer&opponent=&validFor=15&commitment={h('p')}"
        "&maxFee=100000&.send=12500000ugnot)" in ready
    )
    assert "- validFor" in render(state, T0, f"new?stake=2&validFor=&commitment={h('p')}")
    for stake in ("1.0000001", "12,5", "-1", "", "0x10", "1e6"):
        page = render(state, T0, f"new?stake={stake}&commitment={h('p')}")
        assert "- stake below minimum of 1 GNOT\n" in page, stake


def test_render_new_lists_both_stake_rules_when_both_apply() -> None:
    state = RealmState(path="gno.land/r/samcrew/connect4", owner=A)
    page = render(state, T0, f"new?stake=0.05&commitment={h('p')}")
    assert (
        "- stake below minimum of 1 GNOT\n- stake must exceed the house fee of 0.1 GNOT\n" in page
    )


def test_render_paths_are_cut_at_the_query_and_read_as_atoi() -> None:
    state = playing()
    page = render(state, T0 + 20, "game/1")
    for path in ("game/1?x=1", "game/+1", "game/01", "game/1?"):
        assert render(state, T0 + 20, path) == page, path
    for path in ("game/-1", "game/1x", "game/ 1", "game/", "game/1/2", "new/x"):
        assert render(state, T0 + 20, path) == "# Not found\n", path
    assert render(state, T0 + 20, "?anything") == render(state, T0 + 20, "")


def test_render_durations_are_written_as_go_writes_them() -> None:
    state = RealmState(path="gno.land/r/samcrew/connect4", owner=A)
    call(state, A, T0, "Offer", "", "60", h("p"), "100000", send=10_000_000)
    assert "| 1h0m0s |" in render(state, T0, "")
    assert "| 5m0s |" in render(state, T0 + 3300, "")
    assert "Open offer for anyone, expires in 59m59s.\n" in render(state, T0 + 1, "game/1")


def test_lobby_gives_its_50_rows_to_games_in_id_order() -> None:
    state = RealmState(path="gno.land/r/samcrew/connect4", owner=A)
    for n in range(30):  # games 1..30 become live
        call(state, A, T0, "Offer", "", "15", h(f"a{n}"), "100000", send=1_000_000)
        call(state, B, T0, "Accept", str(n + 1), h(f"b{n}"), send=1_000_000)
    for n in range(30):  # games 31..60 stay open
        call(state, A, T0, "Offer", "", "15", h(f"c{n}"), "100000", send=1_000_000)
    lobby = render(state, T0 + 1, "")
    offers, live = lobby.split("## Live games")
    assert offers.count("[Accept]") == 20 and "[#50](" in offers and "[#51](" not in offers
    assert live.count(" (reveal) |") == 30
    assert "Showing the first 50 games; ActiveJSON pages through all." in lobby
