/**
 * A Redis that comes back from a stale copy, or that may evict, must not let a retried deposit
 * post twice. Stale copy: deposits complete, Redis SAVEs a snapshot, more deposits complete,
 * Redis is killed and started again from that snapshot on the same port: the epoch marker is
 * the same, the newest records are gone, and only the store sequence (counted up by each claim)
 * shows it. Eviction: under any maxmemory-policy but noeviction keyed money movement waits.
 * Real redis-server (with a data dir), real gateways over sockets, a core that counts postings.
 */
import { Writable } from 'node:stream';
import { startGateway } from '../../src/gateway';
import { createLogger } from '../../src/logging/logger';
import { testConfig } from '../support/config';
import { startEchoCore, type EchoCore } from '../support/echo-core';
import { checkedAgainstOpenApi } from '../support/gateway';
import { keyedDeposit as deposit, metricValue as metric } from '../support/keyed-deposits';
import { askRedis } from '../support/redis-sentinel';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import { testTempDir } from '../support/temp-dir';
import { within } from '../support/within';

type Running = Awaited<ReturnType<typeof startGateway>>;

describe('Redis back from a stale copy, or evicting, under keyed money movement', () => {
  let redis: RedisServerHandle;
  let core: EchoCore;
  let gateways: Running[] = [];
  let logLines: string[] = [];

  const start = async (epochCheckIntervalMs: number): Promise<Running> => {
    const config = testConfig({
      core: { url: core.url },
      redis: { url: redis.url, epochCheckIntervalMs, dataLossHoldSeconds: 3600, seedAccessFile: 'always' },
      idempotency: { retentionSeconds: 3600 },
      log: { level: 'warn' },
    });
    const logger = createLogger('warn', new Writable({ write: (chunk: Buffer, _e, done) => (logLines.push(chunk.toString()), done()) }));
    const gateway = await checkedAgainstOpenApi(await startGateway(config, logger), config);
    gateways.push(gateway);
    return gateway;
  };
  const postings = (): number => core.requests.filter((request) => request.method === 'POST').length;
  const codeOf = async (res: Response): Promise<{ code: string; detail: string }> => (await res.json()) as { code: string; detail: string };
  const restartFromSnapshot = async (): Promise<void> => {
    await redis.stop(true);
    await redis.start();
  };

  beforeEach(async () => {
    redis = await startRedisServer({ dir: testTempDir('stale-redis-') });
    core = await startEchoCore((req, res) => {
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
      res.end(req.method === 'POST' ? '{"receiptNo":1,"amount":10.00}' : '{"id":1}');
    });
    gateways = [];
    logLines = [];
  });
  afterEach(async () => {
    for (const gateway of gateways) await gateway.stop({ lameDuckMs: 0, drainTimeoutMs: 1000 });
    await core.close();
    await redis.stop();
  });

  it('holds keyed money movement when Redis restarts from a snapshot older than its newest records, so a retry of one of them is not posted again', async () => {
    const gateway = await start(200);
    expect((await deposit(gateway, 'before-snapshot')).status).toBe(201);
    await askRedis(redis.port, (client) => client.call('SAVE'));
    expect((await deposit(gateway, 'after-snapshot')).status).toBe(201);
    expect(postings()).toBe(2);

    await restartFromSnapshot();
    await within(10_000, async () => (await metric(gateway, 'gateway_redis_data_loss_hold')) === 1);
    for (const key of ['after-snapshot', 'before-snapshot']) {
      const retry = await deposit(gateway, key);
      expect(retry.status).toBe(503);
      expect((await codeOf(retry)).code).toBe('store_unavailable');
    }
    expect(postings()).toBe(2);
    expect(logLines.join('')).toContain('"staleCopy":true');
  });

  it('holds another instance too, one that never saw the lost records: the instance that finds the stale copy replaces the marker', async () => {
    const writer = await start(200);
    // Polls seldom, and starts before any deposit: only the replaced marker can tell it.
    const other = await start(60_000);
    expect((await deposit(writer, 'before-snapshot')).status).toBe(201);
    await askRedis(redis.port, (client) => client.call('SAVE'));
    expect((await deposit(writer, 'after-snapshot')).status).toBe(201);

    await restartFromSnapshot();
    await within(10_000, async () => (await metric(writer, 'gateway_redis_data_loss_hold')) === 1);
    const retry = await deposit(other, 'after-snapshot');
    expect(retry.status).toBe(503);
    expect((await codeOf(retry)).code).toBe('store_unavailable');
    expect(await metric(other, 'gateway_redis_data_loss_hold')).toBe(1);
    expect(postings()).toBe(2);
  });

  it('holds keyed money movement while maxmemory-policy evicts, says so in the 503, /health/ready and the metrics, and accepts it again under noeviction', async () => {
    const gateway = await start(200);
    expect((await deposit(gateway, 'under-noeviction')).status).toBe(201);
    await askRedis(redis.port, (client) => client.config('SET', 'maxmemory-policy', 'volatile-lru'));
    await within(10_000, async () => (await metric(gateway, 'gateway_redis_eviction_hold')) === 1);

    const held = await deposit(gateway, 'under-volatile-lru');
    expect(held.status).toBe(503);
    const problem = await codeOf(held);
    expect(problem.code).toBe('store_unavailable');
    expect(problem.detail).toContain('volatile-lru');
    // A retry of a deposit made before waits too: its record may be the one evicted.
    expect((await deposit(gateway, 'under-noeviction')).status).toBe(503);
    const ready = await fetch(`http://127.0.0.1:${gateway.statusPort}/health/ready`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { redis: { evictingPolicy: string | null } }).redis.evictingPolicy).toBe('volatile-lru');
    expect(logLines.join('')).toContain('"maxmemoryPolicy":"volatile-lru"');
    expect(postings()).toBe(1);

    await askRedis(redis.port, (client) => client.config('SET', 'maxmemory-policy', 'noeviction'));
    await within(10_000, async () => (await metric(gateway, 'gateway_redis_eviction_hold')) === 0);
    expect((await deposit(gateway, 'under-volatile-lru')).status).toBe(201);
    expect(postings()).toBe(2);
  });

  it('holds from the start when Redis already evicts, logging the policy at error', async () => {
    await askRedis(redis.port, (client) => client.config('SET', 'maxmemory-policy', 'allkeys-lru'));
    const gateway = await start(200);
    expect(await metric(gateway, 'gateway_redis_eviction_hold')).toBe(1);
    expect((await deposit(gateway, 'first')).status).toBe(503);
    expect(logLines.join('')).toMatch(
      /"level":"?(error|50)"?[^\n]*"maxmemoryPolicy":"allkeys-lru"|"maxmemoryPolicy":"allkeys-lru"[^\n]*"level":"?(error|50)"?/,
    );
    expect(postings()).toBe(0);
  });
});
