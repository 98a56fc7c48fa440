import { ROUTES, type Route } from '../catalogue/api-catalogue';
import { buildCoreTarget, splitRequestTarget } from './core-target';

function route(apiId: string): Route {
  const found = ROUTES.find((r) => r.apiId === apiId);
  if (!found) throw new Error(`no route ${apiId}`);
  return found;
}

const ACCOUNT = route('GETaccounts/{accountId}');
const ACCOUNTS = route('GETaccounts');
const BETWEEN = route('GETtransactions/{memberId}/between');
const DEPOSIT = route('POSTapi/transaction/savings/deposit');

describe('splitRequestTarget', () => {
  it.each([
    ['/accounts/1', { path: '/accounts/1', query: '' }],
    ['/accounts?page=2', { path: '/accounts', query: 'page=2' }],
    ['http://evil.example:9999/accounts/1?x=1', { path: '/accounts/1', query: 'x=1' }],
    ['HTTPS://evil.example', { path: '/', query: '' }],
  ])('splits %s into the path and query the gateway reads, authority dropped', (target, expected) => {
    expect(splitRequestTarget(target)).toEqual(expected);
  });

  it.each(['http://user:pw@evil.example/accounts/1', '/accounts/1#frag', '*', 'accounts/1', 'ftp://evil.example/accounts', 'http://evil.example?x=1'])(
    'refuses %s',
    (target) => {
      expect(splitRequestTarget(target)).toBeNull();
    },
  );
});

describe('buildCoreTarget', () => {
  it('builds the route path from checked parameters and sends no query when none is given', () => {
    expect(buildCoreTarget(ACCOUNT, { accountId: '50001' }, '/accounts/50001')).toEqual({ ok: true, target: '/accounts/50001' });
  });

  it('decodes a path parameter and keeps it only when it needs no encoding', () => {
    expect(buildCoreTarget(ACCOUNT, { accountId: 'A%2D1' }, '/accounts/A%2D1')).toEqual({ ok: true, target: '/accounts/A-1' });
  });

  it.each(['..', '.', '%2e%2e', 'a%2fb', 'a%20b', '%zz', 'x'.repeat(65)])('refuses the path parameter %s', (value) => {
    const result = buildCoreTarget(ACCOUNT, { accountId: value }, `/accounts/${value}`);
    expect(result).toMatchObject({ ok: false, errors: [{ field: 'accountId' }] });
  });

  it('re-encodes declared query parameters under their canonical names, in the order given', () => {
    const result = buildCoreTarget(ACCOUNTS, {}, '/accounts?PageSize=05&SORT=balance&paged=TRUE&ascending=false');
    expect(result).toEqual({ ok: true, target: '/accounts?pageSize=5&sort=balance&paged=true&ascending=false' });
  });

  it('accepts a period of dates or datetimes without zone on between, and nothing else', () => {
    expect(buildCoreTarget(BETWEEN, { memberId: '10001' }, '/transactions/10001/between?from=2024-03-01&to=2024-03-31T23:59:59')).toEqual({
      ok: true,
      target: '/transactions/10001/between?from=2024-03-01&to=2024-03-31T23%3A59%3A59',
    });
    expect(buildCoreTarget(BETWEEN, { memberId: '10001' }, '/transactions/10001/between?from=2024-13-01')).toMatchObject({
      ok: false,
      errors: [{ field: 'from' }],
    });
  });

  it('names every bad part at once: an unknown parameter, a repeated one and a wrong type', () => {
    const result = buildCoreTarget(ACCOUNTS, {}, '/accounts?expand=all&page=1&page=2&paged=maybe');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => e.field)).toEqual(['expand', 'page', 'paged', 'paged']);
  });

  it('refuses page or pageSize without paged=true, which the core would silently ignore', () => {
    expect(buildCoreTarget(ACCOUNTS, {}, '/accounts?page=2')).toMatchObject({
      ok: false,
      errors: [{ field: 'paged', message: 'page and pageSize apply only with paged=true' }],
    });
    expect(buildCoreTarget(ACCOUNTS, {}, '/accounts?paged=false&pageSize=5')).toMatchObject({ ok: false, errors: [{ field: 'paged' }] });
    expect(buildCoreTarget(ACCOUNTS, {}, '/accounts?paged=true&pageSize=5')).toEqual({ ok: true, target: '/accounts?paged=true&pageSize=5' });
  });

  it('refuses any query on a money movement, which declares none', () => {
    expect(buildCoreTarget(DEPOSIT, {}, '/api/transaction/savings/deposit?amount=1')).toMatchObject({
      ok: false,
      errors: [{ field: 'amount', message: expect.stringContaining('takes no query parameters') }],
    });
  });

  it('echoes at most 40 characters of a bad name or value', () => {
    const result = buildCoreTarget(ACCOUNTS, {}, `/accounts?${'n'.repeat(200)}=1&page=${'9'.repeat(200)}`);
    expect(JSON.stringify(result).length).toBeLessThan(600);
  });

  it('refuses a target with a fragment or userinfo as a whole', () => {
    expect(buildCoreTarget(ACCOUNT, { accountId: '1' }, '/accounts/1#x')).toMatchObject({ ok: false, errors: [{ field: 'request-target' }] });
  });
});
