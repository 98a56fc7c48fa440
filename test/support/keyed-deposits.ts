/**
 * What the Redis data-loss tests send and read: a keyed JSON deposit with the sandbox demo key,
 * and one metric's value from a gateway's status port. Reads nothing else; sets nothing.
 */
import type { RunningGateway } from '../../src/gateway';
import { SANDBOX_KEYS } from './gateway';

const DEPOSIT_PATH = '/api/transaction/savings/deposit';

/** The same 10.00 deposit each time, under `key`: a retry of one posting, or a fresh one. */
export function keyedDeposit(gateway: RunningGateway, key: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${gateway.vendorPort}${DEPOSIT_PATH}`, {
    method: 'POST',
    headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo, 'content-type': 'application/json', 'Idempotency-Key': key },
    body: '{"cuAccountID":50001,"amount":10.00}',
  });
}

/** The value of an unlabelled metric on the gateway's status port (NaN when it is absent). */
export async function metricValue(gateway: RunningGateway, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${gateway.statusPort}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
}
