"""The node client's light client: headers checked by their validators'
signatures, then blocks and results held to them.
"""
