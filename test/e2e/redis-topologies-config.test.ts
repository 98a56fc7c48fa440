/**
 * The `redis` config of the three topologies as an operator writes it (YAML values in
 * `GATEWAY__redis__*` variables, as the Helm chart sets them): what is accepted, what is
 * refused with a message naming the key, and how the target is named in messages.
 */
import path from 'node:path';
import { describeRedisTarget } from '../../src/redis/redis-client';
import { redisConfigured } from '../../src/redis/redis.schema';
import { ConfigError, loadConfig } from '../../src/config/config';

const configDir = path.resolve(__dirname, '../../config');
// With Redis a shared two-factor pepper and an admin token are required (rules of their own, tested in config.test.ts).
const load = (env: NodeJS.ProcessEnv): ReturnType<typeof loadConfig> =>
  loadConfig({ configDir, env: { GATEWAY__twoFactor__pepper: 'p'.repeat(32), ADMIN_TOKEN: 'an-admin-token-0001', ...env } });

describe('redis topology config', () => {
  it('reads sentinels and the master name from GATEWAY__ variables', () => {
    const { redis } = load({
      GATEWAY__redis__sentinels: '[{host: sentinel-0.redis, port: 26379}, {host: sentinel-1.redis, port: 26379}]',
      GATEWAY__redis__name: 'mymaster',
    });
    expect(redis.sentinels).toEqual([
      { host: 'sentinel-0.redis', port: 26379 },
      { host: 'sentinel-1.redis', port: 26379 },
    ]);
    expect(redisConfigured(redis)).toBe(true);
    expect(describeRedisTarget(redis)).toBe('Sentinel master "mymaster" via sentinel-0.redis:26379,sentinel-1.redis:26379');
  });

  it('reads cluster nodes, TLS and an ACL user', () => {
    const { redis } = load({
      GATEWAY__redis__nodes: '[{host: redis-0, port: 6379}]',
      GATEWAY__redis__tls__enabled: 'true',
      GATEWAY__redis__username: 'gateway',
    });
    expect(redis).toMatchObject({ nodes: [{ host: 'redis-0', port: 6379 }], tls: { enabled: true }, username: 'gateway' });
    expect(describeRedisTarget(redis)).toBe('Cluster redis-0:6379');
  });

  it('treats no url, no sentinels and no nodes as memory mode', () => {
    expect(redisConfigured(load({}).redis)).toBe(false);
  });

  it('names a URL target without its credentials', () => {
    expect(describeRedisTarget(load({ REDIS_URL: 'rediss://gw:s3cret-pw@redis.internal:6380/0' }).redis)).toBe('rediss://redis.internal:6380/0');
  });

  it.each([
    [{ REDIS_URL: 'redis://r:6379', GATEWAY__redis__nodes: '[{host: n, port: 6379}]' }, 'redis.nodes'],
    [{ GATEWAY__redis__sentinels: '[{host: s, port: 26379}]' }, 'redis.name'],
    [{ GATEWAY__redis__name: 'mymaster' }, 'redis.sentinels'],
    [{ REDIS_URL: 'redis://u:p@r:6379', GATEWAY__redis__password: 'other' }, 'redis.password'],
    [{ GATEWAY__redis__nodes: '[{host: n}]' }, 'redis.nodes'],
    [{ GATEWAY__redis__tls__bogus: 'true' }, 'redis.tls'],
  ])('refuses %j with a message naming %s', (env, key) => {
    expect(() => load(env)).toThrow(ConfigError);
    expect(() => load(env)).toThrow(new RegExp(`\\b${key.replace(/\./g, '\\.')}\\b`));
  });
});
