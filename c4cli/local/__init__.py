"""The local chain: a home's block log, replayed through the realm's state machine,
behind the chain interface (``local/chain.py``'s :class:`LocalChain`)."""
