/** The test config: config/test.yaml plus loopback ports picked by the OS, plus the test's overrides. */
import { deepMerge, loadConfig } from '../../src/config/config';
import type { ConfigInput, GatewayConfig } from '../../src/config/config.schema';

/** The admin token every test gateway uses (tests only; never a real token). */
export const TEST_ADMIN_TOKEN = 'test-admin-token-not-secret-0001';

export function testConfig(overrides: ConfigInput = {}): Readonly<GatewayConfig> {
  const base = {
    server: { host: '127.0.0.1', port: 0, adminPort: 0, statusPort: 0 },
    sandbox: { port: 0 },
    admin: { token: TEST_ADMIN_TOKEN },
  };
  return loadConfig({ env: { NODE_ENV: 'test' }, overrides: deepMerge(base, overrides as Record<string, unknown>) as ConfigInput });
}
