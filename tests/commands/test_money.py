"""Where money moves on the local chain: a recorded commitment never loses its secret, a
closed pipe or a signal after the append leaves the transaction standing and says so,
and what a command prints after its block never undoes it."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from support import Home


def kept_secrets(home: Home, name: str) -> list[Path]:
    folder = home.path / "secrets" / home.address(name)
    return sorted(p for p in folder.glob("*") if p.is_file()) if folder.exists() else []


def env_for(home: Home, **extra: str) -> dict[str, str]:
    env = dict(os.environ, C4_HOME=str(home.path), C4_PASSWORD="")
    env.pop("C4_FAULT", None)
    env.update(extra)
    return env


def test_a_stray_key_file_never_costs_a_recorded_offer_its_secret(chain: Home) -> None:
    """A key file the command does not need (a copy readable by others) is skipped with
    a warning when naming addresses; the offer stands and its secret is kept."""
    backup = chain.path / "keys" / "bob-backup.json"
    backup.write_bytes((chain.path / "keys" / "bob.json").read_bytes())
    backup.chmod(0o644)
    result = chain.run("offer", "--stake", "10gnot", "alice")
    assert result.exit_code == 0, result.output
    assert "warning: skipped bob-backup.json" in result.stderr
    assert len(kept_secrets(chain, "alice")) == 1
    assert chain.run("log").exit_code == 0  # the log still lists, naming the good keys
    backup.unlink()
    chain.ok("accept", "1", "bob")
    chain.ok("reveal", "1", "alice")  # the kept secret opens the commitment
    assert chain.game(1)["status"] == "playing"


@pytest.mark.parametrize("reader", ["grep -q OK!", "true"])
def test_a_reader_that_goes_away_leaves_the_offer_and_its_secret(
    chain: Home, c4_bin: str, reader: str
) -> None:
    """`c4 offer … | grep -q OK!` and `| true`: the transaction is recorded, the secret
    kept, and c4 exits as a process whose pipe closed (141), without a word."""
    for _ in range(4):
        proc = subprocess.run(
            f"{c4_bin} offer --stake 1gnot alice | {reader}; echo ${{PIPESTATUS[0]}}",
            shell=True,
            executable="/bin/bash",
            env=env_for(chain),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.stderr == "", proc.stderr
        assert proc.stdout.strip() in ("0", "141"), proc.stdout
    games = chain.json("query", "active")
    assert len(kept_secrets(chain, "alice")) == 4 == len(games["games"])


def test_stdout_closed_before_the_receipt_exits_141_with_the_secret_kept(
    chain: Home, c4_bin: str
) -> None:
    """A pipe already closed when the receipt is printed: exit 141, nothing on stderr."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    proc = subprocess.run(
        [c4_bin, "offer", "--stake", "1gnot", "alice"],
        env=env_for(chain),
        stdout=write_end,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
    )
    os.close(write_end)
    assert (proc.returncode, proc.stderr) == (141, "")
    assert chain.game(1)["status"] == "open"
    assert len(kept_secrets(chain, "alice")) == 1


@pytest.mark.slow
@pytest.mark.slow
def test_two_offers_with_one_passphrase_at_once_never_lose_its_secret(
    chain: Home, c4_bin: str
) -> None:
    """Two `c4 offer --passphrase P` at once, 36 rounds: one lands, the realm refuses the
    other ("commitment already used", itself proof a transaction carrying it is on
    chain), and the refused one never deletes the secret the landed one needs."""
    import secrets

    lost = []
    for _ in range(36):
        passphrase = secrets.token_hex(16)
        argv = [c4_bin, "offer", "--stake", "1gnot", "--passphrase", passphrase, "alice"]
        procs = [
            subprocess.Popen(
                argv, env=env_for(chain), stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
            for _ in range(2)
        ]
        codes = sorted(proc.wait(timeout=60) for proc in procs)
        for proc in procs:
            assert proc.stdout is not None and proc.stderr is not None
            proc.stdout.close()
            proc.stderr.close()
        assert codes == [0, 1]
        commitment = hashlib.sha256(passphrase.encode()).hexdigest()
        if not (chain.path / "secrets" / chain.address("alice") / commitment).exists():
            lost.append(passphrase)
    assert lost == []


@pytest.mark.parametrize("json_mode", [False, True])
@pytest.mark.parametrize("stdout", ["/dev/full", "closed"])
def test_a_stdout_that_cannot_be_written_after_the_send_is_never_not_recorded(
    chain: Home, c4_bin: str, stdout: str, json_mode: bool
) -> None:
    """`c4 send … > /dev/full` or `>&-`: the transaction is in the log, so the exit is the
    README's "the transaction stands" (141, never 3's "nothing was recorded"), no
    traceback, and stderr says what was recorded, with its hash."""
    before = chain.balance("bob")
    argv = [c4_bin, "send", "--to", "bob", "--amount", "5ugnot", "alice"]
    opened = os.open(stdout, os.O_WRONLY) if stdout != "closed" else None

    def close_stdout() -> None:
        os.close(1)

    proc = subprocess.run(
        argv + (["--json"] if json_mode else []),
        env=env_for(chain),
        stdout=opened,
        stderr=subprocess.PIPE,
        preexec_fn=close_stdout if opened is None else None,
        text=True,
        timeout=60,
    )
    if opened is not None:
        os.close(opened)
    assert chain.balance("bob") == before + 5
    last = chain.sent()[-1]
    reason = "No space left on device" if stdout == "/dev/full" else "closed"
    assert (proc.returncode, proc.stderr) == (
        141,
        f"c4: stdout could not be written ({reason}); the transaction was recorded "
        f"(height {last['height']}, TX HASH {last['hash']})\n",
    )


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_the_append_keeps_the_secret_of_the_recorded_offer(
    chain: Home, c4_bin: str, signum: int
) -> None:
    """The signal waits for the block to be whole, then interrupts the command: the
    offer is recorded, the line says so, and its secret is kept for the reveal."""
    proc = subprocess.Popen(
        [c4_bin, "offer", "--stake", "1gnot", "alice"],
        env=env_for(chain, C4_FAULT="pause-mid-append"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 20
    log = chain.path / "chain" / "blocks.toml"
    size = log.stat().st_size
    while log.stat().st_size == size and time.monotonic() < deadline:
        time.sleep(0.01)  # half the block is written: the append is under way
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum, err
    name = "interrupted" if signum == signal.SIGINT else "terminated"
    assert err.startswith(f"Error: {name}: the transaction was recorded (height 1, TX HASH ")
    assert len(kept_secrets(chain, "alice")) == 1
    chain.ok("accept", "1", "bob")
    chain.ok("reveal", "1", "alice")


def test_a_refused_offer_forgets_its_secret(chain: Home) -> None:
    """Known not recorded (the realm refused it): the secret kept for it goes again."""
    chain.fails(1, "offer", "--stake", "1ugnot", "alice")
    assert kept_secrets(chain, "alice") == []


def test_a_cut_back_append_forgets_its_secret(chain: Home) -> None:
    """The disk refused the block and it was cut back: not recorded, secret gone."""
    result = chain.run("offer", "--stake", "1gnot", "alice", env={"C4_FAULT": "append-fsync:EIO"})
    assert result.exit_code == 3 and "the transaction was not recorded" in result.stderr
    assert kept_secrets(chain, "alice") == []


def test_simulate_only_appends_nothing(chain: Home) -> None:
    before = chain.log_bytes()
    out = chain.json("offer", "--stake", "1gnot", "--simulate", "only", "alice")
    assert out["simulated"] is True and out["height"] == 0 and out["result"] == [1]
    assert chain.log_bytes() == before
    assert chain.json("query", "active")["games"] == []
    # A session simulated only leaves no session key behind it (issue 60).
    made = chain.json(
        "session", "create", "--session-key", "alice-s", "--allow-paths", "*",
        "--simulate", "only", "alice",
    )  # fmt: skip
    assert made["simulated"] is True and chain.log_bytes() == before
    assert "alice-s" not in [key["name"] for key in chain.json("keys", "list")]


def test_the_receipt_says_what_the_transaction_cost(chain: Home) -> None:
    before = chain.balance("alice")
    text = chain.ok("send", "--to", "bob", "--amount", "1ugnot", "--gas-fee", "7ugnot", "alice")
    assert "\nTOTAL TX COST:  7ugnot\n" in text.stdout
    receipt = chain.json(
        "send", "--to", "bob", "--amount", "1ugnot", "--gas-fee", "5ugnot", "alice"
    )
    assert receipt["total_cost_ugnot"] == 5
    assert chain.balance("alice") == before - 1 - 7 - 1 - 5


def test_an_error_line_escapes_control_characters(chain: Home) -> None:
    """A realm's panic text reaches the terminal with its control characters escaped."""
    result = chain.run("call", "Play", "1\x1b[2J", "4", "0", "alice")
    assert result.exit_code in (1, 2)
    assert "\x1b" not in result.stderr and "\\x1b" in result.stderr


def test_gas_wanted_beyond_int64_is_bad_input(chain: Home) -> None:
    chain.fails(2, "send", "--to", "bob", "--amount", "1ugnot", "--gas-wanted", str(2**63), "alice")


def test_a_kept_secret_survives_a_failed_read_back(chain: Home) -> None:
    """Anything failing after the block (here: the journal of names, made unreadable)
    keeps the secret; the offer is in the log."""
    keys = chain.path / "keys"
    (keys / "broken.json").write_text("{not json")
    (keys / "broken.json").chmod(0o600)
    result = chain.run("offer", "--stake", "1gnot", "--json", "alice")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["result"] == [1]
    assert len(kept_secrets(chain, "alice")) == 1


def test_a_clock_that_could_not_run_past_a_deadline_is_refused(chain: Home) -> None:
    """`c4 time set 9999-12-31T23:59:59Z` would lock every live stake for good (no
    block, not even claim-timeout, could come after it): refused, exit 2."""
    chain.ok("offer", "--stake", "1gnot", "alice")
    result = chain.fails(2, "time", "set", "9999-12-31T23:59:59Z")
    assert "is too late: the chain's clock must stay a year before" in result.stderr
    chain.fails(2, "time", "advance", "69889848h")  # lands in the last year
    chain.ok("time", "set", "2100-01-01T00:00:00Z")
    chain.ok("cancel", "1", "bob")  # expired: anyone may cancel, the stake goes back
    assert chain.game(1)["status"] == "cancelled"


def test_a_config_whose_url_is_not_text_is_damage_not_a_host(home: Home) -> None:
    """`url = 5` in config.toml is never used as host "5": exit 3 naming the file."""
    home.path.mkdir(parents=True)
    (home.path / "config.toml").write_text(
        '[remote]\nurl = 5\nchain_id = "dev"\nrealm_path = "gno.land/r/x/connect4"\n'
    )
    result = home.fails(3, "time")
    assert "config.toml is not a c4 config" in result.stderr


A_LANDED_PLAY = {
    "status": "landed",
    "height": 5,
    "time": "2026-01-01T00:00:05Z",
    "hash": "5+s/c4X8gTOT3+f22PNMqBK7vv3U1eOvOucER7tgL9E=",
    "signer": "g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5",
    "func": "Play",
    "args": [["1", "4", "0"]],
    "send": [""],
    "to": [None],
    "result": [],
    "transfers": [],
    "gas_wanted": 2000000,
    "gas_used": 1500000,
    "gas_fee": "2000ugnot",
}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("args", 12345),
        ("args", [[1, 4, 0]]),
        ("send", []),  # a message without its coins
        ("to", None),
        ("height", "5"),
        ("height", True),
        ("status", "lost"),
        ("transfers", [{"to": 1, "amount": "1ugnot"}]),
        ("result", {}),
    ],
)
def test_a_journal_line_c4_did_not_write_is_damage_in_one_line(
    home: Home, field: str, value: object
) -> None:
    """A node home's journal is read as c4 writes it: a line whose fields are of
    another kind (edited, or another tool's) is exit 3 naming the line, never an
    internal error; the same journal with the line as written lists it."""
    home.path.mkdir(parents=True)
    (home.path / "config.toml").write_text(
        '[remote]\nurl = "http://127.0.0.1:9"\nchain_id = "dev"\nrealm_path = "gno.land/r/x/c4"\n'
    )
    journal = home.path / "journal.jsonl"
    journal.write_text(json.dumps(A_LANDED_PLAY) + "\n")
    assert "Play(1, 4, 0)" in home.ok("log").stdout
    journal.write_text(
        json.dumps(A_LANDED_PLAY) + "\n" + json.dumps(A_LANDED_PLAY | {field: value}) + "\n"
    )
    result = home.fails(3, "log")
    assert result.stderr == (
        f"Error: {journal}: line 2 is not a transaction as c4 writes it "
        f"(its {field!r} is not what c4 writes there)\n"
    )


NOT_A_CONFIG = "a c4 config (a [remote] with url, chain_id, realm_path, each a non-empty string)"


@pytest.mark.parametrize(
    "text",
    [
        b'[remote]\nurl = "\xff"\n',  # not UTF-8
        b"[remote]\nurl = ",  # not TOML
        b'[remote]\nurl = "a"\nurl = "b"\n',  # a key twice
        b'fee_cap = "1gnot"\n[remote]\n',  # a [remote] with nothing in it
    ],
)
def test_a_config_that_is_not_one_is_damage_in_one_line(home: Home, text: bytes) -> None:
    """A config.toml c4 cannot read as its own is exit 3 naming the file, never a
    traceback or an internal error, whatever its bytes."""
    home.path.mkdir(parents=True)
    (home.path / "config.toml").write_bytes(text)
    for argv in (["time"], ["query", "game", "1"]):
        result = home.fails(3, *argv)
        assert result.stderr == f"Error: {home.path / 'config.toml'} is not {NOT_A_CONFIG}\n"


@pytest.mark.parametrize("stderr", ["/dev/full", "closed"])
def test_a_stderr_that_cannot_be_written_never_fails_a_send(
    chain: Home, c4_bin: str, stderr: str
) -> None:
    """stderr full or closed: its lines (warnings, notes) are lost, never the command's
    result: the receipt on stdout, exit 0, the transaction recorded."""
    before = chain.balance("bob")
    opened = os.open(stderr, os.O_WRONLY) if stderr != "closed" else None

    def close_stderr() -> None:
        os.close(2)

    proc = subprocess.run(
        [c4_bin, "send", "--to", "bob", "--amount", "4ugnot", "alice"],
        env=env_for(chain),
        stdout=subprocess.PIPE,
        stderr=opened,
        preexec_fn=close_stderr if opened is None else None,
        text=True,
        timeout=60,
    )
    if opened is not None:
        os.close(opened)
    assert proc.returncode == 0 and proc.stdout.startswith("\nOK!\n"), proc.stdout
    assert chain.balance("bob") == before + 4
