"""gnokey on `c4 serve` against gnokey on gnoland, side by side and interleaved.

    python bench/serve.py [--rounds 7] [--games 2]

Two homes with the same keys: one served by `c4 serve` (a block a transaction, at
once), one bound to `c4 node start` (gnoland v1.7.1, a block a second); both run
for the whole bench, and every figure alternates between them, one sample each in
turn, so a busy moment of the machine falls on both. What it prints:

- gnokey operations (its whole run, from start to exit): ``query vm/qeval``,
  ``query bank/balances``, ``maketx send`` and ``maketx call`` of the realm's Offer
  and Play (Play from ``--games`` whole games, one on each chain in turn), as the median on each
  and the ratio of medians. gnoland's time includes the wait for its next block, so
  its no-block-wait path is measured too: the same operation with gnokey's
  ``-simulate only`` (account query, signing, simulation; no broadcast), and the
  ratio against it;
- the second and later requests on one kept-alive HTTP connection (``status``), as
  gnokey, gnoweb and gno's JS client send them;
- throughput: landed transactions a second for 1, 4 and 16 senders at once (each a
  loop of ``gnokey maketx send``), on c4 serve with a block a transaction and with
  ``--block-time 1s``, and on gnoland;
- gnoweb v1.7.1's pages (the realm's lobby and a game) fetched through each;
- each server's resident memory at the end;
- gnokey's own work, with no request: ``query --help`` for a query, ``sign`` offline
  (its keybase, the key's decryption, the signature) for a transaction. What is left
  above it is the servers' share, and it bounds the ratio any server could reach.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from real_gnoland.gnokey_game import REALM, Gnokey, play, start  # noqa: E402
from real_gnoland.gnonode import install_gno  # noqa: E402
from real_gnoland.test_gnoweb import free_port  # noqa: E402

C4 = str(Path(sys.executable).with_name("c4"))
SENDERS = 16
FEE = ["-gas-fee", "1000000ugnot", "-gas-wanted", "2000000"]


def c4(home: Path, *args: str, env: dict[str, str] | None = None) -> str:
    run = subprocess.run(
        [C4, *args],
        env=dict(os.environ, C4_HOME=str(home), C4_PASSWORD="", **(env or {})),
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return run.stdout


class Side:
    """One chain under test: its RPC URL, gnokey on it, and the server's pid."""

    def __init__(self, name: str, url: str, gnokey: Gnokey, pid: int) -> None:
        self.name, self.url, self.gk, self.pid = name, url, gnokey, pid
        self.samples: dict[str, list[float]] = {}

    def timed(self, what: str, action: Callable[[], object]) -> None:
        began = time.perf_counter()
        action()
        self.samples.setdefault(what, []).append(time.perf_counter() - began)

    def gnokey(self, *argv: str) -> None:
        run = subprocess.run(
            [self.gk.binary, *argv], input="\n", capture_output=True, text=True, timeout=120
        )
        assert run.returncode == 0, (argv, run.stdout, run.stderr)

    def send(self, key: str, to: str, *, only: bool = False, home: Path | None = None) -> None:
        self.gnokey(
            "maketx", "send", "-send", "1ugnot", "-to", to, *FEE, "-broadcast",
            *(["-simulate", "only"] if only else []), "-chainid", "dev", "-remote", self.url,
            "-insecure-password-stdin", "-home", str(home or self.gk.home), key,
        )  # fmt: skip

    def offer(self, *, only: bool = False) -> None:
        """An open offer by alice; with ``only``, gnokey's ``-simulate only``: its work
        and the node's simulation, no broadcast (and so no block to wait for)."""
        commitment = hashlib.sha256(os.urandom(32).hex().encode()).hexdigest()
        self.gnokey(
            "maketx", "call", "-pkgpath", REALM, "-func", "Offer", "-args", "", "-args", "30",
            "-args", commitment, "-args", "100000", "-send", "5000000ugnot",
            "-gas-fee", "1000000ugnot", "-gas-wanted", "50000000", "-broadcast",
            *(["-simulate", "only"] if only else []), "-chainid", "dev", "-remote", self.url,
            "-insecure-password-stdin", "-home", str(self.gk.home), "alice",
        )  # fmt: skip

    def sign_offline(self, unsigned: Path) -> None:
        """gnokey's own work for a transaction, with no request: it opens its keybase,
        decrypts alice's key and signs (account number and sequence given)."""
        self.gnokey(
            "sign", "-tx-path", str(unsigned), "-chainid", "dev", "-account-number", "0",
            "-account-sequence", "0", "-insecure-password-stdin", "-home", str(self.gk.home),
            "alice",
        )  # fmt: skip

    def rss_mb(self) -> float:
        total = 0
        for pid in [self.pid, *children(self.pid)]:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        return total / 1024


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found += [int(child) for child in text]
    return found


def keepalive(url: str, requests: int = 30) -> list[float]:
    """Seconds of the 2nd..Nth ``status`` request on one kept-alive connection."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    body = b'{"jsonrpc":"2.0","id":1,"method":"status","params":{}}'
    seconds = []
    for number in range(requests):
        began = time.perf_counter()
        conn.request("POST", "/", body=body, headers={"Content-Type": "application/json"})
        conn.getresponse().read()
        if number:
            seconds.append(time.perf_counter() - began)
    conn.close()
    return seconds


def throughput(side: Side, senders: list[str], each: int, to: str) -> float:
    """Landed transactions a second: ``len(senders)`` loops of ``each`` sends at once."""
    errors: list[BaseException] = []

    def loop(key: str) -> None:
        try:
            for _ in range(each):
                # gnokey holds its keybase's lock while it runs: a keybase a sender.
                side.send(key, to, home=side.gk.home.with_name(f"gnokey-{key}"))
        except BaseException as exc:  # reported below, in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=loop, args=(key,)) for key in senders]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors[0]
    return len(senders) * each / (time.perf_counter() - began)


def gnoweb(bin_dir: Path, url: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen(
        [str(bin_dir / "gnoweb"), "-remote", url.removeprefix("http://"),
         "-bind", f"127.0.0.1:{port}", "-chainid", "dev"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    web = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(web + "/r/samcrew/connect4", timeout=5).read()
            break
        except OSError:
            time.sleep(0.1)
    return proc, web


def fetch(url: str) -> None:
    with urllib.request.urlopen(url, timeout=30) as page:
        assert page.status == 200 and page.read()


def unsigned_send(sender: str, to: str) -> str:
    """An unsigned ``bank.MsgSend`` of 1ugnot, as ``gnokey sign`` reads a transaction."""
    msg = {"@type": "/bank.MsgSend", "from_address": sender, "to_address": to, "amount": "1ugnot"}
    fee = {"gas_wanted": "2000000", "gas_fee": "1000000ugnot"}
    return json.dumps({"msg": [msg], "fee": fee, "signatures": None, "memo": ""})


def report(
    sides: list[Side], what: list[str], against: dict[str, str], floors: dict[str, float]
) -> None:
    """Medians side by side and their ratio; for an operation in ``against``, gnoland's
    no-block-wait figure too. For an operation in ``floors`` (what gnokey spends on its
    own for it, with no request), the ratio of what is left beyond it (the servers'
    share), and the least ratio any server could reach: answering in no time at all."""
    served, node = sides
    print(
        f"{'operation':<28} {'c4 serve':>11} {'gnoland':>11} {'ratio':>6} {'beyond gnokey':>14}"
        f" {'least possible':>15}  gnoland's no-block-wait path"
    )
    for op in what:
        ours, theirs = statistics.median(served.samples[op]), statistics.median(node.samples[op])
        line = f"{op:<28} {ours * 1000:>8.1f} ms {theirs * 1000:>8.1f} ms {ours / theirs:>6.2f}"
        bare = statistics.median(node.samples[against[op]]) if op in against else theirs
        floor = floors.get(op, 0.0)
        share = f"{(ours - floor) / (bare - floor):.2f}" if floor else ""
        least = f"{floor / bare:.2f}" if floor else ""
        line += f" {share:>14} {least:>15}"
        if op in against:
            line += f"  {bare * 1000:.1f} ms, ratio {ours / bare:.2f}"
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="samples of each operation")
    parser.add_argument("--games", type=int, default=2, help="whole games for Offer and Play")
    options = parser.parse_args()
    bin_dir, gnoroot = install_gno()
    gno_env = {"GNO_BIN": str(bin_dir), "GNOROOT": str(gnoroot)}
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        served_home, node_home, timed_home = root / "served", root / "node", root / "timed"
        keys = ["alice", "bob", *(f"s{n}" for n in range(SENDERS))]
        mnemonics = {
            key: json.loads(c4(served_home, "keys", "add", key, "--json"))["mnemonic"]
            for key in keys
        }
        for home in (node_home, timed_home):
            for key, mnemonic in mnemonics.items():
                subprocess.run(
                    [C4, "keys", "add", key, "--recover"], input=mnemonic + "\n", text=True,
                    env=dict(os.environ, C4_HOME=str(home), C4_PASSWORD=""),
                    capture_output=True, check=True,
                )  # fmt: skip
        gk_home = root / "gnokey"
        for key, mnemonic in mnemonics.items():
            Gnokey(str(bin_dir / "gnokey"), gk_home, "").add(key, mnemonic)
            if key.startswith("s"):
                Gnokey(str(bin_dir / "gnokey"), root / f"gnokey-{key}", "").add(key, mnemonic)
        alice, bob = (
            json.loads(c4(served_home, "keys", "show", key, "--json"))["address"]
            for key in ("alice", "bob")
        )
        servers: list[subprocess.Popen[str]] = []
        sides: list[Side] = []
        try:
            for home, extra in ((served_home, []), (timed_home, ["--block-time", "1s"])):
                c4(home, "init")
                server = subprocess.Popen(
                    [C4, "serve", "--listen", "127.0.0.1:0", "--json", *extra],
                    env=dict(os.environ, C4_HOME=str(home), C4_PASSWORD=""),
                    stdout=subprocess.PIPE, text=True,
                )  # fmt: skip
                servers.append(server)
                assert server.stdout is not None
                url = json.loads(server.stdout.readline())["url"]
                sides.append(
                    Side("c4 serve", url, Gnokey(str(bin_dir / "gnokey"), gk_home, url), server.pid)
                )
            started = json.loads(c4(node_home, "node", "start", "--json", env=gno_env))
            node = Side(
                "gnoland",
                started["url"],
                Gnokey(str(bin_dir / "gnokey"), gk_home, started["url"]),
                int(started["pid"]),
            )
            served, timed = sides
            pair = [served, node]
            run_bench(options, bin_dir, pair, timed, alice, bob)
        finally:
            subprocess.run(
                [C4, "node", "stop"],
                env=dict(os.environ, C4_HOME=str(node_home), **gno_env),
                capture_output=True,
            )
            for server in servers:
                server.send_signal(2)
                server.wait(timeout=30)


def run_bench(
    options: argparse.Namespace, bin_dir: Path, pair: list[Side], timed: Side, alice: str, bob: str
) -> None:
    served, node = pair
    rounds = options.rounds
    # A transaction for gnokey to sign offline (``gnokey sign`` writes it back signed).
    unsigned = served.gk.home / "unsigned.json"
    # One game each to read, then everything in turns.
    for number in range(options.games):
        secrets = [hashlib.sha256(f"bench {number} {s}".encode()).hexdigest() for s in "ab"]
        for side in pair:
            before = len(side.gk.receipts)
            played = start(side.gk, "alice", "bob", *secrets)
            play(side.gk, played, "4545454")
            for receipt in side.gk.receipts[before:]:
                if receipt.func == "Play":
                    side.samples.setdefault("maketx call Play", []).append(receipt.seconds)
    for _ in range(rounds):
        for side in pair:
            side.timed(
                "query vm/qeval", lambda s=side: s.gk.query("vm/qeval", f"{REALM}.GameJSON(1)")
            )
            side.timed("query bank/balances", lambda s=side: s.gk.query(f"bank/balances/{bob}"))
            side.timed("maketx send", lambda s=side: s.send("alice", bob))
            side.timed("send -simulate only", lambda s=side: s.send("alice", bob, only=True))
            side.timed("maketx call Offer", side.offer)
            side.timed("call Offer -simulate only", lambda s=side: s.offer(only=True))
            side.samples.setdefault("kept-alive status", []).extend(keepalive(side.url))
            unsigned.write_text(unsigned_send(alice, bob))
            side.timed("gnokey's signing", partial(side.sign_offline, unsigned))
            side.timed(
                "gnokey's own run",
                lambda s=side: subprocess.run(
                    [s.gk.binary, "query", "--help"], capture_output=True, check=False
                ),
            )

    def both(what: str) -> float:
        return statistics.median(served.samples[what] + node.samples[what])

    query_floor, tx_floor = both("gnokey's own run"), both("gnokey's signing")
    print(f"gnokey v1.7.1, {rounds} rounds and {options.games} games, interleaved")
    print(f"gnokey's own run (query --help, no request): {query_floor * 1000:.1f} ms")
    print(f"gnokey's signing (sign, offline, no request): {tx_floor * 1000:.1f} ms")
    txs = ["maketx send", "maketx call Offer", "maketx call Play"]
    floors = dict.fromkeys(["query vm/qeval", "query bank/balances"], query_floor)
    report(
        pair,
        ["query vm/qeval", "query bank/balances", *txs],
        {"maketx send": "send -simulate only", "maketx call Offer": "call Offer -simulate only",
         "maketx call Play": "call Offer -simulate only"},
        floors | dict.fromkeys(txs, tx_floor),
    )  # fmt: skip
    report(pair, ["kept-alive status"], {}, {})
    print("\nthroughput (landed transactions a second, gnokey maketx send loops)")
    print(f"{'senders':<8} {'c4 serve':>9} {'--block-time 1s':>16} {'gnoland':>9}")
    senders = [f"s{n}" for n in range(SENDERS)]
    for count, each in ((1, 8), (4, 6), (16, 6)):
        rates = [throughput(side, senders[:count], each, bob) for side in (served, timed, node)]
        print(f"{count:<8} {rates[0]:>9.1f} {rates[1]:>16.1f} {rates[2]:>9.1f}")
    print("\ngnoweb v1.7.1 pages")
    webs = [gnoweb(bin_dir, side.url) for side in pair]
    try:
        for _ in range(rounds):
            for side, (_, web) in zip(pair, webs, strict=True):
                side.timed("gnoweb lobby", lambda w=web: fetch(w + "/r/samcrew/connect4"))
                side.timed("gnoweb game", lambda w=web: fetch(w + "/r/samcrew/connect4:game/1"))
    finally:
        for proc, _ in webs:
            proc.terminate()
            proc.wait(timeout=10)
    report(pair, ["gnoweb lobby", "gnoweb game"], {}, {})
    print(f"\nresident memory: c4 serve {served.rss_mb():.0f} MB, gnoland {node.rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
