"""A wide-area link in one process, for bench/remote.py and the node tests: a round
trip's delay, and TLS.

    client ──TCP──▶ [delay: RTT/2 each way] ──TCP──▶ [TLS endpoint] ──HTTP──▶ gnoland

The first stage holds every chunk RTT/2 in each direction, in order, and a
connection's first chunk one RTT more (the TCP handshake a real link costs before
any byte); a TLS handshake's flights pass through it like any bytes, so they pay
their round trips too. The second stage (``--tls``) is an HTTPS endpoint with a
certificate made at start-up, which clients trust through ``SSL_CERT_FILE``; it
forwards plain HTTP to the node and counts what crosses: connections, HTTP requests,
and the time the node itself took to answer each (a broadcast's includes the wait
for its block).
"""

from __future__ import annotations

import asyncio
import datetime
import ssl
import threading
import time
from pathlib import Path
from typing import NamedTuple


class Counts(NamedTuple):
    connections: int
    requests: int
    node_seconds: float  # the node's own time answering, summed
    broadcast_seconds: float  # of which broadcasts (waiting for their block)


class Link:
    """The link, running in a thread of its own: ``url`` is where clients connect."""

    def __init__(self, node_port: int, *, rtt_ms: float, tls: bool, folder: Path) -> None:
        self.node_port = node_port
        self.delay = rtt_ms / 2000
        self.tls = tls
        self.folder = folder
        self.cert_file = folder / "wan-cert.pem"
        self._counts = [0, 0, 0.0, 0.0]
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._loop = asyncio.new_event_loop()
        self.port = 0
        threading.Thread(target=self._run, daemon=True).start()
        self._ready.wait(10)

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://localhost:{self.port}"

    def counts(self) -> Counts:
        with self._lock:
            connections, requests, node, broadcast = self._counts
        return Counts(int(connections), int(requests), node, broadcast)

    def _add(self, index: int, amount: float) -> None:
        with self._lock:
            self._counts[index] += amount

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._start())
        self._ready.set()
        self._loop.run_forever()

    async def _start(self) -> None:
        context = None
        if self.tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            key = self.folder / "wan-key.pem"
            certificate(self.cert_file, key)
            context.load_cert_chain(self.cert_file, key)
        endpoint = await asyncio.start_server(
            self._endpoint, "127.0.0.1", 0, ssl=context, limit=1 << 20
        )
        inner = endpoint.sockets[0].getsockname()[1]
        delay = await asyncio.start_server(lambda r, w: self._delayed(r, w, inner), "127.0.0.1", 0)
        self.port = delay.sockets[0].getsockname()[1]

    # -- the delay --------------------------------------------------------------------

    async def _delayed(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, inner: int
    ) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", inner)
        first = asyncio.get_running_loop().time() + 2 * self.delay  # the TCP handshake
        await asyncio.gather(
            self._pipe(reader, upstream_writer, not_before=first),
            self._pipe(upstream_reader, writer, not_before=0.0),
        )

    async def _pipe(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, not_before: float
    ) -> None:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, chunk = await queue.get()
                if not chunk:
                    break
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                writer.write(chunk)
                await writer.drain()
            writer.close()

        delivering = asyncio.create_task(deliver())
        try:
            while chunk := await reader.read(65536):
                queue.put_nowait((max(loop.time() + self.delay, not_before), chunk))
        except (ConnectionError, OSError):
            pass
        queue.put_nowait((0.0, b""))
        await delivering

    # -- the endpoint -------------------------------------------------------------------

    async def _endpoint(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._add(0, 1)
        node_reader, node_writer = await asyncio.open_connection("127.0.0.1", self.node_port)
        try:
            while True:
                request = await _message(reader)
                if request is None:
                    break
                self._add(1, 1)
                started = time.perf_counter()
                node_writer.write(request)
                answer = await _message(node_reader)
                took = time.perf_counter() - started
                self._add(2, took)
                if b"broadcast_tx" in request:
                    self._add(3, took)
                if answer is None:
                    break
                writer.write(answer)
                await writer.drain()
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            pass
        finally:
            node_writer.close()
            writer.close()


async def _message(reader: asyncio.StreamReader) -> bytes | None:
    """One HTTP/1.1 message (head and body, by Content-Length or chunked), as bytes."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        return None
    lowered = head.lower()
    if b"transfer-encoding: chunked" in lowered:
        body = b""
        while True:
            line = await reader.readuntil(b"\r\n")
            size = int(line.split(b";")[0], 16)
            body += line + await reader.readexactly(size + 2)
            if size == 0:
                return head + body
    length = 0
    for line in lowered.split(b"\r\n"):
        if line.startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    return head + await reader.readexactly(length)


def certificate(cert: Path, key: Path) -> None:
    """A self-signed certificate for localhost and 127.0.0.1."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    private = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(private.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(private, hashes.SHA256())
    )
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key.write_bytes(
        private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
