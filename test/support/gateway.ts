/**
 * Starts a whole gateway for a test, on loopback ports picked by the OS, with the test config
 * and a silent logger; `overrides` are config keys the test sets. Every answer of its vendor
 * port is checked against the OpenAPI document it serves (openapi-conformance.ts): `stop()`
 * fails with each answer that did not conform, after the gateway has stopped.
 */
import type { ConfigInput, GatewayConfig } from '../../src/config/config.schema';
import { testConfig } from './config';
import { startGateway, type RunningGateway } from '../../src/gateway';
import { createLogger } from '../../src/logging/logger';
import { SANDBOX_DEMO_KEY } from '../../src/sandbox/demo-key';
import { OpenApiConformance, stopWatching, watchAnswers } from './openapi-conformance';

export interface TestGateway extends RunningGateway {
  readonly url: string;
  readonly statusUrl: string;
  readonly config: Readonly<GatewayConfig>;
}

export async function startTestGateway(overrides: ConfigInput = {}): Promise<TestGateway> {
  const config = testConfig(overrides);
  return checkedAgainstOpenApi(await startGateway(config, createLogger('silent')), config);
}

/** A gateway a test started itself (with its own logger, say), watched like startTestGateway's. */
export async function checkedAgainstOpenApi(gateway: RunningGateway, config: Readonly<GatewayConfig>): Promise<TestGateway> {
  const url = `http://127.0.0.1:${gateway.vendorPort}`;
  // The document as the gateway serves it (JSON), read from the gateway rather than fetched: a
  // fetch would be an answer of its own in the access log and metrics the tests count.
  const served = JSON.parse(JSON.stringify(gateway.apiDocument)) as Record<string, unknown>;
  const conformance = new OpenApiConformance(served, gateway.sandboxPort !== null);
  watchAnswers(gateway.vendorPort, conformance);
  const stop = gateway.stop.bind(gateway);
  return Object.assign(gateway, {
    async stop(options?: Parameters<RunningGateway['stop']>[0]): Promise<void> {
      await stop(options);
      stopWatching(gateway.vendorPort, conformance);
      if (conformance.failures.length > 0) {
        throw new Error(`${conformance.failures.length} answer(s) do not match the OpenAPI document:\n${conformance.failures.slice(0, 20).join('\n')}`);
      }
    },
    url,
    statusUrl: `http://127.0.0.1:${gateway.statusPort}`,
    config,
  });
}

/** The sandbox keys published in README.md (config/sandbox-access.yaml holds their hashes). */
export const SANDBOX_KEYS = {
  demo: SANDBOX_DEMO_KEY,
  readonlyPartner: 'cbk_VOrQKC246PJIkp1pAGialSybSqII0647_4A7Wvg',
} as const;

/** Whether the demo key may call an API id, by the gateway's own access index (licence, permission, vendor status). */
export function demoKeyMay(gateway: RunningGateway): (apiId: string) => boolean {
  const index = gateway.access.index;
  const known = index?.authenticate(SANDBOX_KEYS.demo);
  if (!index || !known?.ok) throw new Error('the access document does not hold the demo key');
  return (apiId) => index.authorize(known.principal, known.vendor, apiId) === null;
}
