/**
 * A Redis that loses its memory must not let a retried deposit post twice. The gateway runs on
 * a Redis of its own; deposits complete; Redis is killed and started again empty on the same
 * port; the retries of those deposits then get 503 store_unavailable instead of a second
 * posting, reads go on, the hold shows in the metrics, and an instance started after the loss
 * holds too. Real redis-server, real sockets, a core that counts postings.
 */
import { Writable } from 'node:stream';
import { startGateway } from '../../src/gateway';
import { createLogger } from '../../src/logging/logger';
import { testConfig } from '../support/config';
import { startEchoCore, type EchoCore } from '../support/echo-core';
import { SANDBOX_KEYS, checkedAgainstOpenApi } from '../support/gateway';
import { keyedDeposit, metricValue } from '../support/keyed-deposits';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import { within } from '../support/within';

type Running = Awaited<ReturnType<typeof startGateway>>;

describe('Redis restarted empty under keyed money movement', () => {
  let redis: RedisServerHandle;
  let core: EchoCore;
  const gateways: Running[] = [];
  const logLines: string[] = [];

  const start = async (): Promise<Running> => {
    const config = testConfig({
      core: { url: core.url },
      redis: { url: redis.url, epochCheckIntervalMs: 200, dataLossHoldSeconds: 3600, seedAccessFile: 'always' },
      idempotency: { retentionSeconds: 3600 },
      log: { level: 'warn' },
    });
    const logger = createLogger('warn', new Writable({ write: (chunk: Buffer, _e, done) => (logLines.push(chunk.toString()), done()) }));
    const gateway = await checkedAgainstOpenApi(await startGateway(config, logger), config);
    gateways.push(gateway);
    return gateway;
  };
  const deposit = keyedDeposit;
  const postings = (): number => core.requests.filter((request) => request.method === 'POST').length;
  const metric = metricValue;

  beforeAll(async () => {
    redis = await startRedisServer();
    core = await startEchoCore((req, res) => {
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
      res.end(req.method === 'POST' ? '{"receiptNo":1,"amount":10.00}' : '{"id":1}');
    });
  });
  afterAll(async () => {
    for (const gateway of gateways) await gateway.stop({ lameDuckMs: 0, drainTimeoutMs: 1000 });
    await core.close();
    await redis.stop();
  });

  it('answers the retries of deposits made before the loss with 503 instead of posting them again, while reads go on', async () => {
    const gateway = await start();
    const keys = Array.from({ length: 5 }, (_, i) => `before-loss-${i}`);
    for (const key of keys) expect((await deposit(gateway, key)).status).toBe(201);
    expect(postings()).toBe(5);
    expect(await metric(gateway, 'gateway_redis_data_loss_hold')).toBe(0);

    await redis.stop(true);
    await redis.start();
    await within(10_000, async () => (await metric(gateway, 'gateway_redis_data_loss_hold')) === 1);
    expect(await metric(gateway, 'gateway_redis_data_loss_detected_total')).toBe(1);

    for (const key of keys) {
      const retry = await deposit(gateway, key);
      expect(retry.status).toBe(503);
      expect(((await retry.json()) as { code: string }).code).toBe('store_unavailable');
    }
    expect(postings()).toBe(5);
    const read = await fetch(`http://127.0.0.1:${gateway.vendorPort}/accounts/1`, { headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo } });
    expect(read.status).toBe(200);
    expect(logLines.join('')).toContain('Redis lost its data');
  });

  it('holds an instance started after the loss too: the hold is written beside the marker', async () => {
    const late = await start();
    expect(await metric(late, 'gateway_redis_data_loss_hold')).toBe(1);
    expect((await deposit(late, 'after-loss-1')).status).toBe(503);
    expect(postings()).toBe(5);
  });
});

describe('a gateway whose Redis comes up only after it began to start', () => {
  it('waits for Redis (up to the ready timeout) and starts, rather than failing on its first command', async () => {
    const redis = await startRedisServer();
    await redis.stop(true);
    const starting = startGateway(testConfig({ redis: { url: redis.url, seedAccessFile: 'always' } }), createLogger('silent'));
    await new Promise((resolve) => setTimeout(resolve, 800));
    await redis.start();
    const gateway = await starting;
    try {
      const res = await fetch(`http://127.0.0.1:${gateway.vendorPort}/accounts/50001`, { headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo } });
      expect(res.status).toBe(200);
    } finally {
      await gateway.stop({ lameDuckMs: 0, drainTimeoutMs: 1000 });
      await redis.stop();
    }
  });
});
