import path from 'node:path';
import type { Request } from 'express';
import { ROUTES, type Route } from '../../catalogue/api-catalogue';
import { loadReceiptEnums } from '../../contracts/enums';
import { createBodyContracts } from '../../contracts/registry';
import { CoreCallError } from '../../core-client/core-call-error';
import type { BufferedAnswer, CoreClient } from '../../core-client/core-client';
import { createLogger } from '../../logging/logger';
import { newContext, type RequestContext } from '../../request/context';
import { GatewayError } from '../../errors/error-catalogue';
import { problemBody } from '../../errors/problem';
import { runStep } from '../../../test/support/step-harness';
import { exchange } from './exchange';

const contracts = createBodyContracts({
  enums: loadReceiptEnums(path.resolve(__dirname, '../../../config/receipt-enums.yaml')),
  adjustmentNotesRequired: false,
});
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

/** A deposit as the body step leaves it, with after-core duties that record the outcome the step settled with. */
function depositContext(responseFormat: 'json' | 'xml' = 'json'): RequestContext & { settled: string[] } {
  const coreJson = '{"accountNumber":"00012345","amount":250.10}';
  const settled: string[] = [];
  const ctx = {
    ...newContext('r'),
    route: DEPOSIT,
    body: {
      value: JSON.parse(coreJson) as Record<string, unknown>,
      coreJson,
      requestFormat: 'json',
      responseFormat,
      responseMediaType: responseFormat === 'xml' ? 'application/xml' : 'application/json',
      responseXmlNamespace: '',
    },
    settled,
  } satisfies RequestContext & { settled: string[] };
  ctx.afterCore.bindResponse({ once: () => undefined });
  const record = (kind: string) => () => (settled.push(kind), Promise.resolve());
  ctx.afterCore.register({
    step: 'recorder',
    logger: createLogger('silent'),
    answered: (stored) => (settled.push(`answered ${stored.status}`), Promise.resolve()),
    unknown: record('unknown'),
    refused: record('refused'),
    neverSent: record('neverSent'),
  });
  return ctx;
}

const json = (status: number, text: string): BufferedAnswer => ({ status, contentType: 'application/json', body: Buffer.from(text) });

describe('exchange step', () => {
  it('sends the canonical JSON, answers the translated receipt and stores it for replays', async () => {
    const core = coreAnswering(json(200, '{"receiptNumber":7,"amount":250.10}'));
    const ctx = depositContext('xml');
    const run = await runStep(exchange({ coreClient: core, contracts }), { method: 'POST' }, ctx);
    expect(core.sent).toEqual(['{"accountNumber":"00012345","amount":250.10}']);
    expect(run.answer?.status).toBe(200);
    expect(run.answer?.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(run.answer?.body).toMatch(/^<\?xml[^>]*\?><ReceiptPaymentDto>.*<Amount>250\.10<\/Amount>/);
    expect(ctx.settled).toEqual(['answered 200']);
  });

  it('settles as refused when the core refuses (4xx): nothing was posted, and hands the error handler a catalogue problem and a renderer of the refused receipt', async () => {
    const ctx = depositContext();
    const receipt = '{"hasOverride":false,"transactionOverrides":[],"errorMessage":"account closed"}';
    const run = await runStep(exchange({ coreClient: coreAnswering(json(400, receipt)), contracts }), {}, ctx);
    expect(run.answer).toBeNull();
    expect(run.error).toMatchObject({ code: 'invalid_request', status: 400, detail: 'account closed' });
    const rendered = ctx.refusalRenderer?.(problemBody(run.error as GatewayError, 'r'));
    expect(rendered?.mediaType).toBe('application/problem+json');
    expect(JSON.parse(rendered?.text ?? '{}')).toMatchObject({ errorMessage: 'account closed', code: 'invalid_request', status: 400 });
    expect(ctx.settled).toEqual(['refused']);
  });

  it("never passes on a core 4xx that is not a DTO (HTML, text): a catalogue problem with the core's words left out", async () => {
    const cases: Array<[string, string]> = [
      ['text/html', '<html><body><pre>NullReferenceException at D:\\cbs\\Receipts.cs:42 on cbs-app-03.internal</pre></body></html>'],
      ['text/plain', 'Server cbs-app-03.internal: /opt/cbs/receipts.dll'],
      ['application/problem+json', '{"type":"about:blank","title":"Not Found","status":404}'],
    ];
    for (const [contentType, text] of cases) {
      const ctx = depositContext();
      const run = await runStep(
        exchange({
          coreClient: coreAnswering({ status: contentType === 'application/problem+json' ? 404 : 400, contentType, body: Buffer.from(text) }),
          contracts,
        }),
        {},
        ctx,
      );
      expect(run.answer).toBeNull();
      expect(run.error).toMatchObject({ code: contentType === 'application/problem+json' ? 'not_found' : 'invalid_request' });
      expect(JSON.stringify(run.error)).not.toMatch(/cbs-app|Receipts\.cs|receipts\.dll/);
      expect(ctx.refusalRenderer).toBeNull();
      expect(ctx.settled).toEqual(['refused']);
    }
  });

  it("keeps the core's Retry-After on its 429 to a buffered route", async () => {
    const run = await runStep(exchange({ coreClient: coreAnswering({ ...json(429, '{}'), retryAfter: '30' }), contracts }), {}, depositContext());
    expect(run.error).toMatchObject({ code: 'rate_limited', headers: { 'Retry-After': '30' } });
  });

  it('settles as never sent when the request never reached the core (breaker open)', async () => {
    const ctx = depositContext();
    const run = await runStep(exchange({ coreClient: coreAnswering(new CoreCallError('core_unavailable', false)), contracts }), {}, ctx);
    expect(run.error).toMatchObject({ code: 'core_unavailable' });
    expect(ctx.settled).toEqual(['neverSent']);
  });

  it('settles as unknown and says so when the core may have posted (502 after sending)', async () => {
    const ctx = depositContext();
    const run = await runStep(exchange({ coreClient: coreAnswering(new CoreCallError('bad_gateway', true)), contracts }), {}, ctx);
    expect(run.error).toMatchObject({ code: 'bad_gateway', detail: expect.stringContaining('outcome is unknown') });
    expect(ctx.settled).toEqual(['unknown']);
  });

  it('settles as unknown on a timeout after sending, and the 504 gives the same outcome advice as the 502', async () => {
    const ctx = depositContext();
    const run = await runStep(exchange({ coreClient: coreAnswering(new CoreCallError('core_timeout', true)), contracts }), {}, ctx);
    expect(run.error).toMatchObject({
      code: 'core_timeout',
      status: 504,
      detail: 'The core banking system did not answer in time. Its outcome is unknown: check the account before posting again with a new key.',
    });
    expect(ctx.settled).toEqual(['unknown']);
  });

  it('settles as unknown when the core answers a money movement with something that is not a receipt (HTML 200)', async () => {
    const ctx = depositContext();
    const run = await runStep(
      exchange({ coreClient: coreAnswering({ status: 200, contentType: 'text/html', body: Buffer.from('<html></html>') }), contracts }),
      {},
      ctx,
    );
    expect(run.error).toMatchObject({ code: 'bad_gateway', detail: expect.stringContaining('outcome is unknown') });
    expect(ctx.settled).toEqual(['unknown']);
  });

  it('leaves routes whose body it did not parse to the forward step', async () => {
    const core = coreAnswering(json(200, '{}'));
    const run = await runStep(exchange({ coreClient: core, contracts }), {}, { ...newContext('r'), route: ACCOUNT });
    expect(run.passed).toBe(true);
    expect(core.sent).toEqual([]);
  });
});
