/**
 * Losses that leave every connection open, with two instances: a stale copy loaded in place
 * (`DEBUG RELOAD NOSAVE` after a SAVE: what a restore in place, or a TCP proxy in front of a
 * restarted Redis, looks like to the gateway) after another instance has counted the shared
 * store sequence back past what the writer had seen; and keys evicted while `maxmemory-policy`
 * was evicting for a moment, set back to `noeviction` before any epoch check saw it. Either way
 * a retried deposit must not post again. Real redis-server (DEBUG enabled, a data dir), real
 * gateways over sockets, a core that counts postings.
 */
import { startGateway } from '../../src/gateway';
import { createLogger } from '../../src/logging/logger';
import { testConfig } from '../support/config';
import { startEchoCore, type EchoCore } from '../support/echo-core';
import { keyedDeposit as deposit, metricValue as metric } from '../support/keyed-deposits';
import { askRedis } from '../support/redis-sentinel';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import { testTempDir } from '../support/temp-dir';
import { within } from '../support/within';

type Running = Awaited<ReturnType<typeof startGateway>>;

describe('Redis losing data under live connections, with two instances', () => {
  let redis: RedisServerHandle;
  let core: EchoCore;
  let gateways: Running[] = [];

  const start = async (epochCheckIntervalMs: number): Promise<Running> => {
    const config = testConfig({
      core: { url: core.url },
      // A 2 s command timeout (as the topology tests): on a loaded CI machine the default 100 ms can
      // fail the check a claim's word starts, and the other instance would hear of the loss late.
      redis: { url: redis.url, epochCheckIntervalMs, dataLossHoldSeconds: 3600, seedAccessFile: 'always', commandTimeoutMs: 2000 },
      idempotency: { retentionSeconds: 3600 },
    });
    const gateway = await startGateway(config, createLogger('silent'));
    gateways.push(gateway);
    return gateway;
  };
  const postings = (): number => core.requests.filter((request) => request.method === 'POST').length;

  beforeEach(async () => {
    redis = await startRedisServer({ dir: testTempDir('stale-live-redis-'), enableDebugCommand: true });
    core = await startEchoCore((req, res) => {
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
      res.end(req.method === 'POST' ? '{"receiptNo":1,"amount":10.00}' : '{"id":1}');
    });
    gateways = [];
  });
  afterEach(async () => {
    for (const gateway of gateways) await gateway.stop({ lameDuckMs: 0, drainTimeoutMs: 1000 });
    await core.close();
    await redis.stop();
  });

  it.each([60_000, 1000])(
    "holds the writer's retries after a stale copy is loaded in place and the other instance counted the shared sequence past it (epoch check every %i ms)",
    async (interval) => {
      const writer = await start(interval);
      const other = await start(interval);
      expect((await deposit(other, 'warm')).status).toBe(201);
      await askRedis(redis.port, (client) => client.call('SAVE'));
      for (const key of ['x0', 'x1', 'x2']) expect((await deposit(writer, key)).status).toBe(201);
      await askRedis(redis.port, (client) => client.call('DEBUG', 'RELOAD', 'NOSAVE'));
      // The other instance never saw the writer's claims: its own view is not behind, it posts
      // fresh deposits and counts the shared sequence past the writer's highest.
      for (let i = 0; i < 4; i++) await deposit(other, `other-${i}`);
      const before = postings();

      // Only the writer can know its records are gone: at its next claim (a slow poll), or at its
      // next poll; then the marker it replaces holds the other instance too.
      const order =
        interval > 10_000
          ? ([
              [writer, 'x1'],
              [other, 'x0'],
              [other, 'x2'],
              [writer, 'x0'],
            ] as const)
          : ([
              [other, 'x0'],
              [writer, 'x1'],
              [other, 'x2'],
            ] as const);
      if (interval <= 10_000) await within(10_000, async () => (await metric(writer, 'gateway_redis_data_loss_hold')) === 1);
      for (const [gateway, key] of order) expect((await deposit(gateway, key)).status).toBe(503);
      expect(postings()).toBe(before);
      expect(await metric(writer, 'gateway_redis_data_loss_hold')).toBe(1);
      expect(await metric(other, 'gateway_redis_data_loss_hold')).toBe(1);
    },
  );

  it.each(['volatile-lru', 'allkeys-lru'])(
    'holds keyed money movement after keys were evicted under %s, even with the policy back to noeviction before any check saw it',
    async (policy) => {
      const gateway = await start(1000);
      const keys = ['ev-0', 'ev-1', 'ev-2', 'ev-3', 'ev-4'];
      for (const key of keys) expect((await deposit(gateway, key)).status).toBe(201);
      const used = Number(/used_memory:(\d+)/.exec(await askRedis(redis.port, (client) => client.info('memory')))?.[1]);
      await askRedis(redis.port, async (client) => {
        await client.config('SET', 'maxmemory-policy', policy);
        await client.config('SET', 'maxmemory', String(used + 1_000_000));
        // TTL'd filler: volatile-lru may evict it and the idempotency records, never the marker.
        for (let i = 0; i < 40; i++) await client.set(`filler:${i}`, 'x'.repeat(100_000), 'EX', 100_000).catch(() => undefined);
        await client.config('SET', 'maxmemory', '0');
        await client.config('SET', 'maxmemory-policy', 'noeviction');
      });
      const evicted = Number(/evicted_keys:(\d+)/.exec(await askRedis(redis.port, (client) => client.info('stats')))?.[1]);
      expect(evicted).toBeGreaterThan(0);

      await within(10_000, async () => (await metric(gateway, 'gateway_redis_data_loss_hold')) === 1);
      for (const key of keys) expect((await deposit(gateway, key)).status).toBe(503);
      expect(postings()).toBe(5);
      expect(await metric(gateway, 'gateway_redis_eviction_hold')).toBe(0);
    },
  );
});
