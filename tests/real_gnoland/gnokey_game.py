"""A staked game played with gnokey v1.7.1 alone, as a CI script would: every
transaction signed and sent by ``gnokey maketx call -broadcast``, every read a
``gnokey query``. The same script runs against `c4 serve` and against a real gnoland
(`c4 node start`), and what it saw is compared.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from c4cli.commitment import commitment_of
from c4cli.gotext import parse_result

REALM = "gno.land/r/samcrew/connect4"
GAS_FEE = 1_000_000  # ugnot a transaction, on both chains
GAS_WANTED = 50_000_000
STAKE = 5_000_000
HOUSE_FEE = 100_000  # the realm's default fee, taken from a decisive game's pot
# Fixed secrets: the commit-reveal draw (and so who moves first) is the same everywhere.
PASSPHRASE = "7f1e0c2b9a4d6e8f1a3c5b7d9e0f2a4c6b8d0e1f3a5c7b9d1e3f5a7c9b0d2e4f"
SEED = "0d2e4f6a8c0e1f3a5c7e9b1d3f5a7c9e0b2d4f6a8c1e3f5a7b9d0e2f4a6c8e0b"
# Each receipt line as gnokey prints one after a delivered call (keyscli's root.go).
RECEIPT = re.compile(
    r"^(?P<data>(?:.*\n)*?)OK!\nGAS WANTED: (?P<wanted>\d+)\nGAS USED:   (?P<used>\d+)\n"
    r"HEIGHT:     (?P<height>\d+)\n(?P<storage>(?:STORAGE .*\n|TOTAL TX COST: .*\n)*)"
    r"EVENTS:     (?P<events>.*)\nINFO:       (?P<info>.*)\nTX HASH:    (?P<hash>\S+)\n$"
)


@dataclass
class Receipt:
    key: str
    func: str
    data: str
    height: int
    events: list[dict[str, object]]
    hash: str
    storage: str
    seconds: float  # gnokey's whole run


@dataclass
class Gnokey:
    binary: str
    home: Path
    remote: str
    receipts: list[Receipt] = field(default_factory=list)
    realm: str = REALM

    def add(self, name: str, mnemonic: str) -> None:
        argv = [self.binary, "add", name, "--recover", "--insecure-password-stdin"]
        run = subprocess.run(
            [*argv, "--home", str(self.home)],
            input=f"{mnemonic}\n\n\n",
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert run.returncode == 0, run.stderr

    def call(self, key: str, func: str, *args: str, send: int = 0) -> Receipt:
        argv = [self.binary, "maketx", "call", "-pkgpath", self.realm, "-func", func]
        for arg in args:
            argv += ["-args", arg]
        if send:
            argv += ["-send", f"{send}ugnot"]
        argv += ["-gas-fee", f"{GAS_FEE}ugnot", "-gas-wanted", str(GAS_WANTED)]
        argv += ["-broadcast", "-chainid", "dev", "-remote", self.remote]
        argv += ["-insecure-password-stdin", "-home", str(self.home), key]
        began = time.perf_counter()
        run = subprocess.run(argv, input="\n", capture_output=True, text=True, timeout=120)
        seconds = time.perf_counter() - began
        assert run.returncode == 0, (func, run.stdout, run.stderr)
        found = RECEIPT.match(run.stdout)
        assert found is not None, f"{func}: not gnokey's receipt:\n{run.stdout}"
        assert found["wanted"] == str(GAS_WANTED)
        receipt = Receipt(
            key,
            func,
            found["data"],
            int(found["height"]),
            json.loads(found["events"]),
            found["hash"],
            found["storage"],
            seconds,
        )
        self.receipts.append(receipt)
        return receipt

    def query(self, path: str, data: str = "") -> str:
        argv = [self.binary, "query", path, "-remote", self.remote, "-home", str(self.home)]
        if data:
            argv += ["-data", data]
        run = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, (path, data, run.stderr)
        text = run.stdout
        assert text.startswith("height: ") and "\ndata: " in text, text
        return text.split("\ndata: ", 1)[1].rstrip("\n")

    def game(self, game_id: int) -> dict[str, object]:
        value, kind = parse_result(self.query("vm/qeval", f"{self.realm}.GameJSON({game_id})"))
        assert kind == "string"
        game: dict[str, object] = json.loads(value)["game"]  # GameJSON's envelope: now, game
        return game

    def balance(self, address: str) -> int:
        coins = json.loads(self.query(f"bank/balances/{address}"))
        return int(coins.removesuffix("ugnot") or 0)


@dataclass
class Played:
    game_id: int
    first: str
    second: str


def start(
    gk: Gnokey, creator: str, acceptor: str, passphrase: str = PASSPHRASE, seed: str = SEED
) -> Played:
    """Offer, Accept, Reveal, RevealSeed: a game whose first mover is drawn (a secret's
    commitment serves once a realm: another game takes other secrets)."""
    commitment = commitment_of(passphrase)
    offered = gk.call(creator, "Offer", "", "30", commitment, str(HOUSE_FEE), send=STAKE)
    value, kind = parse_result(offered.data.strip())
    assert kind == "int"
    game_id = int(value)
    gk.call(acceptor, "Accept", str(game_id), commitment_of(seed), send=STAKE)
    gk.call(creator, "Reveal", str(game_id), passphrase)
    gk.call(acceptor, "RevealSeed", str(game_id), seed)
    game = gk.game(game_id)
    first = creator if game["turn"] == 1 else acceptor
    second = acceptor if first == creator else creator
    return Played(game_id, first, second)


def play(gk: Gnokey, played: Played, columns: str) -> None:
    for move, column in enumerate(columns):
        key = played.first if move % 2 == 0 else played.second
        gk.call(key, "Play", str(played.game_id), column, str(move))
