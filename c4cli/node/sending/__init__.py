"""What a node client sends: signed, simulated, priced and delivered, its
receipt read and proven, a transaction looked up by hash or by the blocks.
"""
