"""Accounts as the chain keeps them: numbers, sequences, coins, and session keys.

An account exists once it holds coins; a session is an account of its own,
authorised by its master, with the rights its creation granted.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from c4cli.coins import Coins, format_coins
from c4cli.errors import INSUFFICIENT_FUNDS, Refused
from c4cli.records import Record
from c4cli.wire import crypto, pubkeys
from c4cli.wire.pubkeys import PubKey

if TYPE_CHECKING:
    from typing import TypedDict

    from c4cli.jsonvalue import Document

    class SessionRecord(TypedDict):
        """A session key as a checkpoint and a state document keep it."""

        address: str
        number: int
        pub_key: str  # hex
        expires_at: int
        allow_paths: list[str]
        spend_limit: Coins
        spend_period: int
        period_start: int
        spent: Coins
        sequence: int

    class AccountRecord(TypedDict):
        """An account as a checkpoint and a state document keep it."""

        address: str
        number: int
        coins: Coins
        sequence: int
        pub_key: str | Document | None  # see stored_key
        sessions: list[SessionRecord]


class Session(Record):
    """A session key authorised by its master account (gno.land session accounts)."""

    __slots__ = (
        "address",
        "allow_paths",
        "expires_at",
        "number",
        "period_start",
        "pub_key",
        "sequence",
        "spend_limit",
        "spend_period",
        "spent",
    )

    def __init__(
        self,
        address: str,
        number: int,
        pub_key: bytes,
        expires_at: int,
        allow_paths: tuple[str, ...],
        spend_limit: Coins,
        spend_period: int,
        period_start: int,
    ) -> None:
        self.address = address
        # A session is an account of its own on gno.land: it takes the next
        # account number, and its signatures cover that number and its sequence.
        self.number = number
        self.pub_key = pub_key
        self.expires_at = expires_at  # Unix seconds; 0 = never
        self.allow_paths = allow_paths
        self.spend_limit = spend_limit
        self.spend_period = spend_period  # seconds; 0 = the limit is for the session's life
        self.period_start = period_start
        self.spent: Coins = {}
        self.sequence = 0

    def allows(self, path: str) -> bool:
        """Whether an allow-path covers ``path`` (``vm/exec:<pkg>``, ``bank/send``, …)."""
        for allowed in self.allow_paths:
            if allowed in ("*", path):
                return True
            if allowed == "vm/exec" and path.startswith("vm/exec:"):
                return True
            # vm/exec:<realm> covers its sub-paths, never a longer name.
            if allowed.startswith("vm/exec:") and path.startswith(allowed + "/"):
                return True
        return False

    def snapshot(self) -> SessionRecord:
        """Every field, as plain JSON values, for a checkpoint."""
        return {
            "address": self.address,
            "number": self.number,
            "pub_key": self.pub_key.hex(),
            "expires_at": self.expires_at,
            "allow_paths": list(self.allow_paths),
            "spend_limit": self.spend_limit,
            "spend_period": self.spend_period,
            "period_start": self.period_start,
            "spent": self.spent,
            "sequence": self.sequence,
        }

    @classmethod
    def restore(cls, data: SessionRecord) -> Session:
        session = cls(
            address=str(data["address"]),
            number=int(data["number"]),
            pub_key=bytes.fromhex(data["pub_key"]),
            expires_at=int(data["expires_at"]),
            allow_paths=tuple(str(p) for p in data["allow_paths"]),
            spend_limit=coins_from_json(data["spend_limit"]),
            spend_period=int(data["spend_period"]),
            period_start=int(data["period_start"]),
        )
        session.spent = coins_from_json(data["spent"])
        session.sequence = int(data["sequence"])
        return session

    def node_json(self, master: str, *, typed: bool = False) -> Document:
        """The session as gno.land's auth queries give it (amino JSON of its
        GnoSessionAccount: the BaseSessionAccount embedded, allow_paths beside it;
        empty optional fields left out). ``typed``: with the ``@type`` a list of
        sessions carries."""
        session: Document = {
            "BaseAccount": {
                "address": self.address,
                "coins": "",
                "public_key": {
                    "@type": crypto.PUBKEY_TYPE,
                    "value": base64.b64encode(self.pub_key).decode(),
                },
                "account_number": str(self.number),
                "sequence": str(self.sequence),
            },
            "master_address": master,
            "expires_at": str(self.expires_at),
        }
        optional = {
            "spend_limit": format_coins(self.spend_limit),
            "spend_period": str(self.spend_period) if self.spend_period else "",
            "spend_used": format_coins(self.spent),
            "spend_reset": str(self.period_start) if self.period_start else "",
        }
        session.update({key: value for key, value in optional.items() if value})
        document: Document = {"@type": SESSION_TYPE} if typed else {}
        document["BaseSessionAccount"] = session
        if self.allow_paths:
            document["allow_paths"] = list(self.allow_paths)
        return document


class Account(Record):
    __slots__ = ("address", "coins", "number", "pub_key", "sequence", "sessions")

    def __init__(self, address: str, number: int) -> None:
        self.address = address
        self.number = number
        self.coins: Coins = {}
        self.sequence = 0
        self.pub_key: PubKey | None = None
        self.sessions: dict[str, Session] = {}

    def snapshot(self) -> AccountRecord:
        """Every field, as plain JSON values, for a checkpoint."""
        return {
            "address": self.address,
            "number": self.number,
            "coins": self.coins,
            "sequence": self.sequence,
            "pub_key": stored_key(self.pub_key),
            "sessions": [session.snapshot() for session in self.sessions.values()],
        }

    @classmethod
    def restore(cls, data: AccountRecord) -> Account:
        account = cls(str(data["address"]), int(data["number"]))
        account.coins = coins_from_json(data["coins"])
        account.sequence = int(data["sequence"])
        account.pub_key = _restored_key(data["pub_key"])
        for record in data["sessions"]:
            session = Session.restore(record)
            account.sessions[session.address] = session
        return account

    def to_json(self) -> Document:
        pub = None if self.pub_key is None else pubkeys.to_json(self.pub_key)
        return {
            "BaseAccount": {
                "address": self.address,
                "coins": format_coins(self.coins),
                "public_key": pub,
                "account_number": str(self.number),
                "sequence": str(self.sequence),
            },
            # GnoAccount's flags (a restricted account, …): none on the local chain.
            "attributes": "0",
        }


SESSION_TYPE = "/gno.SessionAccount"


def require_funds(address: str, have: Coins, need: Coins) -> None:
    if any(have.get(denom, 0) < amount for denom, amount in need.items()):
        raise Refused(
            f"insufficient funds: {address} has {format_coins(have) or '0ugnot'}, "
            f"needs {format_coins(need)}",
            kind=INSUFFICIENT_FUNDS,
        )


def coins_from_json(data: Mapping[str, object]) -> Coins:
    """Coins as a checkpoint saved them: ``{"ugnot": 5}``."""
    return {str(denom): _amount(amount) for denom, amount in data.items()}


def _amount(amount: object) -> int:
    if not isinstance(amount, int | str) or isinstance(amount, bool):
        raise TypeError(f"a coin's amount is {amount!r}")
    return int(amount)


def stored_key(key: PubKey | None) -> str | Document | None:
    """An account's key in a checkpoint: a secp256k1 key as hex, a multisig as amino JSON."""
    if key is None or isinstance(key, bytes):
        return None if key is None else key.hex()
    return pubkeys.to_json(key)


def _restored_key(stored: Any) -> PubKey | None:
    if stored is None:
        return None
    return bytes.fromhex(stored) if isinstance(stored, str) else pubkeys.from_json(stored)
