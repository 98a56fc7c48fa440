import path from 'node:path';
import type { Request } from 'express';
import { ROUTES, type Route } from '../../catalogue/api-catalogue';
import { loadReceiptEnums } from '../../contracts/enums';
import { createBodyContracts } from '../../contracts/registry';
import { CoreCallError } from '../../core-client/core-call-error';
import type { BufferedAnswer, CoreClient } from '../../core-client/core-client';
import { newContext, type IdempotencyGuard, type RequestContext } from '../../request/context';
import { runStep } from '../../../test/support/step-harness';
import { exchange } from './exchange';

const contracts = createBodyContracts({ enums: loadReceiptEnums(path.resolve(__dirname, '../../../config/receipt-enums.yaml')), adjustmentNotesRequired: false });
const DEPOSIT = ROUTES.find((r) => r.apiId === 'POSTapi/transaction/savings/deposit') as Route;
const ACCOUNT = ROUTES.find((r) => r.apiId === 'GETaccounts/{accountId}') as Route;

/** A core client that answers (or fails) as told, and records the JSON it was given. */
function coreAnswering(outcome: BufferedAnswer | Error): CoreClient & { sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    stream: () => Promise.reject(new Error('not used')),
    read: () => Promise.reject(new Error('not used')),
    exchange: (_req: Request, _ctx: RequestContext, json: string) => {
      sent.push(json);
      return outcome instanceof Error ? Promise.reject(outcome) : Promise.resolve(outcome);
    },
  };
}

/** The guard idempotency leaves on a keyed money movement, recording how the step settled it. */
function recordingGuard(): IdempotencyGuard & { settled: string[] } {
  const settled: string[] = [];
  return {
    settled,
    guarded: true,
    complete: (stored) => (settled.push(`complete ${stored.status}`), Promise.resolve()),
    abandon: () => (settled.push('abandon'), Promise.resolve()),
    unknown: () => (settled.push('unknown'), Promise.resolve()),
    coreCallStarted: () => settled.push('core call'),
  };
}

function depositContext(guard: IdempotencyGuard, responseFormat: 'json' | 'xml' = 'json'): RequestContext {
  const coreJson = '{"accountNumber":"00012345","amount":250.10}';
  return {
    ...newContext('r'),
    route: DEPOSIT,
    body: { value: JSON.parse(coreJson) as Record<string, unknown>, coreJson, requestFormat: 'json', responseFormat, responseMediaType: responseFormat === 'xml' ? 'application/xml' : 'application/json', responseXmlNamespace: '' },
    idempotencyGuard: guard,
  };
}

const json = (status: number, text: string): BufferedAnswer => ({ status, contentType: 'application/json', body: Buffer.from(text) });

describe('exchange step', () => {
  it('sends the canonical JSON, answers the translated receipt and stores it for replays', async () => {
    const core = coreAnswering(json(200, '{"receiptNumber":7,"amount":250.10}'));
    const guard = recordingGuard();
    const run = await runStep(exchange({ coreClient: core, contracts }), { method: 'POST' }, depositContext(guard, 'xml'));
    expect(core.sent).toEqual(['{"accountNumber":"00012345","amount":250.10}']);
    expect(run.answer?.status).toBe(200);
    expect(run.answer?.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(run.answer?.body).toMatch(/^<\?xml[^>]*\?><ReceiptPaymentDto>.*<Amount>250\.10<\/Amount>/);
    expect(guard.settled).toEqual(['core call', 'complete 200']);
  });

  it('releases the key when the core refuses (4xx): nothing was posted, and hands the error handler a catalogue problem with the refused receipt', async () => {
    const guard = recordingGuard();
    const ctx = depositContext(guard);
    const receipt = '{"hasOverride":false,"transactionOverrides":[],"errorMessage":"account closed"}';
    const run = await runStep(exchange({ coreClient: coreAnswering(json(400, receipt)), contracts }), {}, ctx);
    expect(run.answer).toBeNull();
    expect(run.error).toMatchObject({ code: 'invalid_request', status: 400, detail: 'account closed' });
    expect(ctx.coreRefusedReceipt).toBe(receipt);
    expect(guard.settled).toEqual(['core call', 'abandon']);
  });

  it("never passes on a core 4xx that is not a DTO (HTML, text): a catalogue problem with the core's words left out", async () => {
    const cases: Array<[string, string]> = [
      ['text/html', '<html><body><pre>NullReferenceException at D:\\cbs\\Receipts.cs:42 on cbs-app-03.internal</pre></body></html>'],
      ['text/plain', 'Server cbs-app-03.internal: /opt/cbs/receipts.dll'],
      ['application/problem+json', '{"type":"about:blank","title":"Not Found","status":404}'],
    ];
    for (const [contentType, text] of cases) {
      const guard = recordingGuard();
      const ctx = depositContext(guard);
      const run = await runStep(exchange({ coreClient: coreAnswering({ status: contentType === 'application/problem+json' ? 404 : 400, contentType, body: Buffer.from(text) }), contracts }), {}, ctx);
      expect(run.answer).toBeNull();
      expect(run.error).toMatchObject({ code: contentType === 'application/problem+json' ? 'not_found' : 'invalid_request' });
      expect(JSON.stringify(run.error)).not.toMatch(/cbs-app|Receipts\.cs|receipts\.dll/);
      expect(ctx.coreRefusedReceipt).toBeNull();
      expect(guard.settled).toEqual(['core call', 'abandon']);
    }
  });

  it("keeps the core's Retry-After on its 429 to a buffered route", async () => {
    const guard = recordingGuard();
    const run = await runStep(exchange({ coreClient: coreAnswering({ ...json(429, '{}'), retryAfter: '30' }), contracts }), {}, depositContext(guard));
    expect(run.error).toMatchObject({ code: 'rate_limited', headers: { 'Retry-After': '30' } });
  });

  it('releases the key when the request never reached the core (breaker open)', async () => {
    const guard = recordingGuard();
    const run = await runStep(exchange({ coreClient: coreAnswering(new CoreCallError('core_unavailable', false)), contracts }), {}, depositContext(guard));
    expect(run.error).toMatchObject({ code: 'core_unavailable' });
    expect(guard.settled).toEqual(['core call', 'abandon']);
  });

  it('marks the key outcome_unknown and says so when the core may have posted (502 after sending)', async () => {
    const guard = recordingGuard();
    const run = await runStep(exchange({ coreClient: coreAnswering(new CoreCallError('bad_gateway', true)), contracts }), {}, depositContext(guard));
    expect(run.error).toMatchObject({ code: 'bad_gateway', detail: expect.stringContaining('outcome is unknown') });
    expect(guard.settled).toEqual(['core call', 'unknown']);
  });

  it('marks the key outcome_unknown on a timeout after sending', async () => {
    const guard = recordingGuard();
    const run = await runStep(exchange({ coreClient: coreAnswering(new CoreCallError('core_timeout', true)), contracts }), {}, depositContext(guard));
    expect(run.error).toMatchObject({ code: 'core_timeout' });
    expect(guard.settled).toEqual(['core call', 'unknown']);
  });

  it('leaves routes whose body it did not parse to the forward step', async () => {
    const core = coreAnswering(json(200, '{}'));
    const run = await runStep(exchange({ coreClient: core, contracts }), {}, { ...newContext('r'), route: ACCOUNT });
    expect(run.passed).toBe(true);
    expect(core.sent).toEqual([]);
  });
});
