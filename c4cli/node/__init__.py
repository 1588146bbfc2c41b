"""The client of a gno.land node, composed: transport, reader, sender (see chain.py)."""
