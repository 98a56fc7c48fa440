import { ROUTES } from '../../catalogue/api-catalogue';
import { RouteMatcher } from '../../catalogue/matcher';
import { runStep } from '../../../test/support/step-harness';
import { routeMatch } from './route-match';

describe('route-match step', () => {
  const step = routeMatch(new RouteMatcher(ROUTES));

  it('sets the route and its raw path parameters on the context, case and trailing slash aside', async () => {
    const run = await runStep(step, { method: 'GET', url: '/Customers/10001/Accounts/?paged=true' });
    expect(run.passed).toBe(true);
    expect(run.ctx.route?.apiId).toBe('GETcustomers/{memberId}/accounts');
    expect(run.ctx.params).toEqual({ memberId: '10001' });
  });

  it('leaves route and parameters empty for an unknown path or a wrong method, for authorization to answer', async () => {
    const unknown = await runStep(step, { method: 'GET', url: '/nowhere' });
    const wrongMethod = await runStep(step, { method: 'PATCH', url: '/accounts/7' });
    expect([unknown.ctx.match?.kind, wrongMethod.ctx.match?.kind]).toEqual(['not_found', 'method_not_allowed']);
    expect([unknown.ctx.route, wrongMethod.ctx.route]).toEqual([null, null]);
  });
});
