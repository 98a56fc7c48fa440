/**
 * Starts a whole gateway for a test, on loopback ports picked by the OS, with the test config
 * and a silent logger; `overrides` are config keys the test sets.
 */
import type { ConfigInput, GatewayConfig } from '../../src/config/config.schema';
import { testConfig } from './config';
import { startGateway, type RunningGateway } from '../../src/gateway';
import { createLogger } from '../../src/logging/logger';

export interface TestGateway extends RunningGateway {
  readonly url: string;
  readonly statusUrl: string;
  readonly config: Readonly<GatewayConfig>;
}

export async function startTestGateway(overrides: ConfigInput = {}): Promise<TestGateway> {
  const config = testConfig(overrides);
  const gateway = await startGateway(config, createLogger('silent'));
  return Object.assign(gateway, {
    url: `http://127.0.0.1:${gateway.vendorPort}`,
    statusUrl: `http://127.0.0.1:${gateway.statusPort}`,
    config,
  });
}

/** The sandbox keys published in README.md (config/sandbox-access.yaml holds their hashes). */
export const SANDBOX_KEYS = {
  demo: 'cbk_5fd3cTg5ExVdUlVXmWrKUMJpvMzzJga5_3Ux21d',
  readonlyPartner: 'cbk_VOrQKC246PJIkp1pAGialSybSqII0647_4A7Wvg',
} as const;
