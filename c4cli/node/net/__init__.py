"""A node's network, for its client: its URLs, one kept-alive connection
(dialled early), the transport that holds it, the typed RPC client, a node's words
read.
"""
