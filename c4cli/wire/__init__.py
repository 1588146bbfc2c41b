"""tm2's and gno.land's wire: amino and protobuf bytes, keys, signatures, transactions,
messages, Merkle roots, query paths and result shapes, the same for every backend."""
