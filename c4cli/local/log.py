"""The block log: one TOML file, appended to and never rewritten.

Layout: a ``[genesis]`` table, then one ``[[block]]`` per block, each starting on
a line of its own. Any TOML reader reads the whole file; ``c4`` also finds block
boundaries by that line, so it can read from a byte offset (after a checkpoint)
without parsing what came before.
"""

from __future__ import annotations

import fcntl
import hashlib
import mmap
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple, NotRequired, TypedDict, cast

import tomli_w

from c4cli import faults, outbox
from c4cli.errors import DiskError, HomeDamaged, disk_error
from c4cli.files import fsync_dir, private_dir
from c4cli.interrupts import deferred
from c4cli.jsonvalue import Document

BLOCK_MARK = b"\n[[block]]\n"
# The log's bytes in hand: read whole, or mapped (a replay of all of it).
Buffer = bytes | mmap.mmap
# The log's format, recorded in its genesis. 2: transactions are identified by
# gno.land's TX HASH (sha256 of the amino binary) and signed with amino JSON's
# zero coin "". 3: a session key is an account of its own, with the next account
# number, and signs for that number, as on gno.land. A log without a format was
# written by c4 0.1, whose hashes differ.
LOG_FORMAT = 3


class TornLog(HomeDamaged):
    """The last block is incomplete: a write was cut short. Repairable by truncation.

    ``cut`` is the length of the log up to the end of the last whole block.
    """

    def __init__(self, path: Path, height: int, cut: int) -> None:
        super().__init__(
            f"block {height} is cut short (an interrupted write?); "
            "run `c4 verify --repair` to cut the log back to the last whole block",
            file=path,
        )
        self.height = height
        self.cut = cut


class TxEntry(TypedDict):
    """A transaction as a block records it: the numbers it was signed for, its TX HASH
    and the signed tx as amino JSON."""

    account_number: int
    sequence: int
    hash: str
    tx: Document  # the signed std.Tx's amino JSON (wire.std.Tx.to_json)
    impersonated: NotRequired[bool]  # no key signed it (c4 --impersonate)


class BlockRecord(TypedDict):
    """A ``[[block]]`` as the log holds it (read from the file, it is only this shape
    once its hash and every transaction in it are checked: see local/state.py)."""

    height: int
    time: str
    prev_hash: str
    advance: NotRequired[int]  # the seconds `c4 time advance` moved the clock by
    set_balances: NotRequired[list[dict[str, str]]]  # `c4 cheat set-balance`: address, amount
    txs: NotRequired[list[TxEntry]]  # none in an empty block (TOML has no empty tables)
    hash: str


class GenesisRecord(TypedDict):
    """The ``[genesis]`` table (read from the file, it is only this shape once
    Genesis.from_record has checked it against its hash)."""

    format: int
    chain_id: str
    time: str
    clock: str
    block_interval: int
    realm_path: str
    deployer: str
    balances: list[dict[str, str]]  # {"address", "amount"} each
    state: NotRequired[str]  # the sha256 of chain/genesis-state.json, when it begins from one
    impersonation: NotRequired[bool]  # an address may act without its key (a fork; --impersonation)
    hash: str


def end_marker(height: int) -> bytes:
    """The line that closes a block: a block without it was never completely written."""
    return f"# end of block {height}\n".encode()


class Span(NamedTuple):
    height: int
    start: int
    end: int


class RawBlock(NamedTuple):
    """A block as found in the file: where it starts and its parsed record."""

    offset: int
    end: int
    record: BlockRecord


def chain_digest(previous: bytes, chunk: bytes) -> bytes:
    """The digest of the log through one more block: sha256(previous digest || its bytes).

    A checkpoint records it for the log as it saw it, so a later command can
    tell an appended log (the digest of the same prefix still matches) from an
    edited one, and replay only the blocks after the checkpoint.
    """
    return hashlib.sha256(previous + chunk).digest()


def render_block(record: BlockRecord) -> bytes:
    """One block as TOML text, starting with its own ``[[block]]`` line."""
    if record.get("txs"):
        text = tomli_w.dumps({"block": [record]})
    else:
        text = "[[block]]\n" + tomli_w.dumps(record)
    assert text.startswith("[[block]]\n") and "txs = []" not in text
    return b"\n" + text.encode() + end_marker(int(record["height"]))


class BlockLog:
    def __init__(self, home: Path) -> None:
        self.folder = home / "chain"
        self.path = self.folder / "blocks.toml"
        self.lock_path = self.folder / "lock"

    def exists(self) -> bool:
        return self.path.exists()

    def create(self, genesis: GenesisRecord, *, force: bool = False) -> None:
        """Write a new log holding only the genesis (replacing an old one with ``force``)."""
        private_dir(self.folder)
        text = (
            "# c4 block log: append-only; each block's hash covers it and the previous hash.\n"
            + tomli_w.dumps({"genesis": genesis})
        ).encode()
        tmp = self.folder / f".blocks.{os.getpid()}.tmp"
        try:
            with deferred():
                with open(tmp, "wb") as handle:
                    handle.write(text)
                    handle.flush()
                    os.fsync(handle.fileno())
                if self.path.exists() and not force:
                    raise FileExistsError(self.path)
                os.replace(tmp, self.path)
                fsync_dir(self.folder)
        except FileExistsError:
            raise
        except OSError as exc:
            raise disk_error(self.path, exc, "no chain was created") from None
        finally:
            tmp.unlink(missing_ok=True)

    @contextmanager
    def creating(self) -> Iterator[None]:
        """The exclusive lock, for `c4 init`, creating the chain folder if needed."""
        private_dir(self.folder)
        with self.locked(exclusive=True):
            yield

    @contextmanager
    def locked(self, *, exclusive: bool) -> Iterator[None]:
        """Writers hold it exclusively across read-execute-append; readers share it.

        On a home that cannot be written (a read-only medium, a full disk with no
        lock file yet) a reader goes on with the lock file opened read-only, or
        with none: nobody can append there anyway. A writer stops with exit 3.
        """
        if not self.folder.is_dir():
            raise self._missing()
        try:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            if exclusive:
                raise disk_error(self.lock_path, exc, "nothing was done") from None
            try:
                fd = os.open(self.lock_path, os.O_RDONLY)
            except OSError:
                yield
                return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            yield
        finally:
            os.close(fd)

    def require(self) -> None:
        """Refuse, as exit 3, a home that has no chain."""
        if not self.path.exists():
            raise self._missing()

    def _missing(self) -> HomeDamaged:
        return HomeDamaged(f"no chain in {self.folder.parent}: run `c4 init` first")

    @contextmanager
    def mapped(self) -> Iterator[Buffer]:
        """The log mapped into memory, read-only, for a replay of all of it: its pages
        are read as they are reached and can be let go of behind (:func:`let_go`), so a
        replay's memory does not grow with the log."""
        try:
            faults.check("log-read")
            file = open(self.path, "rb")  # noqa: SIM115 (closed by the with below)
        except FileNotFoundError:
            raise self._missing() from None
        except OSError as exc:
            raise DiskError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        with file:
            if os.fstat(file.fileno()).st_size == 0:
                yield b""
                return
            try:
                view = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
            except OSError as exc:
                raise DiskError(f"cannot read {self.path}: {exc.strerror or exc}") from None
            with view:
                yield view

    def read_bytes(self) -> bytes:
        try:
            faults.check("log-read")
            return self.path.read_bytes()
        except FileNotFoundError:
            raise self._missing() from None
        except OSError as exc:
            raise DiskError(f"cannot read {self.path}: {exc.strerror or exc}") from None

    def parse_genesis(self, data: Buffer) -> tuple[GenesisRecord, int]:
        """The genesis record and the offset where the first block begins."""
        end = data.find(BLOCK_MARK)
        end = len(data) if end < 0 else end
        try:
            genesis = parse_toml(data[:end])["genesis"]
            assert isinstance(genesis, dict)
        except (ValueError, KeyError, AssertionError):
            raise HomeDamaged("genesis (height 0) is unreadable", file=self.path) from None
        if genesis.get("format") != LOG_FORMAT:
            raise HomeDamaged(
                f"written by an older c4 (log format {genesis.get('format', 1)}, "
                f"this c4 reads {LOG_FORMAT}) whose transactions do not verify as gno.land's; "
                "start a new chain with `c4 init --force` (replacing this one)",
                file=self.path,
            )
        return cast(GenesisRecord, genesis), end  # a table: checked against its hash next

    def digest_through(self, data: bytes, offset: int) -> bytes | None:
        """The chain digest of ``data[:offset]``; None unless a block ends exactly there."""
        if offset > len(data):
            return None
        _, start = self.parse_genesis(data)
        if start > offset:
            return None
        digest = hashlib.sha256(data[:start]).digest()
        try:
            for span in self.spans(data[:offset], start, 1):
                digest = chain_digest(digest, data[span.start : span.end])
        except HomeDamaged:
            return None
        return digest

    def parse_blocks(self, data: Buffer, offset: int, first_height: int) -> Iterator[RawBlock]:
        """The blocks from ``offset`` on; a damaged one raises HomeDamaged naming its height."""
        for span in self.spans(data, offset, first_height):
            record = self.parse_block(data[span.start : span.end], span.height)
            yield RawBlock(offset=span.start, end=span.end, record=record)

    def spans(self, data: Buffer, offset: int, first_height: int) -> Iterator[Span]:
        """Where each block from ``offset`` on starts and ends, each checked for its end line.

        Cheap (it reads no TOML), so a replay can hand the parsing to other processes;
        and it walks the log once, front to back, so a replay over a mapped log can let
        go of what lies behind it.
        """
        start = data.find(BLOCK_MARK, offset)
        # Blank lines between blocks or after the last one (an editor's, a shell's
        # `echo >>`) are not text: blocks start with a newline of their own anyway.
        if start < 0:
            if data[offset:].strip():
                raise TornLog(self.path, first_height, offset)
            return
        if data[offset:start].strip():
            raise HomeDamaged(f"unexpected text after block {first_height - 1}", file=self.path)
        height = first_height
        while True:
            following = data.find(BLOCK_MARK, start + 1)
            last = following < 0
            end = len(data) if last else following
            marker = end_marker(height)
            close = data.find(marker, start, end)
            if close < 0:
                if last:
                    raise TornLog(self.path, height, start)
                raise HomeDamaged(f"block {height} is unreadable (no end line)", file=self.path)
            close += len(marker)
            if data[close:end].strip():
                if last:  # a whole block, then the start of one that was never finished
                    raise TornLog(self.path, height + 1, close)
                raise HomeDamaged(f"unexpected text after block {height}", file=self.path)
            yield Span(height, start, end)
            if last:
                return
            start, height = following, height + 1

    def parse_block(self, chunk: bytes, height: int) -> BlockRecord:
        try:
            document = parse_toml(chunk)
            record = document["block"][0]
            assert isinstance(record, dict) and len(document["block"]) == 1
        except (ValueError, KeyError, IndexError, TypeError, AssertionError):
            raise HomeDamaged(f"block {height} is unreadable", file=self.path) from None
        return cast(BlockRecord, record)  # a table: its hash and its txs are checked next

    def append(self, record: BlockRecord) -> bytes:
        """Append one block and wait until it is on disk, or leave the log as it was.

        Returns the bytes appended.

        A write or fsync that fails (disk full, quota, I/O error) cuts the file back
        to where the block began before the caller lets go of the lock, and says
        the transaction was not recorded. Signals wait until the block is whole or
        gone; only a process killed outright (SIGKILL, power loss) can leave a torn
        block, which the next command detects and `c4 verify --repair` cuts.
        """
        data = render_block(record)
        faults.reached("before-append")
        hashes = [str(tx.get("hash")) for tx in record.get("txs", [])]
        height = int(record.get("height") or 0)
        with deferred():
            outbox.transacting()
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
            except OSError as exc:
                raise disk_error(self.path, exc, "the transaction was not recorded") from None
            try:
                size = os.fstat(fd).st_size
                for tx_hash in hashes:
                    outbox.sending(tx_hash)
                try:
                    rest = faults.writing(fd, data)
                    written = 0
                    while written < len(rest):
                        written += os.write(fd, rest[written:])
                    faults.check("append-fsync")
                    os.fsync(fd)
                except OSError as exc:
                    raise self._roll_back(fd, size, exc, hashes) from None
                # On disk: a signal held until now must report it as recorded.
                for tx_hash in hashes:
                    outbox.landed(tx_hash, height)
            finally:
                os.close(fd)
        faults.reached("after-append")
        return data

    def _roll_back(self, fd: int, size: int, exc: OSError, hashes: list[str]) -> DiskError:
        """Cut a failed append off again; the error to report either way.

        Only a block that is gone again counts as not recorded: one that could not
        be cut off keeps its transactions' fate open (and their secrets kept).
        """
        try:
            os.ftruncate(fd, size)
            os.fsync(fd)
        except OSError:
            return disk_error(
                self.path,
                exc,
                "the transaction was not recorded, and the unfinished block could not be "
                "cut off: run `c4 verify --repair` once the disk works again",
            )
        for tx_hash in hashes:
            outbox.withdrawn(tx_hash)
        return disk_error(self.path, exc, "the transaction was not recorded")

    def truncate(self, size: int) -> None:
        """Cut the file back to ``size`` bytes (repair of a torn final block only)."""
        with open(self.path, "r+b") as handle:
            handle.truncate(size)
            handle.flush()
            os.fsync(handle.fileno())


def parse_toml(data: bytes) -> dict[str, Any]:
    """TOML through rtoml (Rust): about 16 times the standard reader on these blocks.

    Raises ValueError for anything that is not UTF-8 TOML.
    """
    import rtoml

    try:
        document = rtoml.loads(data.decode())
    except (UnicodeDecodeError, rtoml.TomlParsingError) as exc:
        raise ValueError(str(exc)) from None
    assert isinstance(document, dict)
    return document


def let_go(data: Buffer, upto: int) -> None:
    """Drop the mapped pages before ``upto`` from this process (a replay is past them):
    the kernel keeps them in its page cache, this process stops counting them."""
    if isinstance(data, mmap.mmap):
        upto -= upto % mmap.PAGESIZE
        if upto > 0:
            data.madvise(mmap.MADV_DONTNEED, 0, upto)
