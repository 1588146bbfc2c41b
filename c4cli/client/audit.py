"""`c4 audit`: the realm's books from its history, against what it holds and its balance.

Every coin the realm took and paid is a delivered call's: the stakes sent with
Offer and Accept (and any coins sent to its address), the payouts of won games, the
stakes given back (a draw, a void game, a cancelled or expired offer), the fees
withdrawn. On the local chain the log lists them; on a node the realm's history does
(`c4 sync`, its calls run again by c4's mirror). What the books leave in the realm
must be what it holds (the stakes of its open and live games, the fees collected and
not yet withdrawn, as the realm itself says) and what its bank account holds (on a
node that verifies blocks, the realm's account proven from the app hash, as `c4 query
balance` proves it: client/accounts.py, after the history's last block, the block
the books run to; with --trust-node, the node's word).
"""

from __future__ import annotations

from typing import NamedTuple

from c4cli.address import package_address
from c4cli.chain.controls import LocalControls
from c4cli.chain.interface import ChainReader
from c4cli.client import accounts
from c4cli.client.player import live_games
from c4cli.client.realm_client import RealmClient, Status
from c4cli.client.replayed import Flow, Tally, tally_of
from c4cli.coins import UGNOT, parse_coins
from c4cli.jsonvalue import Document


class Books(NamedTuple):
    """The realm's books (ugnot), what it holds by its own word, and its bank balance."""

    taken: int  # stakes (and any coins) the realm's calls sent it
    sent: int  # coins sent to its address by bank sends
    paid: int  # won games' payouts
    refunded: int  # stakes given back: draws, void games, cancelled offers
    withdrawn: int  # fees the owner withdrew
    held: int  # the stakes of its open and live games, as the realm lists them
    pending_fees: int  # the fees collected and not yet withdrawn, as the realm says
    balance: int  # its bank balance
    proven_at: int | None = None  # the block whose state proves the balance (a node's)

    @property
    def left(self) -> int:
        """What the books leave in the realm."""
        return self.taken + self.sent - self.paid - self.refunded - self.withdrawn

    @property
    def owed(self) -> int:
        """What the realm says it holds: its games' stakes and its fees."""
        return self.held + self.pending_fees

    @property
    def surplus(self) -> int:
        """What the realm holds beyond what it owes (coins sent to its address, say):
        solvent, and said; 0 when it holds no more than it owes."""
        return max(0, self.left - self.owed)

    def discrepancies(self) -> list[Document]:
        """What does not add up: the realm holding less than it owes (more is solvent:
        :attr:`surplus`), or its bank balance not what its books leave."""
        found: list[Document] = []
        if self.left < self.owed:
            found.append(
                {
                    "what": "holdings",
                    "books_ugnot": self.left,
                    "realm_ugnot": self.owed,
                    "text": f"the books leave {self.left} ugnot in the realm, and it owes "
                    f"{self.owed} by its own word ({self.held} of stakes, {self.pending_fees} "
                    f"of fees): {self.owed - self.left} ugnot short",
                }
            )
        if self.left != self.balance:
            found.append(
                {
                    "what": "balance",
                    "books_ugnot": self.left,
                    "bank_ugnot": self.balance,
                    "text": f"the books leave {self.left} ugnot in the realm, and its bank "
                    f"balance is {self.balance}",
                }
            )
        return found


def books(chain: ChainReader, tally: Tally, height: int = 0) -> Books:
    """The books of ``tally`` (through block ``height``; 0: the last) beside what the
    realm holds, read now, and its balance after that same block."""
    held = sum(
        game.stake * (1 if game.status == Status.OPEN else 2)
        for game in live_games(chain)
        if game.status in (Status.OPEN, Status.PLAYING)
    )
    pending = RealmClient(chain).fees().collected
    read = accounts.read(chain, package_address(chain.realm_path), "balance", height)
    return Books(*tally, held, pending, read.ugnot, read.proven_at)


def local_tally(chain: LocalControls) -> Tally:
    """The coins each landed transaction of a local chain moved to and from the realm,
    from its log's listing (the local chain runs only the realm's calls), after what
    the realm held at genesis (a chain begun from a state, or forked, holds stakes)."""
    address = package_address(chain.realm_path)
    opening = chain.opening(address).get(UGNOT, 0)
    flows: list[Flow] = [Flow("", opening, ())] if opening else []
    for block in chain.listing(1, None, None):
        for tx in block["txs"]:
            if not tx["ok"] or tx["func"] is None:
                continue
            funcs, sends, tos = tx["func"].split(","), tx["send"] or [], tx["to"] or []
            calls = [i for i, to in enumerate(tos) if to is None]
            for index, to in enumerate(tos):
                if to == address:
                    flows.append(Flow("", _ugnot(sends[index]), ()))
            if not calls:
                continue
            transfers = tuple((t["to"], _ugnot(t["amount"])) for t in tx["transfers"])
            for number, index in enumerate(calls):
                last = number == len(calls) - 1  # a tx's payouts, on its last call
                func = funcs[index] if index < len(funcs) else funcs[-1]
                flows.append(Flow(func, _ugnot(sends[index]), transfers if last else ()))
    return tally_of(flows)


def _ugnot(coins: str | None) -> int:
    return parse_coins(coins or "").get(UGNOT, 0)
