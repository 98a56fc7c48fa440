import request from 'supertest';
import { ROUTES } from '../catalogue/api-catalogue';
import { createSandboxApp } from './app';
import { createSandboxData } from './data';

const data = createSandboxData(42);
const app = createSandboxApp({ data });

/** A seeded id for every path parameter name the catalogue uses, chosen per resource. */
function samplePath(template: string): string {
  const member = data.customers.list()[0]!.Number;
  const samples: Record<string, string> = {
    'accounts/{accountId}': '50001',
    'addresses/{id}': '1',
    'branches/{branchId}': '1',
    'countrycodes/{countryCodesId}': '1',
    'customers/{id}': String(member),
    'customers/{memberId}': String(member),
    'employers/{employersId}': '1',
    'genders/{genderId}': '1',
    'loanproducts/{id}': '101',
    'loanreasons/{id}': '1',
    'loanrepaymentperiods/{id}': '1',
    'messages/{id}': '1',
    'messagethread/{id}': '1',
    'messagethreads/{id}': '1',
    'people/{memberId}': String(member),
    'productshares/{productSharesId}': '1',
    'titles/{titleId}': '1',
    'transactions/{memberId}': String(member),
    'bankaccounts/{id}': '1',
  };
  const segments = template.split('/');
  const filled = segments.map((segment, i) => (segment.startsWith('{') ? (samples[`${segments[i - 1]}/${segment}`] ?? 'unknown-parameter') : segment));
  const query = template.endsWith('/between') ? '?from=2024-01-01&to=2025-06-30' : '';
  return `/${filled.join('/')}${query}`;
}

describe('sandbox routing', () => {
  it.each(ROUTES.filter((r) => r.method === 'GET').map((r) => [r.apiId, samplePath(r.path)] as const))('serves %s (%s) with 200', async (_apiId, path) => {
    await request(app).get(path).expect(200);
  });

  it('matches paths case-insensitively, with or without a trailing slash', async () => {
    const plain = (await request(app).get('/accounts/50001').expect(200)).text;
    expect((await request(app).get('/ACCOUNTS/50001/').expect(200)).text).toBe(plain);
    expect((await request(app).get('/Customers/10001/Accounts/').expect(200)).body).toEqual((await request(app).get('/customers/10001/accounts')).body);
  });

  it('answers an unknown path with a 404 problem', async () => {
    const response = await request(app).get('/no/such/path').expect(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body).toEqual({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'no resource at /no/such/path' });
  });

  it('answers a wrong method on a known path with 405 and Allow', async () => {
    const response = await request(app).patch('/accounts/50001').expect(405);
    expect(response.headers.allow).toBe('DELETE, GET, HEAD, PUT');
    await request(app).post('/banks').expect(405);
  });

  it('leaves bank-account verification to the gateway, which answers it itself', async () => {
    expect(ROUTES.filter((route) => route.answeredByGateway).map((route) => route.apiId)).toEqual(['POSTbankaccounts/verification']);
    await request(app).post('/bankaccounts/verification').send({}).expect(405);
  });

  it('answers HEAD like GET, without a body', async () => {
    const response = await request(app).head('/genders').expect(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });

  it('does not advertise Express', async () => {
    const response = await request(app).get('/genders').expect(200);
    expect(response.headers['x-powered-by']).toBeUndefined();
  });

  it('answers an unexpected failure with a bare 500 problem and reports it to onError', async () => {
    const broken = createSandboxData(42);
    broken.genders.list = () => {
      throw new Error('secret internal detail');
    };
    const seen: unknown[] = [];
    const response = await request(createSandboxApp({ data: broken, onError: (e) => seen.push(e) }))
      .get('/genders')
      .expect(500);
    expect(response.body).toEqual({
      type: 'about:blank',
      title: 'Internal Server Error',
      status: 500,
      detail: 'the sandbox core failed to answer this request',
    });
    expect(response.text).not.toContain('secret');
    expect(seen).toHaveLength(1);
  });

  it('answers the same request the same way for the same seed', async () => {
    const other = createSandboxApp({ data: createSandboxData(42) });
    for (const path of ['/accounts', '/transactions/10001', '/banks?page=2']) {
      expect((await request(other).get(path).set('Host', 'sandbox')).text).toBe((await request(app).get(path).set('Host', 'sandbox')).text);
    }
  });
});
