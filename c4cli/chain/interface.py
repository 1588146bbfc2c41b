"""What a command may ask of a chain: the one interface both backends implement.

A command signs and submits messages, asks queries by gno.land's own paths
(``vm/qeval``, ``vm/qrender``, ``bank/balances/…``, ``auth/accounts/…``) and
reads the last block's height and time. :class:`~c4cli.local.chain.LocalChain`
answers from the log in the home; a node client answers from a gno.land node.
Nothing here knows what a game is: the realm's part is read through
:mod:`c4cli.client.realm_client`, from what any gno.land client can read. The
interface owns its value types; the backends build them, nothing here imports a
backend.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, NotRequired, Protocol, TypedDict

from c4cli.errors import Unreachable

if TYPE_CHECKING:
    from c4cli.chain.trust import Proven, RealmHistory, Stored
    from c4cli.jsonvalue import Document
    from c4cli.wire.pubkeys import PubKey
    from c4cli.wire.tx import Fee, Msg, Tx


class Signer(NamedTuple):
    """A key ready to sign: the account it acts for and the private key that signs.

    A session key acts for its master: ``address`` is the master's, and
    ``session_addr`` names the session, whose own sequence the signature covers.
    """

    address: str
    private_key: bytes
    session_addr: str | None = None
    impersonated: bool = False  # `c4 --impersonate`: no key; a chain that allows it only


class TxOutcome(NamedTuple):
    """What one delivered transaction did, as both backends report it.

    ``values`` are the realm calls' results as the VM types them (``("7", "int")``);
    ``data`` is the deliver result's data as gno.land writes it (each call's results
    as ``(value type)`` lines, then a blank line); ``transfers`` the ugnot the
    transaction moved out of the realm, in order.
    """

    tx: Tx
    hash: str
    signer: str
    funcs: tuple[str, ...] = ()
    values: tuple[tuple[str, str], ...] = ()
    data: str = ""
    transfers: tuple[tuple[str, int], ...] = ()
    events: tuple[dict[str, str], ...] = ()  # the bank's, as amino JSON (/bank.TransferEvent)
    impersonated: bool = False  # sent without its key (`c4 --impersonate`)


class Answer(NamedTuple):
    """A query's answer: the height it was read at, and the data as the node returns it."""

    height: int
    data: str

    def document(self, what: str) -> Any:
        """The data read as JSON; one line and exit 4 when the chain answered ``what``
        with something else."""
        try:
            return json.loads(self.data)
        except ValueError:
            raise Unreachable(
                f"the chain answered {what} with something that is not JSON"
            ) from None


class Messages(TypedDict):
    """What a transaction's messages are, as listings and the journal show them: the
    functions (``Play``, ``send``…, comma-separated), each message's arguments, coins
    sent and recipient (None for a call); all None where a record does not say."""

    func: str | None
    args: list[list[str]] | None
    send: list[str] | None
    to: list[str | None] | None


class BlockProof(TypedDict):
    """What proves the block a transaction is in (`c4 tx`, a receipt on a node)."""

    height: int
    block_hash: str
    signed_power: int  # the trusted set's voting power that signed it
    total_power: int
    result_proven: bool  # its result held to the next header's results hash too


class ProofFields(TypedDict, total=False):
    """Whether a transaction's block is proven (and how, or why not): a node's only."""

    verified: bool
    proof: BlockProof | None
    unverified: str


class ListedTx(Messages):
    """A transaction as `c4 log` and `c4 tx` list it, on either chain (see
    :mod:`c4cli.chain.listing` for each key's meaning)."""

    hash: str
    height: int | None
    time: str | None
    tx_status: str  # landed, refused, pending, dropped (`status` is a game's word)
    ok: bool
    error: str | None
    signer: str | None
    result: list[str]
    transfers: list[dict[str, str]]
    gas_wanted: int
    gas_used: int
    gas_fee: str | None
    tx: NotRequired[Document | None]  # `c4 tx`: the transaction itself, as amino JSON
    verified: NotRequired[bool]  # `c4 tx` on a node: its block proven, or not (why)
    proof: NotRequired[BlockProof | None]
    unverified: NotRequired[str]
    impersonated: NotRequired[bool]  # the local chain: no key signed it (c4 --impersonate)


class ListedBlock(TypedDict):
    """A block as `c4 log` lists it: a node home's unplaced transactions come in one
    with None height, time and hash."""

    height: int | None
    time: str | None
    hash: str | None
    txs: list[ListedTx]


class Receipt(NamedTuple):
    """A delivered transaction, as a node's receipt reports it.

    The local chain runs no GnoVM, so it meters no gas and no storage: it
    reports 0 gas used, no info and only the bank's events (what a send, a call's
    coins and the realm's payouts moved), where a node reports its own.
    """

    height: int
    time: int
    result: TxOutcome
    gas_used: int = 0
    events: str = "[]"  # as gnokey prints them (Go's JSON of the events)
    info: str = ""
    simulated: bool = False  # --simulate only: what it would do; nothing was sent
    # (bytes, ugnot) the storage deposits moved, as gnokey adds them up (a refund
    # withheld is not the signer's); None when none moved.
    storage: tuple[int, int] | None = None
    # Each event's type as tm2 gives it (``/bank.TransferEvent``), in the order of
    # ``events`` (whose Go JSON, like gnokey's, has none).
    event_types: tuple[str, ...] = ()
    # The queries the caller named to read once it landed (Chain.submit's then_read),
    # each with its answer where it came with the transaction's block.
    read_back: tuple[tuple[tuple[str, str], Answer], ...] = ()
    # On a node: the verified header that holds it, or why it is the node's word only
    # (``unproven``); neither on the local chain, whose every block c4 made and replays.
    proven: Proven | None = None
    unproven: str = ""
    # On a node that proves: the block after which the account's number and sequence
    # it was signed for were proven, before it was signed.
    numbers_proven_at: int | None = None


# What c4 pays for gas without being told (--fee-cap, $C4_FEE_CAP, config.toml's
# fee_cap): 1 GNOT, some fifty times what a game's call costs on gno.land (about
# 0.001-0.02 GNOT at its gas price), and a thousandth of what a rogue gas price once
# asked for a send of 1 ugnot.
DEFAULT_FEE_CAP = 1_000_000

SIMULATE_MODES = ("test", "skip", "only")


class SendPolicy(NamedTuple):
    """How a transaction is sent, beyond what is signed.

    ``simulate``, as gnokey's ``-simulate``: ``test`` runs it first and sends it
    only if it would pass (so a refusal costs nothing), ``skip`` sends it as it
    is (a refusal in a block pays its fee), ``only`` runs it and sends nothing.
    ``fee_cap``: the most ugnot of gas fee c4 pays when it chose the fee itself.
    """

    simulate: str = "test"
    fee_cap: int = DEFAULT_FEE_CAP


DEFAULT_POLICY = SendPolicy()


class Head(NamedTuple):
    """The last block: its height and its time (Unix seconds)."""

    height: int
    time: int


class GameCall(NamedTuple):
    """A transaction about one game, as the chain recorded it: its block, its hash, its
    signer, and each message's function and arguments."""

    height: int
    hash: str
    signer: str
    funcs: list[str]
    args: list[list[str]]
    time: int = 0  # its block's (Unix seconds); 0 where the record does not say


class Unsettled(NamedTuple):
    """A transaction this home sent whose fate no block has proved yet, as its journal
    keeps it: for which account (and session) and sequence, a height the node had
    before its bytes left, the bytes and the signed transaction, and what a node said
    when it refused it before a block ("" if none did)."""

    tx_id: str
    signer: str
    session: str | None
    sequence: int
    since: int
    raw: bytes
    signed: Tx
    refused: str = ""


class SentLog(Protocol):
    """Where a node client records what it sends, so that nothing acknowledged is lost:
    the home's journal (:mod:`c4cli.home.journal`), handed in by whoever opens the node."""

    @property
    def path(self) -> Path: ...

    def pending(
        self, tx: Tx, raw: bytes, tx_id: str, signer: Signer, sequence: int, since: int
    ) -> None: ...

    def landed(self, receipt: Receipt, *, fee: str, error: str = "") -> None: ...

    def unproven(self) -> list[ListedTx]: ...

    def rechecked(self, found: ListedTx) -> None: ...

    def dropped(self, tx_id: str, reason: str, *, unproven: bool = False) -> None: ...

    def took_sequence(self, tx_id: str, height: int) -> None: ...

    def holding(self, signer: Signer) -> AbstractContextManager[None]: ...

    def listed(self) -> list[ListedTx]: ...

    def unsettled(self, address: str, session: str | None) -> list[Unsettled]: ...

    def landed_sequences(self, address: str, session: str | None) -> frozenset[int]: ...

    def unseen(self) -> list[Unsettled]: ...

    def game_calls(self, game_id: int) -> list[GameCall]: ...


class Reader(Protocol):
    """Queries by gno.land's paths: a chain answers at its last block, a state in hand
    (the one a transaction is built from, inside the lock) at its own height."""

    @property
    def realm_path(self) -> str: ...

    def query(self, path: str, data: str = "", *, height: int = 0) -> Answer:
        """The answer at the last block, or after block ``height`` (as gnokey's
        ``-height``); a height the chain has not reached is refused."""
        ...

    def next_block_time(self, wall_clock: float) -> int:
        """When a block made now would be dated: what a call sent now is judged at (a
        state in hand: its next block; a node: this machine's estimate)."""
        ...


# The messages of a transaction, built from what the chain says at the moment
# it is signed (the stake to match, the move count, the fee): on the local
# chain, inside the lock the transaction executes under.
Build = Callable[[Reader], "list[Msg]"]

# The reads a caller will make once its transaction has landed, given the chain and
# what the transaction did: (path, data) pairs, each asked at the last block.
ThenRead = Callable[[Reader, TxOutcome], "list[tuple[str, str]]"]


class ChainReader(Reader, Protocol):
    """A chain as a query sees it: its answers and its last block, nothing that signs or
    sends (on a node, the client without its sending half: see ``connect.open_reader``)."""

    def head(self) -> Head: ...

    def realm_history(self) -> RealmHistory | None:
        """The realm's transactions from proven blocks (a node home's, `c4 sync`); None
        on the local chain (its log is the history) and where a node's word is taken."""
        ...

    def queries(self, asked: Sequence[tuple[str, str]]) -> list[Answer]:
        """Queries (path, data) at the last block, answered in order: on a node in one
        request, so a page of reads costs one round trip. A refusal of any is raised."""
        ...

    def stored(self, key: bytes, what: str, height: int = 0, *, after: int = 0) -> Stored | None:
        """The main store's value at ``key`` after block ``height`` (0: the last one a
        node can prove, and at least block ``after``, awaited), proven against the app
        hash the trusted validators signed (``what`` names it where it fails: exit 4).
        None where no proof is asked: the local chain (its log is the chain) and a node
        whose word is taken."""
        ...

    def stored_with(
        self, key: bytes, what: str, paths: Sequence[str], height: int = 0, *, latest: bool = False
    ) -> tuple[Stored, list[Answer]] | None:
        """:meth:`stored`, and the answers to the queries ``paths`` at the block whose
        state is proven (then, with ``latest``, at the last block too), asked with the
        proof (one request, not two)."""
        ...


class Chain(ChainReader, Protocol):
    """A chain a command can use: read it, sign for it, submit to it."""

    @property
    def chain_id(self) -> str:
        """The chain id signatures cover (the genesis'; a node's as it reports it)."""
        ...

    @property
    def exact_clock(self) -> bool:
        """Whether next_block_time is what the next block will say (the local chain),
        or only this machine's estimate (a node dates its blocks itself, and after an
        idle spell may date one with an earlier commit's time)."""
        ...

    @property
    def poll_interval(self) -> float:
        """Seconds between two looks for a new block, for a command that waits for one
        (the local chain: a tenth of a second; a node makes a block a second at most)."""
        ...

    @property
    def fills_in_fee(self) -> bool:
        """Whether gas and a fee left unsaid are filled in when the transaction is
        built (a node: simulated gas, at its gas price, within the fee cap), rather
        than set to c4's defaults (the local chain meters no gas)."""
        ...

    def chain_time(self, wall_clock: float) -> int:
        """The chain's time now, for clocks counted down as a person watches."""
        ...

    def listing(self, first: int, last: int | None, tail: int | None) -> list[ListedBlock]:
        """Blocks ``first``..``last`` (the last ``tail`` of them) and their transactions,
        in the shape of :mod:`c4cli.chain.listing`: every block of the local chain; on
        a node, the transactions this home sent (its journal)."""
        ...

    def listed_tx(self, tx_hash: str) -> tuple[ListedTx, bytes] | None:
        """One transaction by its TX HASH, in the listing's shape with its signed
        ``tx`` (null where the chain gives only its bytes), and its amino bytes;
        None if the chain has none with that hash."""
        ...

    def game_calls(self, game_id: int) -> list[GameCall]:
        """The transactions about one game (the realm call's first argument) that landed
        and that this chain can list, oldest first: every one on the local chain (its
        log indexes them); on a node, which lists transactions by hash only, those this
        home sent (its journal)."""
        ...

    def submit(
        self,
        signer: Signer,
        build: Build,
        fee: Fee,
        memo: str,
        *,
        policy: SendPolicy = DEFAULT_POLICY,
        then_read: ThenRead | None = None,
    ) -> Receipt:
        """Sign and submit the messages ``build`` makes; the receipt once it landed.

        ``then_read``: the queries the caller will ask once the transaction landed (a
        game read back). A node asks them in the broadcast's request, after it (or,
        for what only the outcome names, with the landed block), and serves each
        answer once; the local chain answers from its state and fetches nothing
        ahead."""
        ...

    def broadcast(self, tx: Tx, *, policy: SendPolicy = DEFAULT_POLICY) -> Receipt:
        """Send a transaction signed elsewhere (``c4 sign``, ``gnokey sign``, a
        multisig's members), checked and journaled like one signed here: its signature
        is verified against the signer's account as it stands before anything leaves."""
        ...

    def unsigned_fee(
        self,
        msgs: list[Msg],
        fee: Fee,
        memo: str,
        pub_key: PubKey,
        *,
        policy: SendPolicy = DEFAULT_POLICY,
    ) -> Fee:
        """The fee of a transaction to be signed elsewhere (``--generate-only``), its gas
        and fee filled in where ``fee`` leaves them empty, as :meth:`submit` fills them:
        on a node, the gas its simulation used (the signer's public key in place of a
        signature) and the fee its gas price asks, bounded by ``policy.fee_cap``; the
        local chain meters no gas and gives ``fee`` back."""
        ...


class Verified(NamedTuple):
    """What a replay from genesis with every check found: the last block, its hash, and
    how many transactions the chain holds."""

    height: int
    last_hash: str
    transactions: int
