/** Pins the order of the vendor pipeline, as Kong pins its plugin priorities. */
import { AccessCache } from '../access/cache';
import { KeyUsageTracker, MemoryKeyUsageStore } from '../access/key-usage';
import { MemoryAccessStore } from '../access/store';
import { createCoreAgent } from '../core-client/agent';
import { createLogger } from '../logging/logger';
import { createMetrics } from '../metrics/metrics';
import { testConfig } from '../../test/support/config';
import { buildVendorApp } from './chain';

describe('vendor pipeline', () => {
  it('runs its steps in the documented order, then the error handler', () => {
    const logger = createLogger('silent');
    const access = new AccessCache(new MemoryAccessStore({ vendors: [], users: [] }), logger);
    const app = buildVendorApp({
      config: testConfig(),
      logger,
      access,
      coreUrl: 'http://127.0.0.1:9',
      coreAgent: createCoreAgent('http://127.0.0.1:9', { maxSockets: 1, maxFreeSockets: 1 }),
      metrics: createMetrics(undefined, { defaultMetrics: false }),
      redis: null,
      keyUsage: new KeyUsageTracker(new MemoryKeyUsageStore(), 1000, logger),
    });
    const names = (app as unknown as { router: { stack: Array<{ name: string }> } }).router.stack.map((layer) => layer.name);
    expect(names).toEqual(['requestContextStep', 'routeMatchStep', 'authenticateStep', 'authorizeStep', 'rateLimitStep', 'forwardStep', 'errorHandler']);
  });
});
