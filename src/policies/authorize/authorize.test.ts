import { AccessCache } from '../../access/cache';
import { MemoryAccessStore } from '../../access/access-store';
import type { AccessDeniedReason } from '../../access/access-index';
import { ROUTES } from '../../catalogue/api-catalogue';
import { RouteMatcher } from '../../catalogue/matcher';
import { createLogger } from '../../logging/logger';
import { newContext, type RequestContext } from '../../request/context';
import { testKey } from '../../../test/support/access-fixture';
import { runStep } from '../../../test/support/step-harness';
import { authorize } from './authorize';

const reader = testKey('k-reader', 'reader');
const DOCUMENT = {
  vendors: [
    {
      id: 'acme',
      name: 'Acme',
      status: 'active' as const,
      rateLimit: { points: 10, durationSeconds: 60 },
      licences: [{ id: 'l', api: 'GET*' }],
      keys: [reader.record],
    },
    { id: 'gone', name: 'Gone', status: 'suspended' as const, rateLimit: { points: 10, durationSeconds: 60 }, licences: [{ id: 'l', api: '*' }], keys: [] },
  ],
  users: [{ id: 'reader', permissions: [{ id: 'p', api: 'GETaccounts*' }] }],
};
const matcher = new RouteMatcher(ROUTES);

describe('authorize step', () => {
  const access = new AccessCache(new MemoryAccessStore(DOCUMENT), createLogger('silent'));
  const denials: AccessDeniedReason[] = [];
  const step = authorize({ access, onDenied: (reason) => denials.push(reason) });
  beforeAll(() => access.start());
  afterAll(() => access.stop());
  beforeEach(() => (denials.length = 0));

  /** The context after route matching and authentication: `vendorId` calling `method path` as user `reader`. */
  function called(method: string, path: string, vendorId = 'acme'): RequestContext {
    const index = access.index;
    const match = matcher.match(method, path);
    const vendor = index?.vendor(vendorId) ?? null;
    return {
      ...newContext('r'),
      match,
      route: match.kind === 'matched' ? match.route : null,
      principal: { vendorId, vendorName: vendorId, keyId: 'k', userId: 'reader', certificateThumbprints: [] },
      vendor,
    };
  }

  it('lets a call through that the vendor is licensed and the user permitted for', async () => {
    expect((await runStep(step, {}, called('GET', '/accounts/7'))).passed).toBe(true);
  });

  it('answers 404 for a path the catalogue does not know', async () => {
    expect((await runStep(step, {}, called('GET', '/nowhere'))).error).toMatchObject({ code: 'not_found' });
  });

  it('answers 405 with Allow for a known path and a wrong method', async () => {
    expect((await runStep(step, {}, called('PATCH', '/accounts/7'))).error).toMatchObject({
      code: 'method_not_allowed',
      headers: { Allow: 'DELETE, GET, HEAD, PUT' },
    });
  });

  it.each([
    ['a call the vendor holds no licence for', 'POST', '/customers', 'acme', 'licence_required'],
    ["a call the key's user holds no permission for", 'GET', '/customers/7', 'acme', 'permission_denied'],
    ['any call of a suspended vendor', 'GET', '/accounts/7', 'gone', 'vendor_suspended'],
  ])('refuses %s with 403 naming the API id, and reports why', async (_label, method, path, vendorId, reason) => {
    const run = await runStep(step, {}, called(method, path, vendorId));
    expect(run.error).toMatchObject({ code: reason, status: 403, detail: expect.stringContaining('API id:') });
    expect(denials).toEqual([reason]);
  });
});
