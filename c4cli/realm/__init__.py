"""The staked connect4 realm: a pure state machine over the engine's Board."""
