"""The chain interface: what a command may ask of a chain, and the values it answers in.

Two backends implement it: the local chain (``c4cli.local``) and a node's client
(``c4cli.node``). Their common bytes are tm2's and gno.land's (``c4cli.wire``).
"""
