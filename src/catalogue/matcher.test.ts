import { ROUTES } from './api-catalogue';
import { RouteMatcher } from './matcher';

const matcher = new RouteMatcher(ROUTES);

function apiIdOf(method: string, path: string): string | null {
  const result = matcher.match(method, path);
  return result.kind === 'matched' ? result.route.apiId : null;
}

describe('RouteMatcher', () => {
  it.each([
    ['GET', '/accounts', 'GETaccounts'],
    ['GET', '/accounts/', 'GETaccounts'],
    ['GET', '/accounts/17', 'GETaccounts/{accountId}'],
    ['GET', '/accounts/17/', 'GETaccounts/{accountId}'],
    ['GET', '/Accounts/17/Transactions', 'GETaccounts/{accountId}/transactions'],
    ['POST', '/api/transaction/savings/deposit', 'POSTapi/transaction/savings/deposit'],
    ['POST', '/bankaccounts/add', 'POSTbankaccounts/add'],
    ['POST', '/bankaccounts/verification', 'POSTbankaccounts/verification'],
    ['GET', '/bankaccounts/add', 'GETbankaccounts/{id}'],
    ['PUT', '/bankaccounts/9', 'PUTbankaccounts/{bankaccountid}'],
    ['GET', '/customers/5/bankaccounts', 'GETcustomers/{memberId}/bankaccounts'],
    ['GET', '/banks', 'GETbanks'],
    ['DELETE', '/people/12', 'DELETEpeople/{memberId}'],
  ])('matches %s %s to %s', (method, path, apiId) => {
    expect(apiIdOf(method, path)).toBe(apiId);
  });

  it('binds path parameters under the names the spec gives', () => {
    const result = matcher.match('PUT', '/bankaccounts/77');
    expect(result.kind === 'matched' && result.params).toEqual({ bankaccountid: '77' });
    const get = matcher.match('GET', '/bankaccounts/77');
    expect(get.kind === 'matched' && get.params).toEqual({ id: '77' });
  });

  it.each([
    '/',
    '',
    'accounts',
    '/nothing',
    '/accounts/1/2/3',
    '//accounts',
    '/accounts//1',
    '/banks/1',
    '/api/transaction',
    '/customers/../accounts',
    '/customers/%2e%2e/accounts',
    '/customers/%2E./accounts',
    '/customers/./accounts',
    '/accounts/1%2f..%2ftransactions',
    '/accounts/1%5C..',
    '/accounts/..\\x',
  ])('does not match %j', (path) => {
    expect(matcher.match('GET', path).kind).toBe('not_found');
  });

  it('answers method_not_allowed with every method the path accepts', () => {
    expect(matcher.match('PATCH', '/accounts/1')).toEqual({ kind: 'method_not_allowed', allow: ['DELETE', 'GET', 'HEAD', 'PUT'] });
    expect(matcher.match('GET', '/api/transaction/loan/reversal')).toEqual({ kind: 'method_not_allowed', allow: ['POST'] });
    expect(matcher.match('DELETE', '/banks')).toEqual({ kind: 'method_not_allowed', allow: ['GET', 'HEAD'] });
  });

  it('matches HEAD as the GET route of the path (HEAD is GET without the body)', () => {
    const head = matcher.match('HEAD', '/accounts/1');
    expect(head).toMatchObject({ kind: 'matched', route: { apiId: 'GETaccounts/{accountId}' }, params: { accountId: '1' } });
    expect(matcher.match('HEAD', '/api/transaction/loan/reversal')).toEqual({ kind: 'method_not_allowed', allow: ['POST'] });
  });

  it('refuses two routes with the same method and shape', () => {
    const [first] = ROUTES;
    expect(() => new RouteMatcher([first!, { ...first!, apiId: 'dup' }])).toThrow(/duplicate route/);
  });
});
