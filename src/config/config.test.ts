import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { StartupError } from '../errors/startup-error';
import { ConfigError, loadConfig } from './config';
import { configSchema } from './config.schema';

const configDir = path.resolve(__dirname, '../../config');

describe('configuration', () => {
  it('states in config/default.yaml exactly the schema defaults', () => {
    const fromFile: unknown = parse(readFileSync(path.join(configDir, 'default.yaml'), 'utf8'));
    expect(fromFile).toEqual(configSchema.parse({}));
  });

  it('describes every key and section of the schema (the generated files carry the descriptions)', () => {
    const undescribed: string[] = [];
    const walk = (schema: z.ZodType, at: string): void => {
      const section = schema instanceof z.ZodPrefault ? (schema.unwrap() as z.ZodType) : schema;
      if (at !== '' && !schema.description) undescribed.push(at);
      if (section instanceof z.ZodObject) {
        for (const [key, child] of Object.entries(section.shape)) walk(child as z.ZodType, at ? `${at}.${key}` : key);
      }
    };
    walk(configSchema, '');
    expect(undescribed).toEqual([]);
  });

  it('applies the contract variables over the files', () => {
    const config = loadConfig({
      configDir,
      env: {
        PORT: '9000',
        ADMIN_PORT: '9001',
        STATUS_PORT: '9002',
        SANDBOX_PORT: '9003',
        CORE_URL: 'http://core.internal:7000',
        LOG_LEVEL: 'warn',
        ACCESS_FILE: '/etc/access.yaml',
        REDIS_URL: 'redis://r:6379',
        ADMIN_TOKEN: 'an-admin-token-0001',
        GATEWAY__twoFactor__pepper: 'p'.repeat(32),
        GATEWAY__sandbox__allowWithRealCore: 'true',
      },
    });
    expect(config.server).toMatchObject({ port: 9000, adminPort: 9001, statusPort: 9002 });
    expect(config.sandbox.port).toBe(9003);
    expect(config.core.url).toBe('http://core.internal:7000');
    expect(config.log.level).toBe('warn');
    expect(config.access.file).toBe('/etc/access.yaml');
    expect(config.redis.url).toBe('redis://r:6379');
  });

  it('applies GATEWAY__section__key variables as typed YAML scalars', () => {
    const config = loadConfig({ configDir, env: { GATEWAY__core__timeoutMs: '2500', GATEWAY__authentication__receiptTokenHeader: 'X-Receipt-Token' } });
    expect(config.core.timeoutMs).toBe(2500);
    expect(config.authentication.receiptTokenHeader).toBe('X-Receipt-Token');
  });

  it('keeps GATEWAY__ values of text keys as written, so secrets such as "123456" or "@x" stay strings', () => {
    const config = loadConfig({
      configDir,
      env: { GATEWAY__twoFactor__pepper: '12345678901234567890123456789012345', GATEWAY__sms__http__bearerToken: '@token: with yaml chars' },
    });
    expect(config.twoFactor.pepper).toBe('12345678901234567890123456789012345');
    expect(config.sms.http.bearerToken).toBe('@token: with yaml chars');
    expect(loadConfig({ configDir, env: { GATEWAY__idempotency__header: '"X-Idem-Key"' } }).idempotency.header).toBe('X-Idem-Key');
  });

  it('loads config/<NODE_ENV>.yaml over the defaults', () => {
    expect(loadConfig({ configDir, env: { NODE_ENV: 'test' } }).log.level).toBe('silent');
    expect(loadConfig({ configDir, env: {} }).log.level).toBe('info');
  });

  it.each([
    [{ PORT: 'eighty' }, 'server.port'],
    [{ PORT: '70000' }, 'server.port'],
    [{ CORE_URL: 'not a url' }, 'core.url'],
    [{ LOG_LEVEL: 'loud' }, 'log.level'],
    [{ GATEWAY__core__maxSockets: '0' }, 'core.maxSockets'],
    [{ GATEWAY__server__bogus: '1' }, 'server'],
    [{ GATEWAY__server__headersTimeoutMs: '40000' }, 'server.headersTimeoutMs'],
    [{ GATEWAY__core__passHeaders: '[x-vendor-token]' }, 'core.passHeaders'],
    [{ GATEWAY__core__passHeaders: '[X-Receipt-Token]', GATEWAY__authentication__receiptTokenHeader: 'X-Receipt-Token' }, 'core.passHeaders'],
    [{ GATEWAY__core__passHeaders: '[Content-Length]' }, 'core.passHeaders'],
    [{ GATEWAY__core__passResponseHeaders: '[set-cookie, connection]' }, 'core.passResponseHeaders'],
    [{ GATEWAY__server__trustedProxies: '[10.0.0.0/33]' }, 'server.trustedProxies'],
    [{ GATEWAY__server__publicUrl: 'https://api.bank.example/v1' }, 'server.publicUrl'],
    [{ GATEWAY__idempotency__inFlightTimeoutMs: '5000' }, 'idempotency.inFlightTimeoutMs'],
    [{ GATEWAY__idempotency__inFlightTimeoutMs: '20000', GATEWAY__core__breakers__receipts__timeoutMs: '25000' }, 'idempotency.inFlightTimeoutMs'],
    [{ REDIS_URL: 'redis://127.0.0.1:6379' }, 'twoFactor.pepper'],
    [{ GATEWAY__redis__dataLossHoldSeconds: '3600' }, 'redis.dataLossHoldSeconds'],
    [{ GATEWAY__redis__dataLossHoldSeconds: '3600', GATEWAY__idempotency__retentionSeconds: '7200' }, 'redis.dataLossHoldSeconds'],
    [{ CORE_URL: 'http://core.internal:7000', ADMIN_TOKEN: 'an-admin-token-0001' }, 'sms.provider'],
    [{ REDIS_URL: 'redis://127.0.0.1:6379', GATEWAY__twoFactor__pepper: 'p'.repeat(32) }, 'admin.token'],
    [{ CORE_URL: 'http://core.internal:7000', GATEWAY__sandbox__allowWithRealCore: 'true' }, 'admin.token'],
  ])('refuses %j with a message naming %s', (env, key) => {
    expect(() => loadConfig({ configDir, env })).toThrow(ConfigError);
    expect(() => loadConfig({ configDir, env })).toThrow(new RegExp(`\\b${key.replace('.', '\\.')}\\b`));
    expect(() => loadConfig({ configDir, env })).toThrow(/^invalid configuration/);
  });

  it('needs no admin token in sandbox mode (no Redis, no real core): one is generated at start', () => {
    expect(loadConfig({ configDir, env: {} }).admin.token).toBeNull();
  });

  it('names every problem in one run: a bad value, and the rules across keys it does not touch', () => {
    const env = { PORT: 'eighty', REDIS_URL: 'redis://127.0.0.1:6379', GATEWAY__idempotency__inFlightTimeoutMs: '5000', GATEWAY__log__level: 'loud' };
    let message = '';
    try {
      loadConfig({ configDir, env });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect(err).toBeInstanceOf(StartupError);
      message = (err as Error).message;
    }
    for (const key of ['server.port', 'log.level', 'admin.token', 'twoFactor.pepper', 'idempotency.inFlightTimeoutMs']) expect(message).toContain(`  ${key}: `);
  });

  it('names a rule inside a section beside a bad value of that section', () => {
    const env = {
      GATEWAY__sms__provider: 'http',
      GATEWAY__sms__outboxCapacity: 'many',
      GATEWAY__redis__nodes: '[{host: r, port: 6379}]',
      GATEWAY__redis__url: 'redis://r:6379',
      GATEWAY__redis__commandTimeoutMs: 'soon',
    };
    expect(() => loadConfig({ configDir, env })).toThrow(/sms\.outboxCapacity[^]*sms\.http\.url[^]*redis\.commandTimeoutMs/);
    expect(() => loadConfig({ configDir, env })).toThrow(/redis\.nodes: set one of url, sentinels or nodes/);
  });

  it('runs a rule across keys only when the keys it reads are valid', () => {
    // An invalid redis.url: the pepper and admin-token rules cannot tell whether Redis is configured.
    const message = (() => {
      try {
        loadConfig({ configDir, env: { REDIS_URL: 'http://not-redis' } });
        return '';
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(message).toContain('redis.url');
    expect(message).not.toContain('admin.token');
    expect(message).not.toContain('twoFactor.pepper');
  });

  it('takes a data-loss hold shorter than a day together with a retention no longer than it', () => {
    const env = { GATEWAY__redis__dataLossHoldSeconds: '3600', GATEWAY__idempotency__retentionSeconds: '3600' };
    expect(loadConfig({ configDir, env }).redis.dataLossHoldSeconds).toBe(3600);
  });

  it('returns a frozen config', () => {
    const config = loadConfig({ configDir, env: {} });
    expect(Object.isFrozen(config.server)).toBe(true);
  });
});
