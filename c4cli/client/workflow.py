"""A game's calls over any chain: offer, accept, reveal, play, settle, and the owner's.

Two levels, as a client of the realm needs them:

- **Calls given everything** (:func:`offer_call`, :func:`accept_call`, …): a
  :class:`Call` from plain values, for a script that knows them all (the bench
  builds a million of them ahead of time).
- **Calls that read the realm** (:func:`offer`, :func:`accept`, :func:`reveal`,
  :func:`play`): what a command leaves unsaid is filled in from the realm as it
  stands when the transaction is signed (the stake to match, the move count, the
  fee, the realm's own parameters of ``Offer``), inside the lock on the local
  chain, so nothing read can go stale.

:class:`Table` puts them over a :class:`~c4cli.chain.interface.Chain` with the
home's secrets, for the demo, the tests and any script. The commands use the same
functions with their own options, signer and receipts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from c4cli.chain.interface import DEFAULT_POLICY, Build, Chain, Receipt, SendPolicy, Signer
from c4cli.client.realm_client import GameView, RealmClient
from c4cli.commitment import commitment_of
from c4cli.errors import BadInput, NoKeptSecret, NoMaxFee, Refused
from c4cli.home.secrets import SecretStore, new_secret
from c4cli.realm.rules import DENOM
from c4cli.realm.rules import MIN_STAKE as MIN_STAKE  # the commands' word for it
from c4cli.wire.tx import Fee, Msg, call_msg, fee


class Call(NamedTuple):
    """One realm call: its function, its arguments as strings (as vm/m_call carries
    them) and the coins sent with it ("" for none)."""

    func: str
    args: list[str]
    send: str = ""

    def msg(self, caller: str, realm_path: str) -> Msg:
        return call_msg(caller, realm_path, self.func, self.args, self.send)


# A call built from the realm as it stands when the transaction is signed.
BuildCall = Callable[[RealmClient], Call]


def coins(ugnot: int) -> str:
    return f"{ugnot}{DENOM}" if ugnot else ""


# -- calls given everything ---------------------------------------------------------


def offer_call(
    stake: int, commitment: str, *, valid_for: int = 15, opponent: str = "", max_fee: int
) -> Call:
    """Offer as this realm declares it: opponent, minutes valid, commitment, maxFee."""
    return Call("Offer", [opponent, str(valid_for), commitment, str(max_fee)], coins(stake))


def accept_call(game_id: int, commitment: str, stake: int) -> Call:
    return Call("Accept", [str(game_id), commitment], coins(stake))


def reveal_call(game_id: int, secret: str, *, acceptor: bool) -> Call:
    """The creator's Reveal of its passphrase, or the acceptor's RevealSeed."""
    return Call("RevealSeed" if acceptor else "Reveal", [str(game_id), secret])


def play_call(game_id: int, column: int | str, move: int) -> Call:
    """A disc in ``column`` (1-7), pinned to the move count it was chosen at."""
    return Call("Play", [str(game_id), str(column), str(move)])


def game_call(func: str, game_id: int) -> Call:
    """A call that names only its game: Cancel, Resign, ClaimTimeout."""
    return Call(func, [str(game_id)])


# -- calls that read the realm --------------------------------------------------------


def game_in(realm: RealmClient, game_id: int) -> GameView:
    game = realm.game(game_id)
    if game is None:
        raise Refused("game not found")
    return game


def offer(
    stake: int,
    commitment: str,
    *,
    valid_for: int = 15,
    opponent: str = "",
    max_fee: int | None = None,
) -> BuildCall:
    """Offer with the realm's own parameters, by name: a realm without maxFee (the
    samcrew realm as deployed on gno.land) is sent the arguments it takes, in its
    order; ``max_fee`` defaults to the fee the realm asks now."""

    def build(realm: RealmClient) -> Call:
        params = realm.params("Offer")
        if params is None:
            raise Refused(f"function Offer not found in {realm.reader.realm_path}")
        if "maxFee" not in params and max_fee is not None:
            raise NoMaxFee(f"the realm at {realm.reader.realm_path} takes no maxFee")
        values = {"opponent": opponent, "validFor": str(valid_for), "commitment": commitment}
        if "maxFee" in params:
            values["maxFee"] = str(max_fee if max_fee is not None else realm.fee())
        unknown = [name for name in params if name not in values]
        if unknown:
            raise BadInput(f"the realm's Offer takes {', '.join(unknown)}, which c4 cannot fill in")
        return Call("Offer", [values[name] for name in params], coins(stake))

    return build


def accept(game_id: int, commitment: str, *, send: str | None = None) -> BuildCall:
    """Accept, sending exactly the offer's stake unless ``send`` overrides it."""

    def build(realm: RealmClient) -> Call:
        sent = send if send is not None else coins(game_in(realm, game_id).stake)
        return Call("Accept", [str(game_id), commitment], sent)

    return build


def reveal(
    game_id: int,
    player: str,
    *,
    secret: str | None = None,
    secrets: SecretStore | None = None,
    key: str = "",
) -> BuildCall:
    """The player's reveal: Reveal for the creator, RevealSeed for the acceptor, of
    ``secret`` or else the one kept for the player's commitment in this game."""

    def build(realm: RealmClient) -> Call:
        game = game_in(realm, game_id)
        acceptor = player == game.acceptor
        value = secret
        if value is None and secrets is not None:
            value = secrets.find(player, game.seed_commitment if acceptor else game.commitment)
        if value is None and player not in (game.creator, game.acceptor):
            raise BadInput(
                f"{key or player} is not a player in game {game_id}: it has nothing to reveal"
            )
        if value is None:
            raise NoKeptSecret(f"no kept secret for game {game_id} and key {key or player}")
        return reveal_call(game_id, value, acceptor=acceptor)

    return build


def play(game_id: int, column: int | str, *, move: int | None = None) -> BuildCall:
    """Play, pinned to ``move`` or else to the move count the game stands at."""

    def build(realm: RealmClient) -> Call:
        seen = move
        if seen is None:
            game = realm.game(game_id)
            seen = game.moves if game is not None else 0
        return play_call(game_id, column, seen)

    return build


def given(call: Call) -> BuildCall:
    """A call that reads nothing of the realm."""
    return lambda realm: call


def messages(build: BuildCall, caller: str) -> Build:
    """The transaction's messages for ``caller``: the call ``build`` makes from the chain
    it will run on (inside the lock, on the local chain)."""
    return lambda reader: [build(RealmClient(reader)).msg(caller, reader.realm_path)]


# -- the workflow over a chain ---------------------------------------------------------


class Table:
    """A chain and a home's secrets: the game's workflow for scripts (the demo, the
    bench, the tests). Each method signs, submits and returns the receipt; a secret
    is kept in the home before its commitment can reach the chain."""

    def __init__(
        self,
        chain: Chain,
        secrets: SecretStore,
        *,
        gas: Fee | None = None,
        policy: SendPolicy = DEFAULT_POLICY,
    ) -> None:
        self.chain = chain
        self.realm_client = RealmClient(chain)
        self.secrets = secrets
        self.gas = gas if gas is not None else fee(2_000_000, "0ugnot")
        self.policy = policy

    def send(self, signer: Signer, build: BuildCall, memo: str = "") -> Receipt:
        msgs = messages(build, signer.address)
        return self.chain.submit(signer, msgs, self.gas, memo, policy=self.policy)

    def offer(
        self,
        signer: Signer,
        stake: int,
        *,
        secret: str | None = None,
        valid_for: int = 15,
        opponent: str = "",
        max_fee: int | None = None,
    ) -> Receipt:
        passphrase = secret if secret is not None else new_secret()
        build = offer(
            stake,
            commitment_of(passphrase),
            valid_for=valid_for,
            opponent=opponent,
            max_fee=max_fee,
        )
        with self.secrets.kept(signer.address, passphrase):
            return self.send(signer, build)

    def accept(self, signer: Signer, game_id: int, *, seed: str | None = None) -> Receipt:
        value = seed if seed is not None else new_secret()
        with self.secrets.kept(signer.address, value):
            return self.send(signer, accept(game_id, commitment_of(value)))

    def reveal(self, signer: Signer, game_id: int) -> Receipt:
        return self.send(signer, reveal(game_id, signer.address, secrets=self.secrets))

    def play(self, signer: Signer, game_id: int, column: int | str) -> Receipt:
        return self.send(signer, play(game_id, column))

    def game(self, game_id: int) -> GameView:
        return game_in(self.realm_client, game_id)
