/**
 * The vendor portal's request log holds metadata only. Every catalogue operation the demo key may
 * make (the collection with the test examples, run by newman, as collection-run.test.ts does) and
 * a few refusals go through a gateway with Redis and the sandbox core; then every request-log key
 * in Redis is read whole and must hold:
 * - only the shape the log writes: per entry the request id and `delay|apiId|status|durationMs|
 *   upstreamStatus|upstreamMs|keyPrefix|code` (stored-entry.ts), each string one the test can name (a call's
 *   X-Request-Id, a catalogue API id, the key's prefix, an error code), so no body, path or
 *   customer identifier has anywhere to be;
 * - none of the secrets and identifiers the calls carried (the API key, X-Vendor-Token, the
 *   idempotency keys, phone numbers, names, account numbers and emails of the requests and answers);
 * - and each authenticated call, found by its X-Request-Id with its API id and status; the
 *   unauthenticated one is not there.
 */
import Redis from 'ioredis';
import { ROUTES } from '../../src/catalogue/api-catalogue';
import { RouteMatcher } from '../../src/catalogue/matcher';
import type { RequestLogEntry } from '../../src/portal/request-log/request-log';
import { fromStored } from '../../src/portal/request-log/stored-entry';
import { ERROR_CATALOGUE } from '../../src/errors/error-catalogue';
import { buildCollection } from '../../src/openapi/collection';
import { withTestExamples } from '../fixtures/collection-examples';
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';
import { runCollection, type CollectionCall } from '../support/postman-run';
import { within } from '../support/within';

jest.setTimeout(120_000);

const REDIS_URL = process.env.TEST_REDIS_URL as string;
const keyPrefix = `reqlog${process.pid}:`;

/** A value a request or answer carried that names or reaches a customer (or is a secret): never in the log. */
const SENSITIVE_KEY = /id$|name|number|email|phone|mobile|iban|sortcode|address|street|town|city|postcode|^code$|token|password|description|notes?$|reference/i;

function sensitiveValues(json: unknown, into: Set<string>, underKey = ''): void {
  if (Array.isArray(json)) for (const item of json) sensitiveValues(item, into, underKey);
  else if (json !== null && typeof json === 'object') {
    for (const [key, value] of Object.entries(json as Record<string, unknown>)) sensitiveValues(value, into, key);
  } else if ((typeof json === 'string' || typeof json === 'number') && String(json).trim().length >= 4 && SENSITIVE_KEY.test(underKey)) {
    into.add(String(json));
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

interface Call {
  readonly requestId: string;
  readonly apiId: string;
  readonly status: number;
}

describe('the request log after every catalogue operation', () => {
  let gateway: TestGateway;
  let redis: Redis;
  const calls: Call[] = [];
  const secrets = new Set<string>([SANDBOX_KEYS.demo]);
  let unauthenticatedId = '';

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    gateway = await startTestGateway({ redis: { url: REDIS_URL, keyPrefix, seedAccessFile: 'always' }, portal: { requestLog: { flushIntervalMs: 50 } } });
    const index = gateway.access.index;
    const known = index?.authenticate(SANDBOX_KEYS.demo);
    if (!index || !known?.ok) throw new Error('the access document does not hold the demo key');
    const collection = buildCollection(withTestExamples(gateway.apiDocument), gateway.url, {
      token: SANDBOX_KEYS.demo,
      mayCall: (apiId) => index.authorize(known.principal, known.vendor, apiId) === null,
    });
    const answers: CollectionCall[] = await runCollection(collection);
    expect(answers.filter((a) => a.status < 200 || a.status > 299).map((a) => `${a.method} ${a.path} ${a.status}`)).toEqual([]);
    const matcher = new RouteMatcher(ROUTES);
    for (const answer of answers) {
      const matched = matcher.match(answer.method, answer.path.split('?')[0] as string);
      if (matched.kind !== 'matched') throw new Error(`${answer.method} ${answer.path} matches no route`);
      calls.push({ requestId: answer.requestId, apiId: matched.route.apiId, status: answer.status });
      for (const [name, value] of Object.entries(answer.sentHeaders)) {
        if (!['accept', 'content-type', 'content-length', 'host', 'user-agent', 'accept-encoding', 'connection', 'cache-control'].includes(name))
          secrets.add(value);
      }
      sensitiveValues(parsed(answer.sentBody), secrets);
      sensitiveValues(parsed(answer.body), secrets);
    }
    // Refusals: the core's (an account that does not exist), the gateway's (a body it cannot read), and no key at all.
    for (const [method, path, apiId, body] of [
      ['GET', '/accounts/99999999', 'GETaccounts/{accountId}', undefined],
      ['POST', '/bankaccounts/add', 'POSTbankaccounts/add', '{"Name":"Refused Person","AccountNumber":"87654321"'],
      ['GET', '/customers/10001', 'GETcustomers/{id}', undefined],
    ] as const) {
      const res = await fetch(`${gateway.url}${path}`, {
        method,
        headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo, 'content-type': 'application/json' },
        ...(body ? { body } : {}),
      });
      // The answer is the gateway's problem (its code and request id belong in the log) or a record, whose identifiers are taken.
      const text = await res.text();
      if (res.ok) sensitiveValues(parsed(text), secrets);
      calls.push({ requestId: res.headers.get('x-request-id') ?? '', apiId, status: res.status });
    }
    secrets.add('Refused Person');
    secrets.add('87654321');
    const anonymous = await fetch(`${gateway.url}/accounts/50001`, { headers: { 'X-Vendor-Token': 'cbk_notAKeyAtAll_000000' } });
    await anonymous.arrayBuffer();
    unauthenticatedId = anonymous.headers.get('x-request-id') ?? '';
    expect(anonymous.status).toBe(401);
  });

  afterAll(async () => {
    await gateway?.stop();
    await redis?.quit();
  });

  it('holds only the metadata shape, each value one the test can name, and no secret or customer identifier', async () => {
    const requestIds = new Set(calls.map((c) => c.requestId));
    await within(5000, async () => (await redis.hlen(`${keyPrefix}{reqlog:${gatewayVendor(gateway)}}:ids`)) >= requestIds.size);
    const keys = await redis.keys(`${keyPrefix}{reqlog*`);
    expect(keys.sort()).toEqual(
      [`${keyPrefix}{reqlog:${gatewayVendor(gateway)}}:ids`, `${keyPrefix}{reqlog:${gatewayVendor(gateway)}}:log`, `${keyPrefix}{reqlog}:vendors`].sort(),
    );
    const apiIds = new Set(ROUTES.map((r) => r.apiId));
    const codes = new Set(Object.keys(ERROR_CATALOGUE));
    const prefix = demoKeyPrefix(gateway);
    /** Everything stored, and apart from it the stored strings that are neither a request id nor a log id. */
    const stored: string[] = [];
    const named: string[] = [];
    for (const key of keys) {
      const type = await redis.type(key);
      if (type === 'stream') {
        for (const [id, fields] of await redis.xrange(key, '-', '+')) {
          stored.push(id, ...fields);
          expect(fields.filter((_, i) => i % 2 === 0)).toEqual(['r', 'e']);
          expect(requestIds.has(fields[1] as string)).toBe(true);
          const value = (fields[3] as string).split('|');
          expect(value).toHaveLength(8);
          const [delayMs, apiId, status, durationMs, upstreamStatus, upstreamMs, keyPrefixValue, code] = value as [
            string,
            string,
            string,
            string,
            string,
            string,
            string,
            string,
          ];
          expect(Math.abs(Number.parseInt(id, 10) - Number(delayMs) - Date.now())).toBeLessThan(600_000);
          expect(apiIds.has(apiId)).toBe(true);
          expect([status, durationMs].every((n) => /^\d+(\.\d+)?$/.test(n))).toBe(true);
          expect([upstreamStatus, upstreamMs].every((n) => /^(\d+(\.\d+)?)?$/.test(n))).toBe(true);
          expect(keyPrefixValue).toBe(prefix);
          expect(code === '' || codes.has(code)).toBe(true);
          named.push(apiId, keyPrefixValue, code);
        }
      } else {
        expect(type).toBe('hash');
        const hash = await redis.hgetall(key);
        for (const [field, value] of Object.entries(hash)) {
          stored.push(field, value);
          if (key.endsWith(':ids')) {
            expect(requestIds.has(field)).toBe(true);
            expect(value).toMatch(/^\d+-\d+$/);
          } else {
            expect(field).toBe(gatewayVendor(gateway));
            named.push(field);
            expect(value).toMatch(/^\d+$/);
          }
        }
      }
    }
    const text = stored.join('\n');
    expect(secrets.size).toBeGreaterThan(50);
    expect(calls.length).toBeGreaterThan(50);
    // Digits alone may occur inside a time or a random request id: long secrets are looked for everywhere, the rest in the named strings.
    expect([...secrets].filter((secret) => named.some((value) => value.includes(secret)) || (secret.length >= 12 && text.includes(secret)))).toEqual([]);
    expect(text).not.toContain(unauthenticatedId);
  });

  it("finds each call by its X-Request-Id under the key's vendor, with its API id and status", async () => {
    const apiIds = new Set(ROUTES.map((r) => r.apiId));
    const page = await redis.hlen(`${keyPrefix}{reqlog:${gatewayVendor(gateway)}}:ids`);
    expect(page).toBe(calls.length);
    expect(calls.filter((call) => !apiIds.has(call.apiId))).toEqual([]);
    for (const call of calls) {
      const id = await redis.hget(`${keyPrefix}{reqlog:${gatewayVendor(gateway)}}:ids`, call.requestId);
      const [row] = await redis.xrange(`${keyPrefix}{reqlog:${gatewayVendor(gateway)}}:log`, id as string, id as string);
      const { requestId, apiId, status } = fromStored(call.requestId, id as string, (row as [string, string[]])[1][3] as string);
      expect({ requestId, apiId, status }).toEqual(call);
    }
    // The refusals: the core's 404 with its status and the catalogue code; the gateway's 400 without the core.
    const entryOf = async (call: Call): Promise<RequestLogEntry> => {
      const id = (await redis.hget(`${keyPrefix}{reqlog:${gatewayVendor(gateway)}}:ids`, call.requestId)) as string;
      const [row] = await redis.xrange(`${keyPrefix}{reqlog:${gatewayVendor(gateway)}}:log`, id, id);
      return fromStored(call.requestId, id, (row as [string, string[]])[1][3] as string);
    };
    const [notFound, badBody] = calls.slice(-3);
    const keyPrefixValue = demoKeyPrefix(gateway);
    expect(await entryOf(notFound as Call)).toEqual({
      at: expect.any(String),
      requestId: (notFound as Call).requestId,
      apiId: 'GETaccounts/{accountId}',
      status: 404,
      durationMs: expect.any(Number),
      upstreamStatus: 404,
      upstreamMs: expect.any(Number),
      keyPrefix: keyPrefixValue,
      code: 'not_found',
    });
    expect(await entryOf(badBody as Call)).toEqual({
      at: expect.any(String),
      requestId: (badBody as Call).requestId,
      apiId: 'POSTbankaccounts/add',
      status: 400,
      durationMs: expect.any(Number),
      keyPrefix: keyPrefixValue,
      code: 'invalid_request',
    });
  });
});

function demoKeyPrefix(gateway: TestGateway): string | undefined {
  const known = gateway.access.index?.authenticate(SANDBOX_KEYS.demo);
  if (!known?.ok) throw new Error('the demo key is not known');
  return gateway.access.index?.key(known.principal.keyId)?.prefix;
}

function gatewayVendor(gateway: TestGateway): string {
  const known = gateway.access.index?.authenticate(SANDBOX_KEYS.demo);
  if (!known?.ok) throw new Error('the demo key is not known');
  return known.principal.vendorId;
}
