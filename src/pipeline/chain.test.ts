/** Pins the order of the vendor pipeline, as Kong pins its plugin priorities. */
import { AccessCache } from '../access/cache';
import { KeyUsageTracker, MemoryKeyUsageStore } from '../access/key-usage';
import { MemoryAccessStore } from '../access/access-store';
import { createCoreAgents } from '../core-client/agent';
import { coreClientSchema } from '../core-client/core-client.schema';
import { CoreBreakers } from '../core-client/breakers';
import { breakersSchema } from '../core-client/breakers.schema';
import { createCoreClient } from '../core-client/core-client';
import { createForwardedResolver } from '../core-client/forwarded';
import path from 'node:path';
import { loadReceiptEnums } from '../contracts/enums';
import { createBodyContracts } from '../contracts/registry';
import { createLogger } from '../logging/logger';
import { smsSchema } from '../sms/sms.schema';
import { createSmsProvider } from '../sms/create-provider';
import { createMetrics } from '../metrics/metrics';
import { testConfig } from '../../test/support/config';
import { buildVendorApp } from './chain';

function buildTestApp(): ReturnType<typeof buildVendorApp> {
  const logger = createLogger('silent');
  const access = new AccessCache(new MemoryAccessStore({ vendors: [], users: [] }), logger);
  const metrics = createMetrics(undefined, { defaultMetrics: false });
  const coreAgents = createCoreAgents('http://127.0.0.1:9', coreClientSchema.parse({}), { logger });
  const breakers = new CoreBreakers(breakersSchema.parse({}), { defaultTimeoutMs: 1000, metrics, logger });
  const app = buildVendorApp({
    config: testConfig(),
    logger,
    access,
    storeHeld: () => false,
    tracing: null,
    coreClient: createCoreClient({
      coreUrl: 'http://127.0.0.1:9',
      agents: coreAgents,
      breakers,
      config: coreClientSchema.parse({}),
      forwarded: createForwardedResolver({ trustedProxies: [], publicUrl: null }),
      logger,
    }),
    metrics,
    redis: null,
    keyUsage: new KeyUsageTracker(new MemoryKeyUsageStore(), 1000, logger),
    bodyContracts: createBodyContracts({ enums: loadReceiptEnums(path.resolve(__dirname, '../../config/receipt-enums.yaml')), adjustmentNotesRequired: false }),
    sms: createSmsProvider(smsSchema.parse({})).provider,
    apiDocument: { openapi: '3.1.1', paths: {} },
  });
  breakers.shutdown();
  return app;
}

describe('vendor pipeline', () => {
  it('runs its steps in the documented order, then the error handler', () => {
    const app = buildTestApp();
    const layers = (app as unknown as { router: { stack: Array<{ name: string; route?: { path: string }; handle: { steps?: Array<{ name: string }> } }> } })
      .router.stack;
    const names = layers.flatMap((layer) => layer.handle.steps?.map((step) => step.name) ?? [layer.route?.path ?? layer.name]);
    expect(names).toEqual([
      'requestContextStep',
      'traceStep',
      // The API description, its reference page and their preflight: keyless.
      'publicFileRoute',
      'compressionStep',
      'framingStep',
      'routeMatchStep',
      'authenticateStep',
      'authorizeStep',
      'rateLimitStep',
      'requestTargetStep',
      'bodyStep',
      'twoFactorVerification',
      'idempotencyStep',
      'twoFactorCheck',
      'exchangeStep',
      'forwardStep',
      'errorHandler',
    ]);
  });

  it('runs the steps in one router layer, then the error handler', () => {
    const app = buildTestApp();
    const layers = (app as unknown as { router: { stack: Array<{ name: string; route?: { path: string } }> } }).router.stack;
    expect(layers.map((layer) => layer.route?.path ?? layer.name)).toEqual(['vendorPipeline', 'errorHandler']);
  });
});
