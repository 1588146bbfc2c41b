"""gnoland processes this machine runs for `c4 node`: one node, or a network of them."""
