"""The realm's history on a node, kept in the home: proven blocks synced, the
rows that touched the realm, the replay's checkpoint.
"""
