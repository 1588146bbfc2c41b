// Command goamino is the test oracle for c4's wire format: gno's own amino.
//
// It reads one JSON object per line on stdin, {"tx": <amino JSON of a signed
// std.Tx>, "chain_id", "account_number", "sequence"}, decodes the tx with the
// node's codec and answers one line: {"bytes": base64 of amino binary,
// "sign_bytes": the sign document gnokey signs (GetSignBytes), "legacy_sign_bytes":
// the one older releases signed, "json": amino JSON re-encoded}, or
// {"error": "..."} when gno would not decode the tx.
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"

	_ "github.com/gnolang/gno/gno.land/pkg/sdk/vm"
	"github.com/gnolang/gno/tm2/pkg/amino"
	_ "github.com/gnolang/gno/tm2/pkg/sdk/auth"
	_ "github.com/gnolang/gno/tm2/pkg/sdk/bank"
	"github.com/gnolang/gno/tm2/pkg/std"
)

type request struct {
	Tx            json.RawMessage `json:"tx"`
	ChainID       string          `json:"chain_id"`
	AccountNumber uint64          `json:"account_number"`
	Sequence      uint64          `json:"sequence"`
}

type answer struct {
	Bytes     string `json:"bytes,omitempty"`
	SignBytes string `json:"sign_bytes,omitempty"`
	Legacy    string `json:"legacy_sign_bytes,omitempty"`
	JSON      string `json:"json,omitempty"`
	Error     string `json:"error,omitempty"`
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
