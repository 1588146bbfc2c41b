"""The keyring: one file per named key under ``<home>/keys``, as gnokey keeps them.

Keys are of gnokey's kinds: ``local`` (a private key), ``offline`` (a public key
only, as ``gnokey add bech32``: someone else's, named to be used in a multisig or
an armor) and ``multi`` (a K-of-N multisig's public key, as ``gnokey add multisig``).
Only a local key signs. A local key with a passphrase is sealed with scrypt
(memory-hard) and ChaCha20-Poly1305 (an AEAD: a wrong passphrase or an edited file
is refused, never half-decrypted). An empty passphrase stores the key in clear,
with gnokey's warning.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

from c4cli.address import canonical
from c4cli.errors import BadInput, C4Error, HomeDamaged, Refused, notice, warn_once
from c4cli.files import read_private, write_private
from c4cli.jsonvalue import Document
from c4cli.wire import crypto, pubkeys
from c4cli.wire.pubkeys import PubKey

# gnodev's and gnoland's dev key: test1 of the public dev mnemonic, which every
# local gno.land funds at genesis. c4 creates it in a home that has no deployer.
DEV_KEY = "test1"
DEV_MNEMONIC = (
    "source bonus chronic canvas draft south burst lottery vacant surface solve popular "
    "case indicate oppose farm nothing bullet exhibit title speed wink action roast"
)

NAME_RE = re.compile(r"^[a-z0-9._-]{1,64}$")
UNENCRYPTED_WARNING = (
    "WARNING: the key is stored unencrypted because the passphrase is empty; "
    "anyone who can read the home can use it."
)


LOCAL, OFFLINE, MULTI = "local", "offline", "multi"


class KeyInfo(NamedTuple):
    """What anyone may see of a key: its name, address, public key and kind."""

    name: str
    address: str
    pub_key: PubKey
    encrypted: bool
    kind: str = LOCAL

    @property
    def pub_key_bech32(self) -> str:
        """The public key as gnokey prints it (``gpub1…``)."""
        return pubkeys.bech32(self.pub_key)

    @property
    def single_key(self) -> bytes:
        """The secp256k1 key (a session key must be one); BadInput for a multisig."""
        if not isinstance(self.pub_key, bytes):
            raise BadInput(f"key {self.name!r} is a multisig: it cannot be a session key")
        return self.pub_key

    def to_json(self) -> Document:
        """As ``--json`` shows it: a secp256k1 key's base64 beside its gpub1…, a
        multisig's threshold and members (amino JSON)."""
        key = self.pub_key
        return {
            "name": self.name,
            "type": self.kind,
            "address": self.address,
            "pub_key": base64.b64encode(key).decode()
            if isinstance(key, bytes)
            else pubkeys.to_json(key),
            "pub_key_bech32": self.pub_key_bech32,
        }


def check_name(name: str) -> str:
    if not NAME_RE.match(name):
        raise BadInput(f"invalid key name {name!r}: use 1-64 of a-z 0-9 . _ -")
    return name


def new_name(name: str) -> str:
    """A name for a new key: one that is an address would never be that key's (an
    address always means the address), so it is refused."""
    check_name(name)
    if canonical(name) is not None:
        raise BadInput(f"invalid key name {name!r}: it is an address; give the key a name")
    return name


# A key file's fields that hold its secret: sealed, or in clear without a passphrase.
SECRETS = ("crypto", "private_key")


def _secret(private_key: bytes, passphrase: str) -> dict[str, object]:
    """A key's secret as its file holds it: sealed under ``passphrase``, in clear
    without one."""
    if passphrase:
        return {"crypto": _sealing().seal(private_key, passphrase)}
    return {"private_key": private_key.hex()}


class Keyring:
    """A home's keys. A file is read once per keyring (a run of c4 keeps one per home:
    ``Invocation.keyring``) while it stays the same file, and afresh by a rotation."""

    def __init__(self, home: Path) -> None:
        self.folder = home / "keys"
        self._held: dict[str, int] = {}  # key name: the inode of its file, locked
        # Each key's record as read, with its file's identity then (inode, size, mtime).
        self._read: dict[str, tuple[tuple[int, int, int], dict[str, object], Path]] = {}

    def _path(self, name: str) -> Path:
        return self.folder / f"{check_name(name)}.json"

    def exists(self, name: str) -> bool:
        return NAME_RE.match(name) is not None and self._path(name).exists()

    def add(self, name: str, private_key: bytes, passphrase: str) -> KeyInfo:
        path = self._path(new_name(name))
        if path.exists():
            raise BadInput(f"key {name!r} already exists (delete it first)")
        pub = crypto.public_key(private_key)
        record: dict[str, object] = {
            "name": name,
            "address": crypto.address_of(pub),
            "pub_key": base64.b64encode(pub).decode(),
        }
        record.update(_secret(private_key, passphrase))
        self._write(path, name, record)
        return self._info(record, path)

    @contextlib.contextmanager
    def held(self, name: str) -> Iterator[None]:
        """Key ``name``'s file for this command alone, from the passphrase asked to the
        file written: a second rotation of it at once is refused (Refused), never laid
        over the first (each would say it sealed the key, one of them wrongly)."""
        path = self._path(name)
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            raise BadInput(f"key {name!r} not found in {self.folder}") from None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise Refused(
                    f"key {name!r} is being changed by another c4 command; nothing was changed"
                ) from None
            self._held[name] = os.fstat(fd).st_ino
            yield
        finally:
            self._held.pop(name, None)
            os.close(fd)

    def rotate(self, name: str, private_key: bytes, passphrase: str) -> KeyInfo:
        """Key ``name`` sealed under a new passphrase (in clear if empty), in place: a
        crash leaves the old file or the new, never neither. Within :meth:`held`, only
        while the file is still the one held (another command's rotation, done before
        this one held it, is never overwritten)."""
        record, path = self._load(name, fresh=True)
        if name in self._held and path.stat().st_ino != self._held[name]:
            raise Refused(f"key {name!r} was changed by another c4 command; nothing was changed")
        fresh = {k: v for k, v in record.items() if k not in SECRETS}
        fresh.update(_secret(private_key, passphrase))
        self._write(path, name, fresh, replace=True)
        return self._info(fresh, path)

    def add_public(self, name: str, key: PubKey) -> KeyInfo:
        """A reference to a public key (``offline``) or a multisig (``multi``): nothing
        secret, so stored in clear."""
        path = self._path(new_name(name))
        record: dict[str, object] = {
            "name": name,
            "type": OFFLINE if isinstance(key, bytes) else MULTI,
            "address": pubkeys.address(key),
            "pub_key": pubkeys.to_json(key),
        }
        self._write(path, name, record)
        return self._info(record, path)

    def _write(
        self, path: Path, name: str, record: dict[str, object], *, replace: bool = False
    ) -> None:
        """The key's file, new (two writers at once: one wins), or ``replace``-ing it."""
        self._read.pop(name, None)
        try:
            write_private(
                path,
                (json.dumps(record, indent=2) + "\n").encode(),
                fault="key-write",
                consequence=(
                    f"the key {name!r} keeps its old passphrase"
                    if replace
                    else f"the key {name!r} was not added"
                ),
                exclusive=not replace,
            )
        except FileExistsError:
            raise BadInput(f"key {name!r} already exists (delete it first)") from None

    def _load(self, name: str, *, fresh: bool = False) -> tuple[dict[str, object], Path]:
        """Key ``name``'s record and file, as read before in this keyring unless ``fresh``."""
        path = self._path(name)
        identity = _identity(path)  # before the read: a file replaced during it reads anew
        known = self._read.get(name)
        if known is not None and not fresh and known[0] == identity:
            return known[1], known[2]
        try:
            raw = read_private(path)
        except FileNotFoundError:
            raise BadInput(f"key {name!r} not found in {self.folder}") from None
        try:
            record = json.loads(raw)
            assert isinstance(record, dict)
        except (ValueError, AssertionError):
            raise HomeDamaged(f"{path} is not a key file") from None
        if identity is not None:
            self._read[name] = identity, record, path
        return record, path

    @staticmethod
    def _info(record: dict[str, object], path: Path) -> KeyInfo:
        try:
            name, address, stored = record["name"], record["address"], record["pub_key"]
            kind = record.get("type", LOCAL)
            if not isinstance(name, str) or not isinstance(address, str):
                raise TypeError("not text")
            if kind not in (LOCAL, OFFLINE, MULTI):
                raise TypeError("not a kind of key")
            if isinstance(stored, str):
                key: PubKey = base64.b64decode(stored, validate=True)
            else:
                key = pubkeys.from_json(stored)
            if (kind == MULTI) == isinstance(key, bytes) or pubkeys.address(key) != address:
                raise ValueError("its key is not its address's")
            return KeyInfo(name, address, key, "crypto" in record, str(kind))
        except (KeyError, ValueError, TypeError):
            raise HomeDamaged(f"{path} is not a key file") from None

    def info(self, name: str) -> KeyInfo:
        return self._info(*self._load(name))

    def private_key(self, name: str, passphrase: str | None) -> bytes:
        """The private key; ``passphrase`` is needed (and checked) for an encrypted key."""
        return self.unlock(name, lambda: passphrase)[1]

    def unlock(self, name: str, ask: Callable[[], str | None]) -> tuple[KeyInfo, bytes]:
        """The key's public part and its private key, reading its file once.

        ``ask`` is called for the passphrase only if the key is encrypted.
        """
        record, path = self._load(name)
        info = self._info(record, path)
        if info.kind != LOCAL:
            what = "a multisig" if info.kind == MULTI else "a public key only"
            raise BadInput(
                f"key {name!r} is {what}: it cannot sign (c4 sign with a local key; "
                "c4 multisign combines a multisig's signatures)"
            )
        if "private_key" in record:
            try:
                private_key = bytes.fromhex(str(record["private_key"]))
            except ValueError:
                raise HomeDamaged(f"{path} is not a key file") from None
            if len(private_key) != 32:
                raise HomeDamaged(f"{path} is not a key file")
            return info, private_key
        passphrase = ask()
        if passphrase is None:
            raise BadInput(f"key {name!r} is encrypted: a passphrase is needed")
        sealed = record.get("crypto")
        if not isinstance(sealed, dict):
            raise HomeDamaged(f"{path} is not a key file")
        return info, _sealing().open_sealed(sealed, passphrase, name)

    def list(self, *, strict: bool = True) -> list[KeyInfo]:
        """Every key in the folder. ``strict=False`` (naming addresses in a view or a
        receipt) skips a file that cannot be used, with one warning line, instead of
        failing a command that does not need that key."""
        if not self.folder.is_dir():
            return []
        out = []
        for path in sorted(self.folder.glob("*.json")):
            try:
                out.append(self.info(path.stem))
            except (C4Error, OSError) as exc:
                if strict:
                    raise
                reason = str(exc) if isinstance(exc, C4Error) else (exc.strerror or str(exc))
                notice(f"warning: skipped {path.name} in {self.folder}: {reason}")
        return out

    def delete(self, name: str) -> None:
        """Remove a key's file, whatever its state (a damaged file is deletable too)."""
        path = self._path(name)
        if not path.exists() and not path.is_symlink():
            raise BadInput(f"key {name!r} not found in {self.folder}")
        self._read.pop(name, None)
        path.unlink()

    def find(self, name_or_address: str) -> KeyInfo:
        """A key by its address, or by its name (as gnokey's GetByNameOrAddress: an
        address is always that address, whatever a key is named)."""
        address = canonical(name_or_address)
        if address is None and self.exists(name_or_address):
            return self.info(name_or_address)
        self._named_like(name_or_address, address)
        for info in self.list(strict=False) if address is not None else []:
            if info.address == address:
                return info
        raise BadInput(f"key {name_or_address!r} not found in {self.folder}")

    def resolve(self, name_or_address: str) -> str:
        """An address from any accepted address spelling (always that address, as gnokey
        resolves one), else from a local key name."""
        address = canonical(name_or_address)
        if address is None:
            if self.exists(name_or_address):
                return self.info(name_or_address).address
            raise BadInput(f"{name_or_address!r} is neither a local key nor a g1 address")
        self._named_like(name_or_address, address)
        return address

    def _named_like(self, text: str, address: str | None) -> None:
        """Said once: a key of this home (an older c4 let it be made) is named like the
        address typed, and the address is what is meant."""
        if address is not None and self.exists(text):
            warn_once(
                f"note: key {text!r} is named like an address: {text} is taken as the address "
                "itself, not that key's (rename the key: c4 keys export, delete, import)"
            )


def _identity(path: Path) -> tuple[int, int, int] | None:
    """A file's identity, to tell a key file read before from one replaced since."""
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns


def _sealing() -> ModuleType:
    """The sealing of keys (scrypt, ChaCha20-Poly1305: the cryptography package, some
    60-130 ms to import), loaded only for a key that has a passphrase."""
    from c4cli.home import sealing

    return sealing
