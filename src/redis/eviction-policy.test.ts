/**
 * The maxmemory-policy watch on a real redis-server of its own (it changes the policy, which
 * the shared test Redis must keep): an evicting policy is reported and logged once per change,
 * a Redis that is down keeps the last one known, and a Redis refusing CONFIG (as managed ones
 * do) is warned about once and holds nothing.
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
});
