// gno's JS clients as an oracle for c4's transaction bytes.
//
// Reads one amino-JSON std.Tx per line on stdin and writes, per line, the
// base64 of its binary encoding as @gnolang/tm2-js-client (Tx, fee,
// signatures) and @gnolang/gno-js-client (/vm.m_call, /bank.MsgSend) build it.
// Messages these clients do not define are answered "unsupported".
'use strict';

const readline = require('node:readline');
const Long = require('long');
const { Tx, Any, PubKeySecp256k1 } = require('@gnolang/tm2-js-client');
const { MsgCall, MsgSend } = require('@gnolang/gno-js-client');

const messages = {
  '/vm.m_call': (m) =>
    MsgCall.encode({
      caller: m.caller,
      send: m.send,
      max_deposit: m.max_deposit,
      pkg_path: m.pkg_path,
      func: m.func,
      args: m.args || [],
    }).finish(),
  '/bank.MsgSend': (m) =>
    MsgSend.encode({
      from_address: m.from_address,
      to_address: m.to_address,
      amount: m.amount,
    }).finish(),
};

function encode(tx) {
  const msgs = tx.msg.map((m) => {
    const build = messages[m['@type']];
    if (!build) throw new Error('unsupported');
    return Any.fromPartial({ type_url: m['@type'], value: build(m) });
  });
  const signatures = tx.signatures.map((s) => {
    if (s.session_addr) throw new Error('unsupported');
    const key = PubKeySecp256k1.encode({ key: Buffer.from(s.pub_key.value, 'base64') }).finish();
    return {
      pub_key: Any.fromPartial({ type_url: s.pub_key['@type'], value: key }),
      signature: Buffer.from(s.signature, 'base64'),
    };
  });
  const bytes = Tx.encode({
    messages: msgs,
    fee: { gas_wanted: Long.fromString(tx.fee.gas_wanted), gas_fee: tx.fee.gas_fee },
    signatures,
    memo: tx.memo,
  }).finish();
  return Buffer.from(bytes).toString('base64');
}

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  let out;
  try {
    out = encode(JSON.parse(line));
  } catch (err) {
    out = err.message === 'unsupported' ? 'unsupported' : `error: ${err.message}`;
  }
  process.stdout.write(out + '\n');
});
