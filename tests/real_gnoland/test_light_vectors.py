"""tm2's results hash (c4cli/wire/abci.py ``results_hash``) against bytes gno v1.7.1
itself made: the ABCIResult of each ``deliver_tx`` below, as ``types.NewResults(...)``
marshals it, and their Merkle root, printed by a Go program built against
github.com/gnolang/gno v1.7.1 (amino.UnmarshalJSON of this very JSON, then
``r.Bytes()`` and ``Hash()``). They cover what a session's gnoland rarely makes: a
storage unlock with its refund withheld and without, errors of struct types, an
empty result, and a string error beside data and an event with empty fields.
test_light.py checks the common ones against a real gnoland's headers."""

from __future__ import annotations

import base64

import pytest

from c4cli.wire.abci import ResponseDeliverTx, Unencodable, results_hash


def deliver(
    error: object = None, data: str | None = None, events: object = None
) -> ResponseDeliverTx:
    base = {"Error": error, "Data": data, "Events": events, "Log": "", "Info": ""}
    return ResponseDeliverTx.from_json({"ResponseBase": base, "GasWanted": "1", "GasUsed": "1"})


UNLOCK = "/tm.StorageUnlockEvent"
RESULTS = [
    deliver(
        data="KDEgaW50KQoK",
        events=[
            {
                "@type": UNLOCK,
                "bytes_delta": "-2593",
                "fee_refund": "259300ugnot",
                "pkg_path": "gno.land/r/samcrew/connect4",
                "refund_withheld": True,
            },
            {
                "@type": UNLOCK,
                "bytes_delta": "-10",
                "fee_refund": "1000ugnot",
                "pkg_path": "gno.land/r/x",
                "refund_withheld": False,
            },
        ],
    ),
    deliver(error={"@type": "/std.OutOfGasError"}),
    deliver(error={"@type": "/std.InsufficientFundsError"}, events=[]),
    deliver(error={"@type": "/vm.InvalidPkgPathError"}),
    deliver(),
    deliver(
        error={"@type": "/abci.StringError", "value": "x"},
        data="AA==",
        events=[{"@type": "/bank.TransferEvent", "from": "a", "to": "", "coins": ""}],
    ),
]
# What gno v1.7.1 printed for each, and for the whole.
GO_BYTES = [
    "EgkoMSBpbnQpCgoaSQoWL3RtLlN0b3JhZ2VVbmxvY2tFdmVudBIvCMEoEgsyNTkzMDB1Z25vdBobZ25vLmxhbmQvci9z"
    "YW1jcmV3L2Nvbm5lY3Q0IAEaNQoWL3RtLlN0b3JhZ2VVbmxvY2tFdmVudBIbCBMSCTEwMDB1Z25vdBoMZ25vLmxhbmQv"
    "ci94",
    "ChQKEi9zdGQuT3V0T2ZHYXNFcnJvcg==",
    "Ch0KGy9zdGQuSW5zdWZmaWNpZW50RnVuZHNFcnJvcg==",
    "ChkKFy92bS5JbnZhbGlkUGtnUGF0aEVycm9y",
    "",
    "ChgKES9hYmNpLlN0cmluZ0Vycm9yEgMKAXgSAQAaGgoTL2JhbmsuVHJhbnNmZXJFdmVudBIDCgFh",
]
GO_HASH = "dGtquIXUgJTW/1wbOr/OwBsJ6s972/MaJSH6ZeidIco="


@pytest.mark.parametrize("index", range(len(RESULTS)))
def test_each_result_is_the_bytes_gno_makes(index: int) -> None:
    assert base64.b64encode(RESULTS[index].result_bytes()).decode() == GO_BYTES[index]


def test_each_result_reads_back_from_the_amino_it_writes() -> None:
    """A simulation's answer is read from the amino binary a result writes (log and gas
    beside the hashed part): the same value, both ways."""
    for result in RESULTS:
        assert ResponseDeliverTx.from_amino(result.amino()) == result
        said = result._replace(log="msg:0,success:false", info="i", gas_used=7)
        assert ResponseDeliverTx.from_amino(said.amino()) == said


def test_the_results_hash_is_gnos() -> None:
    assert base64.b64encode(results_hash(RESULTS) or b"").decode() == GO_HASH
    assert results_hash([]) is None  # a block without transactions: an empty hash


def test_a_type_c4_cannot_encode_is_said() -> None:
    with pytest.raises(Unencodable, match=r"an event of type /x\.NewEvent"):
        results_hash([deliver(events=[{"@type": "/x.NewEvent"}])])
    with pytest.raises(Unencodable, match=r"an error of type /x\.Rich with fields"):
        results_hash([deliver(error={"@type": "/x.Rich", "value": {"code": 7}})])
