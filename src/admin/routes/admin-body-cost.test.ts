/**
 * An admin body costs nothing until its checks hold, over raw sockets: the credential-free
 * routes take small bodies and answer 413 from `Content-Length` alone; every write checks the
 * role before the body is read; a refusal of an unread body closes the connection; and JSON or
 * YAML nested deeper than MAX_BODY_DEPTH is refused before a parser builds it.
 */
import request from 'supertest';
import type { Listening } from '../../../test/support/listen';
import { SANDBOX_ADMIN_TOKEN, startSandboxAdmin } from '../../../test/support/sandbox-admin';
import { rawExchange, rawRequest, type RawExchange } from '../../../test/support/raw-http';
import { MAX_BODY_DEPTH } from './body-guard';

const TOKEN = SANDBOX_ADMIN_TOKEN;

let server: Listening;
let tokens: Record<string, string>;

beforeAll(async () => {
  ({ server, tokens } = await startSandboxAdmin(['viewer', 'operator'], 'cost', { maxDocumentBytes: 4 * 1024 * 1024 }));
});
afterAll(() => server.close());

/** Headers only: a request that announces `length` bytes of body and sends none of them. */
function headersOnly(method: string, target: string, length: number, token?: string, type = 'application/json'): string {
  return rawRequest([
    `${method} ${target} HTTP/1.1`,
    'Host: 127.0.0.1',
    ...(token ? [`Authorization: Bearer ${token}`] : []),
    `Content-Type: ${type}`,
    `Content-Length: ${length}`,
  ]);
}

/** A whole request with `body`. */
function withBody(method: string, target: string, body: string, token?: string, type = 'application/json'): string {
  return rawRequest(
    [
      `${method} ${target} HTTP/1.1`,
      'Host: 127.0.0.1',
      ...(token ? [`Authorization: Bearer ${token}`] : []),
      `Content-Type: ${type}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
    ],
    body,
  );
}

/** Answered within `ms` and closed: the body was never waited for. */
async function answeredUnread(bytes: string, ms = 1500): Promise<RawExchange> {
  const started = performance.now();
  const exchange = await rawExchange(server.port, bytes, { timeoutMs: 3000 });
  expect(exchange.closed).toBe(true);
  expect(performance.now() - started).toBeLessThan(ms);
  return exchange;
}

const nestedJson = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
const problem = (exchange: RawExchange): { code?: string; errors?: { field: string }[] } => JSON.parse(exchange.responses[0]?.body ?? '{}');

describe('credential-free bodies', () => {
  it.each([['/v1/admins/enrol'], ['/ui/session']])('answers a 50 MB Content-Length to %s with 413 from the headers, and closes', async (route) => {
    const exchange = await answeredUnread(headersOnly('POST', route, 50 * 1024 * 1024));
    expect(exchange.responses.map((r) => r.status)).toEqual([413]);
    expect(problem(exchange).code).toBe('payload_too_large');
  });

  it('takes at most 1 KiB to POST /v1/admins/enrol', async () => {
    const body = JSON.stringify({ enrolmentCode: 'cbe_x', pad: 'y'.repeat(1100) });
    const exchange = await answeredUnread(headersOnly('POST', '/v1/admins/enrol', Buffer.byteLength(body)));
    expect(exchange.responses.map((r) => r.status)).toEqual([413]);
  });

  it('refuses an enrolment body nested deeper than the limit (400, field body) before parsing it', async () => {
    const exchange = await rawExchange(server.port, withBody('POST', '/v1/admins/enrol', nestedJson(MAX_BODY_DEPTH + 1)));
    expect(exchange.responses.map((r) => r.status)).toEqual([400]);
    expect(problem(exchange)).toMatchObject({ code: 'invalid_request', errors: [{ field: 'body' }] });
  });

  it('closes the connection of a request refused for its credential without reading its body (401)', async () => {
    const exchange = await answeredUnread(headersOnly('POST', '/v1/vendors', 900_000));
    expect(exchange.responses.map((r) => r.status)).toEqual([401]);
  });
});

describe('the role before the body', () => {
  // Every admin route that takes a body, with a role that may not use it.
  it.each([
    ['POST', '/v1/vendors', 'viewer'],
    ['PATCH', '/v1/vendors/demo', 'viewer'],
    ['PUT', '/v1/vendors/demo/rate-limit', 'viewer'],
    ['POST', '/v1/vendors/demo/keys', 'viewer'],
    ['PATCH', '/v1/keys/k1', 'viewer'],
    ['POST', '/v1/vendors/demo/licences', 'viewer'],
    ['POST', '/v1/users/u1/permissions', 'viewer'],
    ['POST', '/v1/changes', 'viewer'],
    ['POST', '/v1/admins', 'operator'],
    ['PATCH', '/v1/admins/cost-viewer', 'operator'],
    ['PUT', '/v1/access', 'viewer'],
  ])('%s %s by a %s: 403 from the headers, the announced body never read', async (method, route, role) => {
    const exchange = await answeredUnread(headersOnly(method, route, 900_000, tokens[role]));
    expect(exchange.responses.map((r) => r.status)).toEqual([403]);
    expect(problem(exchange).code).toBe('permission_denied');
  });

  it('answers 413 to an operator’s write whose Content-Length is over 1 MB, from the headers', async () => {
    const exchange = await answeredUnread(headersOnly('POST', '/v1/vendors', 60 * 1024 * 1024, tokens.operator));
    expect(exchange.responses.map((r) => r.status)).toEqual([413]);
  });
});

describe('nesting depth', () => {
  it(`refuses JSON nested ${MAX_BODY_DEPTH + 1} deep and passes ${MAX_BODY_DEPTH} on to validation`, async () => {
    const deep = await rawExchange(server.port, withBody('POST', '/v1/vendors', nestedJson(MAX_BODY_DEPTH + 1), tokens.operator));
    expect(deep.responses.map((r) => r.status)).toEqual([400]);
    expect(problem(deep).errors).toEqual([expect.objectContaining({ field: 'body' })]);
    const deepest = await rawExchange(server.port, withBody('POST', '/v1/vendors', nestedJson(MAX_BODY_DEPTH), tokens.operator));
    expect(deepest.responses.map((r) => r.status)).toEqual([400]);
    expect(problem(deepest).errors?.map((e) => e.field)).not.toContain('body');
  });

  it('does not count brackets inside strings', async () => {
    const body = JSON.stringify({ id: 'brackets', name: `[{"\\${'['.repeat(90)}` });
    const exchange = await rawExchange(server.port, withBody('POST', '/v1/vendors', body, tokens.operator));
    expect(exchange.responses.map((r) => r.status)).toEqual([201]);
    // YAML's quoting rules are YAML's own lexer's: brackets in a quoted scalar open nothing.
    const exported = await request(server.url).get('/v1/access').set('Authorization', `Bearer ${TOKEN}`).set('Accept', 'application/yaml');
    const yaml = `# ${'['.repeat(100)}\n${exported.text}`.replace(/^vendors:/m, `note: '${'{'.repeat(100)}'\nvendors:`);
    const upload = await rawExchange(server.port, withBody('PUT', '/v1/access?dryRun=true', yaml, tokens.operator, 'application/yaml'));
    expect(problem(upload).errors?.map((e) => e.field) ?? []).not.toContain('body');
  });

  it.each([
    ['JSON', 'application/json', nestedJson(100_000)],
    ['YAML flow', 'application/yaml', `vendors: ${nestedJson(100_000)}\n`],
    ['YAML compact block', 'application/yaml', `vendors:\n  ${'- '.repeat(100_000)}x\n`],
  ])('refuses a whole document of %s nested 100,000 deep (400, field body) at once', async (_kind, type, body) => {
    const started = performance.now();
    const exchange = await rawExchange(server.port, withBody('PUT', '/v1/access?dryRun=true', body, tokens.operator, type));
    expect(exchange.responses.map((r) => r.status)).toEqual([400]);
    expect(problem(exchange).errors).toEqual([expect.objectContaining({ field: 'body' })]);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('still refuses a YAML alias bomb (400)', async () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 9; i++)
      lines.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(97 + i)}`)
          .join(',')}]`,
      );
    const started = performance.now();
    const exchange = await rawExchange(server.port, withBody('PUT', '/v1/access?dryRun=true', `${lines.join('\n')}\n`, tokens.operator, 'application/yaml'));
    expect(exchange.responses.map((r) => r.status)).toEqual([400]);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
