/**
 * A read-only view of the receipts the sandbox core's ledger has posted, for test rigs outside
 * the process: `GET /_sandbox/receipts`, optionally `?externalRefNoPrefix=` (case-sensitive).
 * The soak (`npm run soak`) reads it to check that no deposit was posted twice; the transaction
 * routes show the same postings only inside free-text descriptions, one account at a time.
 *
 * Reads the data's receipts table; changes nothing. It lives on the sandbox core's own port
 * (loopback in sandbox mode) and is no catalogue route, so the gateway has no route to it and a
 * vendor cannot reach it through the gateway. Answers `{ receipts: [...] }`, oldest first,
 * amounts as the ledger's exact decimal text.
 */
import { Router } from 'express';
import type { SandboxData } from './data';
import { sendJson } from './handler';

const RECEIPTS_VIEW_PATH = '/_sandbox/receipts';

export function receiptsView(data: SandboxData): Router {
  const router = Router();
  router.get(RECEIPTS_VIEW_PATH, function listPostedReceipts(req, res) {
    // The app turns Express's query parser off (handlers read the query themselves): so does this.
    const prefix = new URLSearchParams(req.originalUrl.split('?', 2)[1] ?? '').get('externalRefNoPrefix') ?? '';
    const receipts = data.receipts
      .list()
      .filter((receipt) => prefix === '' || (receipt.externalRefNo ?? '').startsWith(prefix))
      .sort((a, b) => a.receiptNo - b.receiptNo)
      .map((receipt) => ({
        receiptNo: receipt.receiptNo,
        accountId: receipt.accountId,
        kind: receipt.kind,
        amount: receipt.amount.toString(),
        valueDate: receipt.valueDate,
        externalRefNo: receipt.externalRefNo,
      }));
    sendJson(res, 200, { receipts });
  });
  return router;
}
