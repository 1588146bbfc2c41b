"""An account (or the gas price) read from the chain, and on a node proven: the node's
answer held to the value its main store proves against the app hash the trusted
validators signed.

gnokey prints the node's ``auth/accounts`` and ``bank/balances`` answers as they come;
c4 prints the same answer once it agrees with the proven account (its address,
numbers, key and coins; its ugnot for a balance). The freshest state a header proves
is the one before the node's last block, or the one after this home's own last
transaction, whose next block is awaited (node/light/store.py): the node's answer at
that block, and at its last, are asked in the request that asks the proof. Where the
two answers differ (the account changed in the last block, or the node lies), the
block after the last is awaited and the state after the last is read so. The answer
shown must agree with the account proven; anything else is exit 4, naming what
differed. A home that takes its node's word
(``--trust-node``) reads the answer alone, as before.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from c4cli.chain.interface import Answer, ChainReader
from c4cli.chain.trust import Stored
from c4cli.coins import UGNOT, parse_coins
from c4cli.errors import BadInput, Unreachable, Unverified
from c4cli.escape import printable
from c4cli.wire import stored
from c4cli.wire.paths import ACCOUNTS, BALANCES, GASPRICE
from c4cli.wire.protowire import DecodeError
from c4cli.wire.results import Tm2Account, tm2_account
from c4cli.wire.storeproof import GAS_PRICE_KEY, account_key, session_key

PROVEN = "proven at block {height} by the trusted validators' signatures"
PRICE = "the gas price"


class Read(NamedTuple):
    """The node's answer (its text, its JSON, the height it says, as gnokey prints it),
    and the block whose state proves it (None: not proven, on the local chain or where
    the node's word is taken)."""

    data: str
    document: Any
    height: int
    proven_at: int | None

    @property
    def ugnot(self) -> int:
        """A balance's ugnot (the ``bank/balances`` answer is a coins text)."""
        return ugnot_of(self.document if isinstance(self.document, str) else "?")


def ugnot_of(coins: str) -> int:
    """The ugnot in a balance's coins (``5ugnot,3foo``); a balance that is not tm2 coins
    (negative, garbled) is the chain's garbage, never shown as a number."""
    try:
        return parse_coins(coins).get(UGNOT, 0)
    except BadInput:
        raise Unreachable(
            f"the chain answered a balance that is not coins: {printable(coins[:64])!r}"
        ) from None


def read(chain: ChainReader, address: str, what: str, height: int = 0) -> Read:
    """``address``'s ``auth/accounts`` (``what`` "account") or ``bank/balances`` answer
    after block ``height`` (0: the last block a node proves), held to the proven account
    where the chain proves one (see above)."""
    name = f"the account {address}"
    path = (ACCOUNTS if what == "account" else BALANCES) + address
    proven, answer = _answered(chain, account_key(address), name, path, height)
    document = answer.document(what)
    if proven is None:
        return Read(answer.data, document, answer.height, None)
    problem = _differs(document, proven, what, name)
    if problem is not None:
        raise Unverified(problem)
    return Read(answer.data, document, answer.height, proven.height)


def _answered(
    chain: ChainReader, key: bytes, name: str, path: str, height: int
) -> tuple[Stored | None, Answer]:
    """The value at ``key`` proven after block ``height`` (None where the chain proves
    nothing), and the node's answer to ``path`` after the same block (see above)."""
    both = chain.stored_with(key, name, [path], height, latest=not height)
    if both is None:
        return None, chain.query(path, height=height)
    proven, (answer, *last) = both
    if last and last[0].data != answer.data:
        # Changed in the node's last block (or a lie): the state after it, once proven.
        again = chain.stored_with(key, name, [path], proven.height + 1)
        assert again is not None, "a chain that proved once proves again"
        proven, (answer,) = again
    return proven, answer


def gas_price(chain: ChainReader, height: int = 0) -> Read:
    """The node's ``auth/gasprice`` answer after block ``height`` (0: the last a node
    proves, read as :func:`read` reads an account), held to the price its main store
    keeps under ``gasPrice`` (what the next block asks) where the chain proves one."""
    proven, answer = _answered(chain, GAS_PRICE_KEY, PRICE, GASPRICE, height)
    document = answer.document(PRICE)
    if proven is None:
        return Read(answer.data, document, answer.height, None)
    at = proven.height
    try:
        held = (0, 1) if proven.value is None else stored.gas_price(proven.value)
    except DecodeError as exc:
        raise Unverified(f"the gas price proven at block {at} is not one: {exc}") from None
    said = _price_said(document)
    if said != held:
        shown = "no price" if said is None else f"{said[0]}ugnot per {said[1]} gas"
        raise Unverified(
            f"the node says the gas price is {shown}; the proof at block {at}, "
            f"{held[0]}ugnot per {held[1]} gas"
        )
    return Read(answer.data, document, answer.height, at)


def _price_said(document: Any) -> tuple[int, int] | None:
    """(ugnot, per this much gas) of an ``auth/gasprice`` answer, as the store keeps
    one (no ugnot asked: 0; no gas: 1); None for a shape it never has."""
    try:
        price = document.get("price") or ""
        if isinstance(price, dict):
            amount = int(price.get("amount") or 0) if price.get("denom") == UGNOT else 0
        else:
            amount = parse_coins(str(price)).get(UGNOT, 0)
        return amount, max(int(document.get("gas") or 0), 1)
    except (AttributeError, ValueError, TypeError, BadInput):
        return None


def _differs(document: Any, proven: Stored, what: str, name: str) -> str | None:
    """How the node's answer differs from the proven account (None: it does not)."""
    at = proven.height
    account = _account_of(proven, name)
    if what == "account":
        return _account_differs(document, account, name, at)
    said = ugnot_of(document if isinstance(document, str) else "?")
    held = 0 if account is None else ugnot_of(account.coins)
    if said == held:
        return None
    return f"the node says {name} holds {said}ugnot; the proof at block {at}, {held}ugnot"


def _account_differs(
    document: Any, account: Tm2Account | None, name: str, at: int, *, listed: bool = False
) -> str | None:
    """How the node's account (its JSON; ``listed``: read already) differs from the
    proven one (None: it does not)."""
    try:
        said = document if listed else tm2_account(document)
    except (ValueError, TypeError, AttributeError):
        return f"the node answered {name} in a shape it never has"
    if said == account:
        return None
    if said is None or account is None:
        held, shown = ("none", "one") if account is None else ("one", "none")
        return f"the node shows {shown} for {name}; the proof at block {at}, {held}"
    differ = [f for f in Tm2Account._fields if getattr(said, f) != getattr(account, f)]
    return f"the node's {name} differs from the one proven at block {at} in: {', '.join(differ)}"


def _account_of(proven: Stored, name: str) -> Tm2Account | None:
    try:
        return None if proven.value is None else stored.account(proven.value)
    except (DecodeError, ValueError) as exc:
        raise Unverified(f"{name} proven at block {proven.height} is not one: {exc}") from None


def sessions(chain: ChainReader, master: str) -> tuple[list[Tm2Account], int | None]:
    """``master``'s session keys as the node lists them (``auth/accounts/<addr>/
    sessions``), and, on a node that proves, the block at which each was held to its
    key in the main store (``/a/<master>/s/<session>``: its numbers, expiry, paths and
    allowance); None where nothing is proven. That the list is whole is the node's
    word: the store proves a key, not that no other key is beside it."""
    first = chain.stored(account_key(master), f"the account {master}")
    at = 0 if first is None else first.height
    answer = chain.query(f"{ACCOUNTS}{master}/sessions", height=at)
    listed = []
    for item in answer.document("the sessions") or []:
        try:
            found = tm2_account(item if isinstance(item, dict) else {})
        except (ValueError, TypeError, AttributeError):
            found = None
        listed.append(found or Tm2Account("", 0, 0, None, ""))
    if first is None:
        return listed, None
    for found in listed:
        name = f"the session key {found.address} of {master}"
        try:
            key = session_key(master, found.address)
        except ValueError:
            raise Unverified(f"the node lists a session of {master} that is no address") from None
        proven = chain.stored(key, name, at)
        assert proven is not None, "a chain that proved once proves again"
        problem = _account_differs(found, _account_of(proven, name), name, at, listed=True)
        if problem is not None:
            raise Unverified(problem)
    return listed, at
