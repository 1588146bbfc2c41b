"""A node's URLs as c4 reads and shows them: a home's list of one chain's nodes, and
each as it may be printed (no credentials, no path where an API key may hide)."""

from __future__ import annotations

from urllib.parse import urlsplit


def split_urls(text: str) -> list[str]:
    """The RPC URLs of ``--remote``, ``$C4_REMOTE`` or config.toml: one, or several of
    one chain separated by commas.

    >>> split_urls("http://a:26657, http://b:26657")
    ['http://a:26657', 'http://b:26657']
    """
    return [url.strip() for url in text.split(",") if url.strip()]


def redact(url: str) -> str:
    """A node URL as c4 shows it: scheme, host and port only. Credentials (``user:pass@``)
    and a path (where hosted RPC providers put API keys) are never printed.

    >>> redact("https://me:secret@rpc.example.com/v1/KEY123")
    'https://rpc.example.com/…'
    >>> redact("127.0.0.1:26657")
    'http://127.0.0.1:26657'
    """
    parts = urlsplit(url if "://" in url else f"http://{url}")
    scheme = "http" if parts.scheme == "tcp" else parts.scheme
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        port = ""
    path = "/…" if parts.path.strip("/") or parts.query else ""
    return f"{scheme}://{host}{port}{path}"
