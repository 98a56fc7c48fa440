/**
 * Failures a vendor can ask the sandbox core for, to rehearse what a real core will one day do
 * (like a card processor's test card numbers): a receipt whose `externalRefNo` starts with
 * - `SANDBOX-SLOW` is answered after 15 s: past the gateway's core timeout, so the vendor sees
 *   504 `core_timeout`, then 409 `outcome_unknown` for a retry with the same key;
 * - `SANDBOX-RESET` has its connection reset after the core read it: 502 `bad_gateway`, then
 *   `outcome_unknown`;
 * - `SANDBOX-FAIL` gets a 500: 502 `bad_gateway` (the body withheld), then `outcome_unknown`.
 * Nothing is posted in any of them. Every other receipt goes on to the ledger, where
 * - `SANDBOX-OVERRIDE` (a deposit or payment) needs a supervisor's override whatever its amount:
 *   422 with `hasOverride` and a `transactionOverrides` entry, 201 once authorised (ledger.ts).
 * The always-closed account is data, not a rehearsal: `10027-S4` (cuAccountID 50057), a closed
 * Cash ISA of the seeded book, refused like any closed account (400, `errorMessage`).
 *
 * Reads the raw body of receipt posts; answers, delays or cuts only those it names.
 */
import type { RequestHandler } from 'express';

const SLOW_ANSWER_MS = 15_000;

/** The externalRefNo prefix the ledger reads to require an override (see above). */
export const OVERRIDE_REHEARSAL_PREFIX = 'SANDBOX-OVERRIDE';

const RECEIPT_PATH = /^\/api\/transaction\//i;

function externalRefNo(body: unknown): string | null {
  if (!Buffer.isBuffer(body) || body.length === 0) return null;
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) return null;
    for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
      if (key.toLowerCase() === 'externalrefno' && typeof value === 'string') return value;
    }
  } catch {
    return null;
  }
  return null;
}

export function rehearsals(): RequestHandler {
  return function sandboxRehearsal(req, res, next) {
    if (req.method !== 'POST' || !RECEIPT_PATH.test(req.path)) return next();
    const reference = externalRefNo(req.body)?.toUpperCase() ?? '';
    if (reference.startsWith('SANDBOX-SLOW')) {
      const timer = setTimeout(() => {
        if (!res.destroyed) res.status(504).type('application/problem+json').send('{"title":"rehearsed slow core","status":504}');
      }, SLOW_ANSWER_MS);
      timer.unref();
      res.once('close', () => clearTimeout(timer));
      return;
    }
    if (reference.startsWith('SANDBOX-RESET')) {
      req.socket.resetAndDestroy();
      return;
    }
    if (reference.startsWith('SANDBOX-FAIL')) {
      res.status(500).type('text/plain').send('rehearsed core failure: java.lang.IllegalStateException at core.receipts.post');
      return;
    }
    next();
  };
}
