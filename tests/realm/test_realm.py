"""The realm directly: a context in, a result (values and transfers) or a panic out."""

from __future__ import annotations

import copy

import pytest

from c4cli.commitment import commitment_of
from c4cli.realm import abi
from c4cli.realm.memory import CallResult, Context, Game, RealmPanic, RealmState
from c4cli.realm.rules import Ending, Status, ending, payout

A = "g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5"
B = "g1mtmrdmqfu0aryqfl4aw65n35haw2wdjkh5p4cp"
REALM = "g1k6gkjudkl2tls7mfzhctrgre2ltjlxtgp635n0"
T0 = 1767225600
STAKE = 10_000_000


def call(
    state: RealmState, caller: str, now: int, func: str, *args: str, send: int = 0
) -> CallResult:
    ctx = Context(
        caller=caller, send={"ugnot": send} if send else {}, now=now, height=1, realm_address=REALM
    )
    return abi.call(state, ctx, func, list(args))


def started() -> tuple[RealmState, str, str]:
    """A game whose first mover is known: (state, first mover, second)."""
    state = RealmState(path="gno.land/r/samcrew/connect4", owner=A)
    assert call(state, A, T0, "Offer", "", "15", commitment_of("p"), "100000", send=STAKE) == (
        CallResult(values=(("1", "int"),))
    )
    assert call(state, B, T0 + 5, "Accept", "1", commitment_of("s"), send=STAKE) == CallResult()
    call(state, A, T0 + 10, "Reveal", "1", "p")
    call(state, B, T0 + 15, "RevealSeed", "1", "s")
    game = state.games[1]
    first = game.player(game.turn)
    return state, first, B if first == A else A


def test_a_win_pays_the_pot_less_the_fee_to_the_winner() -> None:
    state, first, second = started()
    for move in range(6):
        mover, column = (first, "4") if move % 2 == 0 else (second, "5")
        assert call(state, mover, T0 + 20 + move, "Play", "1", column, str(move)) == CallResult()
    result = call(state, first, T0 + 30, "Play", "1", "4", "6")
    assert result == CallResult(transfers=((first, 2 * STAKE - 100_000),))
    game = state.games[1]
    assert (game.status, game.winner, game.payout()) == (Status.WON, first, 19_900_000)
    assert state.collected == 100_000 and 1 not in state.active
    assert state.wins_board == [(first, 1)] and state.gnot_board == [(first, STAKE - 100_000)]


def test_a_panic_leaves_the_state_as_it_was() -> None:
    state, first, second = started()
    before = copy.deepcopy(state)
    for func, args, caller, text in [
        ("Play", ["1", "4", "0"], second, "not your turn"),
        ("Play", ["1", "8", "0"], first, "column must be between 1 and 7"),
        ("Play", ["1", "4", "3"], first, "stale move: the game is at move 0"),
        ("Cancel", ["1"], A, "game is not open"),
        ("SetFee", ["1"], B, "ownable: caller is not owner"),
    ]:
        with pytest.raises(RealmPanic, match=f"^{text}$"):
            call(state, caller, T0 + 20, func, *args)
        assert state.snapshot() == before.snapshot()


def test_the_clock_is_block_time_and_exactly_inclusive() -> None:
    state, first, second = started()
    deadline = state.games[1].deadline
    assert deadline == T0 + 15 + 90
    with pytest.raises(RealmPanic, match="move clock has not run out"):
        call(state, second, deadline, "ClaimTimeout", "1")
    call(state, first, deadline, "Play", "1", "4", "0")  # at the deadline: in time
    late = state.games[1].deadline + 1
    result = call(state, A, late, "ClaimTimeout", "1")  # anyone may settle it
    assert result == CallResult(transfers=((first, 2 * STAKE - 100_000),))


def test_snapshot_and_restore_give_back_the_same_realm() -> None:
    state, first, second = started()
    call(state, first, T0 + 20, "Play", "1", "4", "0")

    class Empty:
        def game(self, game_id: int) -> Game:
            raise AssertionError("live games are in the snapshot")

        def used(self, address: str, commitment: str) -> bool:
            return False

    restored = RealmState.restore(state.snapshot(), Empty())
    assert restored.snapshot() == state.snapshot()
    assert restored.games[1] == state.games[1]
    call(restored, second, T0 + 25, "Play", "1", "5", "1")  # and it plays on


def test_endings_from_published_state() -> None:
    assert ending("won", four_in_a_row=True) is Ending.FOUR_IN_A_ROW
    assert ending("won", four_in_a_row=False) is Ending.FORFEIT
    assert ending("draw", four_in_a_row=False) is Ending.DRAW
    assert ending("playing", four_in_a_row=False) is None
    assert payout(STAKE, 0) == 2 * STAKE


def test_the_game_calls_are_those_whose_first_parameter_is_the_game() -> None:
    """rules.GAME_CALLS (what a client uses to tell which game a receipt is about)
    says what the realm's own signatures say."""
    from c4cli.realm import rules

    by_abi = {name for name, sig in abi.CALLS.items() if sig.params[:1] == (("id", abi.INT),)}
    assert by_abi == rules.GAME_CALLS
