/**
 * The maxmemory-policy watch on a real redis-server of its own (it changes the policy, which
 * the shared test Redis must keep): an evicting policy is reported and logged once per change,
 * a Redis that is down keeps the last one known, and a Redis refusing CONFIG (as managed ones
 * do) is warned about once and holds nothing. INFO `evicted_keys`: an increase under the same
 * `run_id` is reported, a restart or CONFIG RESETSTAT is a new baseline, a refusal a warning once.
 */
import { Writable } from 'node:stream';
import { createLogger } from '../logging/logger';
import { startRedisServer, type RedisServerHandle } from '../../test/support/redis-server';
import { TestRedisClients } from '../../test/support/redis-clients';
import { askRedis } from '../../test/support/redis-sentinel';
import { within } from '../../test/support/within';
import { EvictionPolicyWatch } from './eviction-policy';

describe('EvictionPolicyWatch', () => {
  let redis: RedisServerHandle;
  const clients = new TestRedisClients();
  let lines: string[] = [];
  const logger = createLogger('warn', new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(chunk.toString()), done()) }));

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  beforeEach(() => {
    lines = [];
  });
  afterAll(async () => {
    clients.disconnectAll();
    await redis.stop();
  });

  it('reports an evicting policy and logs each change once, keeping the last one known while Redis is down', async () => {
    const changes: Array<string | null> = [];
    const client = await clients.ready(redis.url);
    const watch = new EvictionPolicyWatch({ client, logger, onChange: (policy) => changes.push(policy) });
    await watch.check();
    expect(watch.evicting).toBeNull();
    expect(changes).toEqual([]);

    await askRedis(redis.port, (c) => c.config('SET', 'maxmemory-policy', 'volatile-lru'));
    await watch.check();
    await watch.check();
    expect(watch.evicting).toBe('volatile-lru');
    expect(changes).toEqual(['volatile-lru']);
    expect(lines.filter((line) => line.includes('"maxmemoryPolicy":"volatile-lru"'))).toHaveLength(1);

    await redis.stop(true);
    await watch.check();
    expect(watch.evicting).toBe('volatile-lru');
    await redis.start();

    // Started again with noeviction, as the test server always is.
    await within(5000, () => client.status === 'ready');
    await watch.check();
    expect(watch.evicting).toBeNull();
    expect(changes).toEqual(['volatile-lru', null]);
  });

  it('warns once and holds nothing where Redis refuses CONFIG', async () => {
    await askRedis(redis.port, (c) => c.call('ACL', 'SETUSER', 'managed', 'on', 'nopass', '~*', '&*', '+@all', '-config'));
    await askRedis(redis.port, (c) => c.config('SET', 'maxmemory-policy', 'allkeys-lru'));
    const watch = new EvictionPolicyWatch({ client: await clients.ready(`redis://managed@127.0.0.1:${redis.port}`), logger });
    await watch.check();
    await watch.check();
    expect(watch.evicting).toBeNull();
    expect(lines.filter((line) => line.includes('refuses CONFIG GET maxmemory-policy'))).toHaveLength(1);
  });

  it('reports keys evicted since the last reading under the same run_id, and takes a restart or RESETSTAT as a new baseline', async () => {
    const client = await clients.ready(redis.url);
    const watch = new EvictionPolicyWatch({ client, logger });
    expect(await watch.serverChanges()).toEqual({ evictedKeys: 0, restarted: false });
    const used = Number(/used_memory:(\d+)/.exec(await askRedis(redis.port, (c) => c.info('memory')))?.[1]);
    await askRedis(redis.port, async (c) => {
      await c.config('SET', 'maxmemory-policy', 'allkeys-lru');
      await c.config('SET', 'maxmemory', String(used + 1_000_000));
      for (let i = 0; i < 30; i++) await c.set(`evict-test:${i}`, 'x'.repeat(100_000)).catch(() => undefined);
      await c.config('SET', 'maxmemory', '0');
      await c.config('SET', 'maxmemory-policy', 'noeviction');
    });
    const { evictedKeys } = await watch.serverChanges();
    expect(evictedKeys).toBeGreaterThan(0);
    expect(await watch.serverChanges()).toEqual({ evictedKeys: 0, restarted: false });

    await askRedis(redis.port, (c) => c.config('RESETSTAT'));
    expect(await watch.serverChanges()).toEqual({ evictedKeys: 0, restarted: false });

    await redis.stop(true);
    await expect(watch.serverChanges()).rejects.toThrow();
    await redis.start();
    await within(5000, () => client.status === 'ready');
    expect(await watch.serverChanges()).toEqual({ evictedKeys: 0, restarted: true });
  });

  it('warns once and reports nothing where Redis refuses INFO', async () => {
    await askRedis(redis.port, (c) => c.call('ACL', 'SETUSER', 'noinfo', 'on', 'nopass', '~*', '&*', '+@all', '-info'));
    const watch = new EvictionPolicyWatch({ client: await clients.ready(`redis://noinfo@127.0.0.1:${redis.port}`), logger });
    expect(await watch.serverChanges()).toEqual({ evictedKeys: 0, restarted: false });
    expect(await watch.serverChanges()).toEqual({ evictedKeys: 0, restarted: false });
    expect(lines.filter((line) => line.includes('refuses INFO'))).toHaveLength(1);
  });
});
