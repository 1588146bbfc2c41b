// gno's JS client against a node: reads and one move, as a web client would.
//
// Usage: node serve_client.js URL REALM GAME COLUMN MOVE   (the mnemonic on stdin)
// Prints one JSON document: the chain id, the signer's address and balance,
// GameJSON before the move, the lobby's Render, and the move's commit result.
'use strict';

const Long = require('long');
const { TransactionEndpoint } = require('@gnolang/tm2-js-client');
const { GnoJSONRPCProvider, GnoWallet } = require('@gnolang/gno-js-client');

async function main() {
  const [url, realm, game, column, move] = process.argv.slice(2);
  const mnemonic = require('node:fs').readFileSync(0, 'utf8').trim();
  const provider = new GnoJSONRPCProvider(url);
  const wallet = await GnoWallet.fromMnemonic(mnemonic);
  wallet.connect(provider);
  const address = await wallet.getAddress();
  const status = await provider.getStatus();
  const out = {
    chain_id: status.node_info.network,
    height: status.sync_info.latest_block_height,
    address,
    balance: await provider.getBalance(address, 'ugnot'),
    account_number: await provider.getAccountNumber(address),
    game: await provider.evaluateExpression(realm, `GameJSON(${game})`),
    lobby: await provider.getRenderOutput(realm, ''),
  };
  const fee = { gas_wanted: new Long(50000000), gas_fee: '1000000ugnot' };
  out.moved = await wallet.callMethod(
    realm,
    'Play',
    [game, column, move],
    TransactionEndpoint.BROADCAST_TX_COMMIT,
    undefined,
    undefined,
    fee,
  );
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err) + '\n');
  process.exit(1);
});
