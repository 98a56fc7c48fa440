/**
 * A Redis that loses its data on a live connection (FLUSHALL, FLUSHDB: no reconnect for the
 * gateway to notice) must not let a retried deposit post twice, not even for the few seconds
 * before the epoch poll: the idempotency claim reads the epoch marker in its own script. Two
 * instances share one real redis-server; the poll is set to a minute so only the claim can
 * catch the wipe; a core that counts postings says whether anything was posted again.
 */
import { startGateway } from '../../src/gateway';
import { createLogger } from '../../src/logging/logger';
import { testConfig } from '../support/config';
import { startEchoCore, type EchoCore } from '../support/echo-core';
import { SANDBOX_KEYS } from '../support/gateway';
import { keyedDeposit, metricValue } from '../support/keyed-deposits';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import { askRedis } from '../support/redis-sentinel';

type Running = Awaited<ReturnType<typeof startGateway>>;

describe('Redis wiped on a live connection under keyed money movement', () => {
  let redis: RedisServerHandle;
  let core: EchoCore;
  const gateways: Running[] = [];

  const start = async (): Promise<Running> => {
    const config = testConfig({
      core: { url: core.url },
      // A minute between polls: within these tests only the claim itself can notice the wipe.
      redis: { url: redis.url, epochCheckIntervalMs: 60_000, dataLossHoldSeconds: 3600, seedAccessFile: 'always' },
      idempotency: { retentionSeconds: 3600 },
    });
    const gateway = await startGateway(config, createLogger('silent'));
    gateways.push(gateway);
    return gateway;
  };
  const deposit = keyedDeposit;
  const postings = (): number => core.requests.filter((request) => request.method === 'POST').length;
  const metric = metricValue;
  const expectStoreUnavailable = async (answer: Response): Promise<void> => {
    expect(answer.status).toBe(503);
    expect(((await answer.json()) as { code: string }).code).toBe('store_unavailable');
  };

  beforeEach(async () => {
    redis = await startRedisServer();
    core = await startEchoCore((req, res) => {
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
      res.end(req.method === 'POST' ? '{"receiptNo":1,"amount":10.00}' : '{"id":1}');
    });
  });
  afterEach(async () => {
    for (const gateway of gateways.splice(0)) await gateway.stop({ lameDuckMs: 0, drainTimeoutMs: 1000 });
    await core.close();
    await redis.stop();
  });

  it.each(['FLUSHALL', 'FLUSHDB'])(
    'refuses the immediate retry of a posted deposit after %s, on the instance that posted it and on another one, and holds both',
    async (command) => {
      const first = await start();
      const second = await start();
      expect((await deposit(first, 'paid-on-first')).status).toBe(201);
      expect((await deposit(second, 'paid-on-second')).status).toBe(201);
      expect(postings()).toBe(2);

      await askRedis(redis.port, (client) => client.call(command));

      // At once, well inside the poll interval: each instance's first claim finds the marker gone or replaced.
      await expectStoreUnavailable(await deposit(first, 'paid-on-first'));
      await expectStoreUnavailable(await deposit(second, 'paid-on-first'));
      await expectStoreUnavailable(await deposit(second, 'paid-on-second'));
      await expectStoreUnavailable(await deposit(first, 'a-new-key'));
      expect(postings()).toBe(2);
      expect(await metric(first, 'gateway_redis_data_loss_hold')).toBe(1);
      expect(await metric(second, 'gateway_redis_data_loss_hold')).toBe(1);
      // A read needs no key: it goes on.
      expect((await fetch(`http://127.0.0.1:${first.vendorPort}/accounts/50001`, { headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo } })).status).toBe(200);
    },
  );

  it('refuses retries raced against the wipe: of many concurrent retries of one key, none posts again', async () => {
    const first = await start();
    const second = await start();
    expect((await deposit(first, 'raced')).status).toBe(201);
    await askRedis(redis.port, (client) => client.call('FLUSHALL'));
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => deposit(i % 2 ? first : second, 'raced')));
    for (const answer of answers) await expectStoreUnavailable(answer);
    expect(postings()).toBe(1);
    // One detection per instance, however many of its claims found the marker gone at once.
    expect(await metric(first, 'gateway_redis_data_loss_detected_total')).toBe(1);
    expect(await metric(second, 'gateway_redis_data_loss_detected_total')).toBe(1);
  });
});
