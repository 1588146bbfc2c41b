// Command goamino is the test oracle for c4's wire format: gno's own amino.
//
// It reads one JSON object per line on stdin, {"tx": <amino JSON of a signed
// std.Tx>, "chain_id", "account_number", "sequence"}, decodes the tx with the
// node's codec and answers one line: {"bytes": base64 of amino binary,
// "sign_bytes": the sign document gnokey signs (GetSignBytes), "legacy_sign_bytes":
// the one older releases signed, "json": amino JSON re-encoded}, or
// {"error": "..."} when gno would not decode the tx.
//
// A line {"proof": [{"type", "key", "data"}, ...], "root": base64, "keypath":
// "/main/x:<hex>", "value": base64 or null} is a store proof, checked by the node's
// own proof runtime (rootmulti.DefaultProofRuntime): {"verified": true}, or
// {"error": ...}; a null value asks that the key be absent. A line {"account":
// base64} is a main-store account value, decoded as the node decodes it: {"json":
// its amino JSON}.
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"

	_ "github.com/gnolang/gno/gno.land/pkg/gnoland"
	_ "github.com/gnolang/gno/gno.land/pkg/sdk/vm"
	"github.com/gnolang/gno/tm2/pkg/amino"
	"github.com/gnolang/gno/tm2/pkg/crypto/merkle"
	_ "github.com/gnolang/gno/tm2/pkg/sdk/auth"
	_ "github.com/gnolang/gno/tm2/pkg/sdk/bank"
	"github.com/gnolang/gno/tm2/pkg/std"
	"github.com/gnolang/gno/tm2/pkg/store/rootmulti"
)

type request struct {
	Tx            json.RawMessage `json:"tx"`
	ChainID       string          `json:"chain_id"`
	AccountNumber uint64          `json:"account_number"`
	Sequence      uint64          `json:"sequence"`

	Proof   []merkle.ProofOp `json:"proof"`
	Root    []byte           `json:"root"`
	KeyPath string           `json:"keypath"`
	Value   *[]byte          `json:"value"`
	Account []byte           `json:"account"`
}

type answer struct {
	Bytes     string `json:"bytes,omitempty"`
	SignBytes string `json:"sign_bytes,omitempty"`
	Legacy    string `json:"legacy_sign_bytes,omitempty"`
	JSON      string `json:"json,omitempty"`
	Error     string `json:"error,omitempty"`
	Verified  bool   `json:"verified,omitempty"`
}

func verify(req request) answer {
	proof := &merkle.Proof{Ops: req.Proof}
	runtime := rootmulti.DefaultProofRuntime()
	var err error
	if req.Value == nil {
		err = runtime.VerifyAbsence(proof, req.Root, req.KeyPath)
	} else {
		err = runtime.VerifyValue(proof, req.Root, req.KeyPath, *req.Value)
	}
	if err != nil {
		return answer{Error: err.Error()}
	}
	return answer{Verified: true}
}

func account(bz []byte) answer {
	var acc std.Account
	if err := amino.UnmarshalAny(bz, &acc); err != nil {
		return answer{Error: err.Error()}
	}
	js, err := amino.MarshalJSONAny(acc)
	if err != nil {
		return answer{Error: err.Error()}
	}
	return answer{JSON: string(js)}
}

func handle(line []byte) (out answer) {
	defer func() {
		if r := recover(); r != nil {
			out = answer{Error: fmt.Sprint(r)}
		}
	}()
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return answer{Error: err.Error()}
	}
	if req.Proof != nil {
		return verify(req)
	}
	if req.Account != nil {
		return account(req.Account)
	}
	var tx std.Tx
	if err := amino.UnmarshalJSON(req.Tx, &tx); err != nil {
		return answer{Error: err.Error()}
	}
	bz, err := amino.Marshal(tx)
	if err != nil {
		return answer{Error: err.Error()}
	}
	sign, err := tx.GetSignBytes(req.ChainID, req.AccountNumber, req.Sequence)
	if err != nil {
		return answer{Error: err.Error()}
	}
	legacy, err := tx.GetSignBytesLegacy(req.ChainID, req.AccountNumber, req.Sequence)
	if err != nil {
		return answer{Error: err.Error()}
	}
	js, err := amino.MarshalJSON(tx)
	if err != nil {
		return answer{Error: err.Error()}
	}
	return answer{
		Bytes:     base64.StdEncoding.EncodeToString(bz),
		SignBytes: string(sign),
		Legacy:    string(legacy),
		JSON:      string(js),
	}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		if err := out.Encode(handle(in.Bytes())); err != nil {
			os.Exit(1)
		}
	}
}
