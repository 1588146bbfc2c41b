"""An account read from the chain, and on a node proven: the node's answer held to the
account its main store proves against the app hash the trusted validators signed.

gnokey prints the node's ``auth/accounts`` and ``bank/balances`` answers as they come;
c4 prints the same answers, asked at the height the proof stands at, once they agree
with the proven account (its address, numbers, key and coins; its ugnot for a
balance). An answer that differs is exit 4, naming what differed; a home that takes
its node's word (``--trust-node``) reads the answer alone, as before.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from c4cli.chain.interface import ChainReader
from c4cli.coins import parse_coins
from c4cli.errors import BadInput, Unverified
from c4cli.wire import stored
from c4cli.wire.paths import ACCOUNTS, BALANCES
from c4cli.wire.protowire import DecodeError
from c4cli.wire.results import Tm2Account, tm2_account
from c4cli.wire.storeproof import account_key


class Read(NamedTuple):
    """The node's answer (its JSON), and the block whose state proves it (None: not
    proven, on the local chain or where the node's word is taken)."""

    document: Any
    height: int
    proven_at: int | None


def ugnot_of(coins: str) -> int:
    """The ugnot in tm2 coins text (``5ugnot,3foo``)."""
    try:
        return parse_coins(coins).get("ugnot", 0) if coins else 0
    except BadInput:
        raise Unverified(f"a balance that is not coins: {coins!r}") from None


def read(chain: ChainReader, address: str, what: str, height: int = 0) -> Read:
    """``address``'s ``auth/accounts`` (``what`` "account") or ``bank/balances`` answer at
    ``height``, held to the proven account where the chain proves one."""
    name = f"the account {address}"
    proven = chain.stored(account_key(address), name, height)
    path = (ACCOUNTS if what == "account" else BALANCES) + address
    at = height if proven is None else proven.height
    answer = chain.query(path, height=at)
    document = answer.document(what)
    if proven is None:
        return Read(document, answer.height, None)
    try:
        account = None if proven.value is None else stored.account(proven.value)
    except (DecodeError, ValueError) as exc:
        raise Unverified(f"{name} proven at block {at} is not an account: {exc}") from None
    if what == "account":
        _same_account(document, account, name, at)
    else:
        said = ugnot_of(document if isinstance(document, str) else "?")
        held = 0 if account is None else ugnot_of(account.coins)
        if said != held:
            raise Unverified(
                f"the node says {name} holds {said}ugnot at block {at}; the proof, {held}ugnot"
            )
    return Read(document, at, at)


def _same_account(document: Any, account: Tm2Account | None, name: str, at: int) -> None:
    try:
        said = tm2_account(document)
    except (ValueError, TypeError, AttributeError):
        raise Unverified(f"the node answered {name} in a shape it never has") from None
    if said == account:
        return
    if said is None or account is None:
        held, shown = ("none", "one") if account is None else ("one", "none")
        raise Unverified(f"the node shows {shown} for {name} at block {at}; the proof, {held}")
    differ = [
        field for field in Tm2Account._fields if getattr(said, field) != getattr(account, field)
    ]
    raise Unverified(
        f"the node's {name} at block {at} differs from the proven one in: {', '.join(differ)}"
    )
