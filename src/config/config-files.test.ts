import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { chartConfigSchema, generatedFiles, GENERATE_COMMAND, renderDefaultYaml, secretKeys } from './config-files';
import { configSchema } from './config.schema';

const ROOT = path.resolve(__dirname, '../..');

describe('the files generated from the config schema', () => {
  it(`are up to date (else run \`${GENERATE_COMMAND}\`)`, () => {
    const stale = generatedFiles(ROOT)
      .filter((file) => readFileSync(path.join(ROOT, file.path), 'utf8') !== file.content)
      .map((file) => `${file.path} is stale: run \`${GENERATE_COMMAND}\` and commit the result`);
    expect(stale).toEqual([]);
  });

  it('state in config/default.yaml every schema default, each key with its description as a comment', () => {
    const text = renderDefaultYaml();
    expect(parse(text)).toEqual(configSchema.parse({}));
    expect(text).toContain('  # Vendor API port (env PORT)\n  port: 8080\n');
    expect(text).toMatch(/^# Core Banking Gateway: the default configuration, generated from src\/config\/config\.schema\.ts/);
  });

  it('give the chart every key but the secrets, with the gateway limits, refusing what the gateway refuses', () => {
    const validate = addFormats(new Ajv({ allErrors: true })).compile(chartConfigSchema());
    const defaults = JSON.parse(JSON.stringify(configSchema.parse({}))) as Record<string, unknown>;
    expect(secretKeys().sort()).toEqual([
      'admin.oidc.clientSecret',
      'admin.token',
      'redis.password',
      'redis.sentinelPassword',
      'sms.http.bearerToken',
      'twoFactor.pepper',
    ]);
    expect({ valid: validate(defaults), errors: validate.errors }).toMatchObject({ valid: false });
    for (const key of secretKeys()) remove(defaults, key.split('.'));
    expect({ valid: validate(defaults), errors: validate.errors }).toEqual({ valid: true, errors: null });
    for (const [label, config] of [
      ['a breaker window under 100 ms', { core: { breakers: { receipts: { rollingCountTimeoutMs: 50 } } } }],
      ['a core URL of another scheme', { core: { url: 'ftp://core.internal' } }],
      ['port 0 (an OS-picked port, for tests only)', { server: { port: 0 } }],
      ['Redis credentials in the URL', { redis: { url: 'redis://user:pw@redis:6379' } }],
      ['an empty SMS send-limit list', { twoFactor: { sendLimitsPerVendor: [] } }],
    ] as const) {
      expect({ label, valid: validate(config) }).toEqual({ label, valid: false });
    }
    expect(validate({ core: { url: 'https://core.internal:8443', breakers: { receipts: { rollingCountTimeoutMs: 100 } } }, server: { port: 8080 } })).toBe(
      true,
    );
  });
});

function remove(target: Record<string, unknown>, keyPath: readonly string[]): void {
  const [key, ...rest] = keyPath as [string, ...string[]];
  if (rest.length === 0) delete target[key];
  else remove(target[key] as Record<string, unknown>, rest);
}
