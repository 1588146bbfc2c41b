"""Random calls from several keys with random time jumps, through the chain's executor.

Every step builds a real signed transaction and runs it through
``ChainState.apply_block`` (the code that executes and replays the log), in
memory. After every step: coins are conserved, the realm holds exactly the live
stakes plus collected fees, a refused call changed nothing, and the leaderboards
agree with the per-player stats.
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from c4cli.chain.clock import format_time
from c4cli.errors import Refused
from c4cli.local.blocks import tx_entry
from c4cli.local.genesis import Genesis, block_hash
from c4cli.local.state import ChainState
from c4cli.realm.memory import OPEN, PLAYING, Game
from c4cli.wire import crypto
from c4cli.wire.tx import call_msg, create_session_msg, fee, signed_tx

PATH = "gno.land/r/samcrew/connect4"
PLAYERS = ("alice", "bob", "carol", "owner")
KEYS = {name: hashlib.sha256(name.encode()).digest() for name in (*PLAYERS, "alice-session")}
ADDR = {name: crypto.address_of(crypto.public_key(key)) for name, key in KEYS.items()}
PREMINE = 1_000 * 1_000_000


class RealmMachine(RuleBasedStateMachine):
    @initialize()
    def genesis(self) -> None:
        genesis = Genesis(
            chain_id="dev",
            time=1_767_225_600,
            clock="manual",
            block_interval=5,
            realm_path=PATH,
            deployer=ADDR["owner"],
            balances=tuple((ADDR[p], f"{PREMINE}ugnot") for p in PLAYERS),
        )
        self.state = ChainState(genesis, block_hash(genesis.to_record()))
        self.supply = self.state.total_supply()
        self.secrets: dict[str, str] = {}  # commitment -> secret
        self.counter = 0
        self.refusals = 0
        msg = create_session_msg(
            ADDR["alice"],
            crypto.public_key(KEYS["alice-session"]),
            0,
            ["*"],
            "100000000000ugnot",
            0,
        )
        self._block([self._sign("alice", [msg])])

    # -- plumbing ---------------------------------------------------------------

    def _sign(self, name: str, msgs: list[dict[str, Any]], session: bool = False) -> dict[str, Any]:
        master = "alice" if session else name
        account = self.state.accounts[ADDR[master]]
        sequence = account.sequence
        session_addr = None
        if session:
            session_addr = ADDR["alice-session"]
            sequence = account.sessions[session_addr].sequence
        tx = signed_tx(
            msgs,
            fee(2_000_000, "0ugnot"),
            "",
            private_key=KEYS["alice-session" if session else name],
            chain_id="dev",
            account_number=account.number,
            sequence=sequence,
            session_addr=session_addr,
        )
        return tx_entry(tx, account.number, sequence)

    def _block(self, txs: list[dict[str, Any]], seconds: int = 5) -> None:
        record: dict[str, Any] = {
            "height": self.state.height + 1,
            "time": format_time(self.state.time + seconds),
            "prev_hash": self.state.last_hash,
        }
        if txs:
            record["txs"] = txs
        record["hash"] = block_hash(record)
        self.state.apply_block(record, new=True)

    def call(
        self, name: str, func: str, args: list[str], send: str = "", session: bool = False
    ) -> bool:
        caller = "alice" if session else name
        msg = call_msg(ADDR[caller], PATH, func, args, send)
        before = copy.deepcopy((self.state.accounts, self.state.realm, self.state.height))
        try:
            self._block([self._sign(name, [msg], session)])
        except Refused:
            assert (self.state.accounts, self.state.realm, self.state.height) == before
            self.refusals += 1
            return False
        return True

    def _secret(self) -> tuple[str, str]:
        self.counter += 1
        secret = f"secret-{self.counter}"
        commitment = hashlib.sha256(secret.encode()).hexdigest()
        self.secrets[commitment] = secret
        return secret, commitment

    def _game_id(self, data: st.DataObject) -> str:
        top = len(self.state.realm.games)
        return str(data.draw(st.integers(min_value=1, max_value=top + 1)))

    # -- rules ------------------------------------------------------------------

    @rule(
        name=st.sampled_from(PLAYERS),
        stake=st.sampled_from([500_000, 1_000_000, 3_000_000]),
        valid_for=st.sampled_from([0, 1, 5, 61]),
        opponent=st.sampled_from(["", "alice", "bob", "upper"]),
        max_fee=st.sampled_from([0, 100_000, 500_000]),
        reuse=st.booleans(),
    )
    def offer(
        self, name: str, stake: int, valid_for: int, opponent: str, max_fee: int, reuse: bool
    ) -> None:
        rival = ADDR["bob"].upper() if opponent == "upper" else ADDR.get(opponent, "")
        commitment = next(iter(self.secrets)) if reuse and self.secrets else self._secret()[1]
        self.call(name, "Offer", [rival, str(valid_for), commitment, str(max_fee)], f"{stake}ugnot")

    @rule(name=st.sampled_from(PLAYERS))
    def good_offer(self, name: str) -> None:
        self.call(name, "Offer", ["", "5", self._secret()[1], "500000"], "2000000ugnot")

    @rule(data=st.data(), session=st.booleans())
    def progress(self, data: st.DataObject, session: bool) -> None:
        """The right next step of a live game, so games get played to the end."""
        live = list(self.state.realm.active)
        if not live:
            return
        game_id = data.draw(st.sampled_from(live))
        for _ in range(data.draw(st.integers(min_value=1, max_value=12))):
            if game_id in self.state.realm.active:
                self._step(self.state.realm.games[game_id], data, session)

    def _step(self, game: Game, data: st.DataObject, session: bool) -> None:
        name_of = {ADDR[n]: n for n in PLAYERS}
        gid = str(game.id)
        if game.status == OPEN:
            name = data.draw(st.sampled_from([n for n in PLAYERS if ADDR[n] != game.creator]))
            self.call(name, "Accept", [gid, self._secret()[1]], f"{game.stake}ugnot")
        elif game.turn == 0:
            who = game.acceptor if game.revealed else game.creator
            commitment = game.seed_commitment if game.revealed else game.commitment
            func = "RevealSeed" if game.revealed else "Reveal"
            name = name_of[who]
            self.call(
                name, func, [gid, self.secrets[commitment]], session=session and name == "alice"
            )
        else:
            name = name_of[game.turn_player()]
            column = data.draw(st.sampled_from(game.board().legal())) + 1
            self.call(
                name,
                "Play",
                [gid, str(column), str(len(game.moves))],
                session=session and name == "alice",
            )

    @rule(data=st.data(), session=st.booleans())
    def progress_again(self, data: st.DataObject, session: bool) -> None:
        self.progress(data, session)

    @rule(data=st.data(), session=st.booleans())
    def progress_more(self, data: st.DataObject, session: bool) -> None:
        self.progress(data, session)

    @rule(name=st.sampled_from(PLAYERS), data=st.data(), exact=st.booleans())
    def accept(self, name: str, data: st.DataObject, exact: bool) -> None:
        game_id = self._game_id(data)
        game = self.state.realm.games.get(int(game_id))
        stake = game.stake if game is not None and exact else 1_000_000
        self.call(name, "Accept", [game_id, self._secret()[1]], f"{stake}ugnot")

    @rule(data=st.data(), right=st.booleans(), session=st.booleans())
    def reveal(self, data: st.DataObject, right: bool, session: bool) -> None:
        game_id = self._game_id(data)
        game = self.state.realm.games.get(int(game_id))
        if game is None:
            self.call("carol", "Reveal", [game_id, "x"])
            return
        creator_turn = not game.revealed
        who = game.creator if creator_turn else game.acceptor
        name = next((n for n in PLAYERS if ADDR[n] == who), "carol")
        commitment = game.commitment if creator_turn else game.seed_commitment
        secret = self.secrets.get(commitment, "x") if right else "wrong"
        func = "Reveal" if creator_turn else "RevealSeed"
        self.call(name, func, [game_id, secret], session=session and name == "alice")

    @rule(data=st.data(), column=st.integers(min_value=0, max_value=8), stale=st.booleans())
    def play(self, data: st.DataObject, column: int, stale: bool) -> None:
        game_id = self._game_id(data)
        game = self.state.realm.games.get(int(game_id))
        name = data.draw(st.sampled_from(PLAYERS))
        move = 0
        if game is not None:
            on_turn = game.turn_player()
            name = next((n for n in PLAYERS if ADDR[n] == on_turn), name)
            move = len(game.moves) + (1 if stale else 0)
        self.call(name, "Play", [game_id, str(column), str(move)])

    @rule(data=st.data(), name=st.sampled_from(PLAYERS))
    def claim_timeout(self, data: st.DataObject, name: str) -> None:
        self.call(name, "ClaimTimeout", [self._game_id(data)])

    @rule(data=st.data(), name=st.sampled_from(PLAYERS), session=st.booleans())
    def resign(self, data: st.DataObject, name: str, session: bool) -> None:
        self.call(name, "Resign", [self._game_id(data)], session=session and name == "alice")

    @rule(data=st.data(), name=st.sampled_from(PLAYERS))
    def cancel(self, data: st.DataObject, name: str) -> None:
        self.call(name, "Cancel", [self._game_id(data)])

    @rule(name=st.sampled_from(PLAYERS), amount=st.sampled_from([-1, 0, 50_000, 500_000, 500_001]))
    def set_fee(self, name: str, amount: int) -> None:
        self.call(name, "SetFee", [str(amount)])

    @rule(name=st.sampled_from(PLAYERS), to=st.sampled_from(PLAYERS))
    def withdraw(self, name: str, to: str) -> None:
        self.call(name, "WithdrawFees", [ADDR[to]])

    @rule(name=st.sampled_from(PLAYERS), to=st.sampled_from(PLAYERS))
    def transfer_ownership(self, name: str, to: str) -> None:
        self.call(name, "TransferOwnership", [ADDR[to]])

    @rule(name=st.sampled_from(PLAYERS))
    def accept_ownership(self, name: str) -> None:
        self.call(name, "AcceptOwnership", [])

    @rule(seconds=st.sampled_from([1, 5, 30, 86, 91, 600, 3700]))
    def time_passes(self, seconds: int) -> None:
        self._block([], seconds)

    # -- invariants -------------------------------------------------------------

    @invariant()
    def coins_are_conserved(self) -> None:
        assert self.state.total_supply() == self.supply

    @invariant()
    def realm_holds_exactly_stakes_and_fees(self) -> None:
        realm = self.state.realm
        held = 0
        for game_id in realm.active:
            game = realm.games[game_id]
            assert game.status in (OPEN, PLAYING)
            held += game.stake * (2 if game.status == PLAYING else 1)
        for game in realm.games.values():
            assert (game.id in realm.active) == (game.status in (OPEN, PLAYING))
        assert self.state.balance(self.state.realm_address) == held + realm.collected

    @invariant()
    def leaderboards_match_stats(self) -> None:
        realm = self.state.realm
        for board, score_of in (
            (realm.wins_board, lambda s: s.wins),
            (realm.gnot_board, lambda s: s.net),
        ):
            winners = {a: score_of(s) for a, s in realm.stats.items() if s.wins}
            expected = sorted(winners.values(), reverse=True)[:10]
            assert [score for _, score in board] == expected
            assert all(winners[address] == score for address, score in board)
            assert len({address for address, _ in board}) == len(board)


RealmMachine.TestCase.settings = settings(
    max_examples=40,
    stateful_step_count=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestRealmMachine = pytest.mark.slow(RealmMachine.TestCase)
