"""gno's own code as test oracles: its Go amino codec and its JS clients.

Each oracle is a long-lived subprocess that answers one line per line. Tools
that are missing skip the tests that need them, with a reason; with ``CI`` set
they fail instead, so CI always runs them.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

WIRE = Path(__file__).resolve().parent / "wire"


def cache_dir() -> Path:
    """Where built oracles are kept between runs (a cache: deleting it costs a rebuild)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "c4cli"


@contextlib.contextmanager
def building(name: str) -> Iterator[None]:
    """One build of ``name`` at a time on this machine: the suite's workers (pytest-xdist)
    and other runs wait for the one building, then find what it built."""
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def missing(tool: str, why: str) -> None:
    """Skip for a user without ``tool``; fail in CI, where every oracle must run."""
    message = f"{tool} not found: {why}"
    if os.environ.get("CI"):
        pytest.fail(message + " (CI is set, so this is a failure, not a skip)")
    pytest.skip(message)


def chromium() -> str:
    """Debian's Chromium, for the tests in a real browser. CI (as root, with apt) installs
    it from Debian's packages the first time; a user without it skips those tests."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and os.environ.get("CI") and os.geteuid() == 0 and shutil.which("apt-get"):
        with building("chromium"):
            if shutil.which("chromium") is None:
                env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
                subprocess.run(["apt-get", "update", "-qq"], env=env, timeout=600)
                subprocess.run(
                    ["apt-get", "install", "-y", "-qq", "chromium"],
                    env=env,
                    capture_output=True,
                    timeout=900,
                )
        found = shutil.which("chromium")
    if found is None:
        missing("chromium", "Debian's chromium loads gnoweb's pages (apt-get install chromium)")
    assert found is not None
    return found


class LineOracle:
    """A subprocess that reads one request line and writes one answer line."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )

    def ask(self, line: str) -> str:
        stdin: IO[str] | None = self.proc.stdin
        stdout: IO[str] | None = self.proc.stdout
        assert stdin is not None and stdout is not None
        stdin.write(line + "\n")
        stdin.flush()
        answer = stdout.readline()
        assert answer, f"the oracle {self.proc.args} stopped"
        return answer.rstrip("\n")

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


def build_go_oracle() -> Path:
    """Build tests/wire/goamino (gno's amino at the pinned version), cached by its sources."""
    if shutil.which("go") is None:
        missing("go", "the amino oracle is built from gno's Go module (scripts/install-gno.sh)")
    source = WIRE / "goamino"
    digest = hashlib.sha256()
    for name in ("main.go", "go.mod", "go.sum"):
        digest.update((source / name).read_bytes())
    binary = cache_dir() / f"goamino-{digest.hexdigest()[:16]}"
    with building("goamino"):
        if not binary.exists():
            built = binary.with_suffix(".part")
            subprocess.run(
                ["go", "build", "-o", str(built), "."], cwd=source, check=True, timeout=900
            )
            built.rename(binary)
    return binary


def js_clients() -> Path:
    """gno's JS clients, installed from the npm registry into tests/wire/js once: the
    folder that holds them (and the scripts that use them)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        missing("node/npm", "the JS oracle runs @gnolang/tm2-js-client")
    folder = WIRE / "js"
    with building("js-clients"):
        if not (folder / "node_modules" / "@gnolang" / "tm2-js-client").is_dir():
            subprocess.run(
                ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=folder,
                check=True,
                timeout=600,
            )
    return folder


def start_js_oracle() -> LineOracle:
    """gno's JS clients as a line oracle of transaction bytes (encode.js)."""
    return LineOracle(["node", "encode.js"], js_clients())


class GoAmino:
    """Asks gno's amino for a tx's binary, legacy sign bytes and JSON."""

    def __init__(self, oracle: LineOracle) -> None:
        self.oracle = oracle

    def encode(
        self, tx: dict[str, Any], chain_id: str, account_number: int, sequence: int
    ) -> dict[str, str]:
        request = {
            "tx": tx,
            "chain_id": chain_id,
            "account_number": account_number,
            "sequence": sequence,
        }
        answer: dict[str, str] = json.loads(self.oracle.ask(json.dumps(request)))
        return answer

    def verify_store(
        self, ops: list[dict[str, str]], root: bytes, key: bytes, value: bytes | None
    ) -> str:
        """gno's proof runtime on a store proof: "" when it holds, else its error."""
        request = {
            "proof": ops,
            "root": base64.b64encode(root).decode(),
            "keypath": "/main/x:" + key.hex(),
            "value": None if value is None else base64.b64encode(value).decode(),
        }
        answer = json.loads(self.oracle.ask(json.dumps(request)))
        return "" if answer.get("verified") else str(answer.get("error") or answer)

    def account(self, value: bytes) -> Any:
        """A main-store account value as the node decodes it: its amino JSON."""
        request = {"account": base64.b64encode(value).decode()}
        answer = json.loads(self.oracle.ask(json.dumps(request)))
        if "json" not in answer:
            raise ValueError(answer.get("error"))
        return json.loads(answer["json"])
