"""Record store proofs from a real gnoland v1.7.1, for tests/wire/test_store_proofs.py.

    export $(bash scripts/install-gno.sh --env | xargs)
    python scripts/record-store-proofs.py tests/wire/data/store_proofs.json

It starts a node with `c4 node start` in a home of its own (a temporary folder),
offers a staked game (the realm's account then exists), makes a session key, and asks
the node's RPC, at one height H, for the main store's keys with ``prove``: a player's
account, the realm's account, an address no one used (absent), a key between two
accounts (absent, with a neighbour on each side), the session, the realm's code
(``pkg:``) and the gas price; then the commit of block H+1, whose header carries the
app hash the proofs end in. The file holds each answer as the node sent it (the RPC's
JSON), nothing computed: the tests verify them with c4 and with gno's own proof
runtime, and forge them.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from c4cli.address import package_address
from c4cli.wire.storeproof import STORE_KEY, account_key, package_key, session_key

REALM = "gno.land/r/samcrew/connect4"
NOBODY = "g1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqluuxe"  # the zero address: no key, never used


def c4(home: Path, *args: str) -> Any:
    env = dict(os.environ, C4_HOME=str(home), C4_PASSWORD="")
    done = subprocess.run(["c4", *args, "--json"], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"c4 {' '.join(args)}: {done.stderr or done.stdout}")
    return json.loads(done.stdout)


def rpc(url: str, method: str, **params: Any) -> Any:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    request = urllib.request.Request(url, body.encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        document = json.load(answer)
    if "result" not in document:
        sys.exit(f"{method} {params}: {document}")
    return document["result"]


def prove(url: str, key: bytes, height: int) -> Any:
    return rpc(
        url,
        "abci_query",
        path=STORE_KEY,
        data=base64.b64encode(key).decode(),
        height=str(height),
        prove=True,
    )


def main() -> None:
    out = Path(sys.argv[1])
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        c4(home, "keys", "add", "alice")
        started = c4(home, "node", "start")
        url = str(started["url"]).split(",")[0]
        try:
            alice = c4(home, "keys", "show", "alice")["address"]
            c4(home, "offer", "--stake", "1gnot", "alice")  # the realm holds a stake
            c4(
                home,
                "session",
                "create",
                "alice",
                "--session-key",
                "alice-s",
                "--expires",
                "1h",
                "--allow-paths",
                f"vm/exec:{REALM}",
            )
            session = c4(home, "keys", "show", "alice-s")["address"]
            time.sleep(3)  # a few blocks past the session's
            height = int(rpc(url, "status")["sync_info"]["latest_block_height"]) - 1
            # Absent, with a neighbour on each side: beside the last of three accounts
            # (two keys before it; the balances, parameters and code after every "/a/").
            test1 = c4(home, "keys", "show", "test1")["address"]
            last = max(account_key(a) for a in (alice, test1, package_address(REALM)))
            between = last[:-1] + bytes([last[-1] ^ 1])
            keys = {
                "account": account_key(alice),
                "realm_account": account_key(package_address(REALM)),
                "absent": account_key(NOBODY),
                "absent_between": between,
                "session": session_key(alice, session),
                "code": package_key(REALM),
                "gas_price": b"gasPrice",
            }
            record = {
                "height": height,
                "queries": {
                    name: {"key": base64.b64encode(key).decode(), "answer": prove(url, key, height)}
                    for name, key in keys.items()
                },
                "commit": rpc(url, "commit", height=str(height + 1)),
            }
        finally:
            c4(home, "node", "stop")
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"{out}: {len(record['queries'])} proven keys at height {height}")


if __name__ == "__main__":
    main()
