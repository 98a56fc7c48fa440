/**
 * The downloadable collection (`/docs/collection.json`), run as a vendor's CI would: with newman,
 * in its order, against a gateway in sandbox mode started fresh for each run (verification codes
 * are single-use and SMS sends limited to one a minute per number, so a run spends its sandbox).
 * Every request the demo key may make must answer 2xx; a failure names method, path, status and
 * body.
 *
 * The served collection takes its parameter and body examples from the served document; the
 * second run gives the generator a copy of that document with test-only examples
 * (test/fixtures/collection-examples.ts), so the generator's ordering, variables and fresh
 * references are proven whatever the document holds.
 */
import { buildCollection } from '../../src/openapi/collection';
import { withTestExamples } from '../fixtures/collection-examples';
import { startEchoCore } from '../support/echo-core';
import { SANDBOX_KEYS, demoKeyMay, startTestGateway, type TestGateway } from '../support/gateway';
import { runCollection, type CollectionCall } from '../support/postman-run';

/** The API ids of the document the demo key may make. */
function demoKeyApiIds(gateway: TestGateway): string[] {
  return Object.values(gateway.apiDocument.paths)
    .flatMap((methods) => Object.values(methods).map((op) => String(op['x-api-id'])))
    .filter(demoKeyMay(gateway));
}

const failuresOf = (answers: readonly CollectionCall[]): string[] =>
  answers.filter((a) => a.status < 200 || a.status > 299).map((a) => `${a.method} ${a.path} → ${a.status}: ${a.body.slice(0, 300)}`);

async function timed<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    process.stdout.write(`${label}: ${Math.round(performance.now() - started)} ms\n`);
  }
}

describe('the downloadable collection, run with newman against a fresh sandbox', () => {
  let gateway: TestGateway | undefined;
  afterEach(async () => {
    await gateway?.stop();
    gateway = undefined;
  });

  it('answers 2xx for every request the demo key may make, as served at /docs/collection.json', async () => {
    gateway = await startTestGateway();
    const served = await fetch(`${gateway.url}/docs/collection.json`);
    expect(served.status).toBe(200);
    const text = await served.text();
    const collection = JSON.parse(text) as { item: Array<{ item: unknown[] }> };
    const requests = collection.item.reduce((count, folder) => count + folder.item.length, 0);
    expect(requests).toBe(demoKeyApiIds(gateway).length);
    const answers = await timed(`newman, served collection (${text.length} bytes, ${requests} requests)`, () => runCollection(collection));
    expect(answers).toHaveLength(requests);
    const failures = failuresOf(answers);
    expect({ failed: failures.length, of: answers.length, failures }).toEqual({ failed: 0, of: answers.length, failures: [] });
  }, 120_000);

  it('answers 2xx for every request when the document carries examples (test fixture), the add feeding the bank-account read and update', async () => {
    gateway = await startTestGateway();
    const index = gateway.access.index;
    const known = index?.authenticate(SANDBOX_KEYS.demo);
    if (!index || !known?.ok) throw new Error('the sandbox access document does not hold the demo key');
    const collection = buildCollection(withTestExamples(gateway.apiDocument), gateway.url, {
      token: SANDBOX_KEYS.demo,
      mayCall: (apiId) => index.authorize(known.principal, known.vendor, apiId) === null,
    });
    const answers = await timed('newman, fixture examples', () => runCollection(collection));
    expect(answers).toHaveLength(demoKeyApiIds(gateway).length);
    expect(failuresOf(answers)).toEqual([]);
    const bankAccount = answers.filter((a) => a.path.startsWith('/bankaccounts/'));
    expect(bankAccount.map((a) => `${a.method} ${a.status}`)).toEqual(['POST 200', 'POST 201', 'GET 200', 'PUT 200']);
    const created = JSON.parse(bankAccount[1]?.body ?? '{}') as { Id: number };
    expect(bankAccount.slice(2).map((a) => a.path)).toEqual([`/bankaccounts/${created.Id}`, `/bankaccounts/${created.Id}`]);
  }, 120_000);

  it('with a real core carries no key, even one the access document knows, and lists every operation', async () => {
    const core = await startEchoCore();
    try {
      gateway = await startTestGateway({ core: { url: core.url } });
      expect(gateway.access.index?.authenticate(SANDBOX_KEYS.demo).ok).toBe(true);
      const text = await (await fetch(`${gateway.url}/docs/collection.json`)).text();
      expect(text).not.toContain('cbk_');
      const collection = JSON.parse(text) as { item: Array<{ item: unknown[] }>; variable: unknown[] };
      expect(collection.variable).toContainEqual({ key: 'vendorToken', value: '', type: 'string' });
      const operations = Object.values(gateway.apiDocument.paths).reduce((count, methods) => count + Object.keys(methods).length, 0);
      expect(collection.item.reduce((count, folder) => count + folder.item.length, 0)).toBe(operations);
      expect(core.requests).toEqual([]);
    } finally {
      await gateway?.stop();
      gateway = undefined;
      await core.close();
    }
  });
});
