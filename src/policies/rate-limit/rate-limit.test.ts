/**
 * The rate-limit step on real Redis: a shared window across instances, the IETF headers,
 * 429 with Retry-After, and the insurance limiter when Redis is gone.
 */
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import express, { type ErrorRequestHandler } from 'express';
import Redis from 'ioredis';
import { GatewayError } from '../../errors/error-catalogue';
import { createLogger } from '../../logging/logger';
import type { RateLimit } from '../../access/model';
import { newContext, setContext } from '../../request/context';
import { startRedisServer, type RedisServerHandle } from '../../../test/support/redis-server';
import { rateLimit, RateLimiters } from './rate-limit';
import type { RateLimitConfig } from './rate-limit.schema';
import { TestRedisClients, whenReady } from '../../../test/support/redis-clients';

interface Instance {
  url: string;
  close(): Promise<void>;
}

let prefixCounter = 0;

const redisClients = new TestRedisClients();
const redisClient = (url: string): Redis => redisClients.create(url, 100);

/** An app with only this step behind a context that says who calls, as the pipeline would. */
async function startInstance(
  config: RateLimitConfig,
  redis: Redis | null,
  limited: string[] = [],
  policy: RateLimit = { points: 5, durationSeconds: 30 },
): Promise<Instance> {
  const app = express();
  app.use(function fakeAuthenticated(req, res, next) {
    const keyId = String(req.headers['x-key-id'] ?? 'key-1');
    setContext(res, {
      ...newContext('r'),
      principal: { vendorId: 'acme', vendorName: 'Acme', keyId, userId: 'u', certificateThumbprints: [] },
      vendor: { id: 'acme', name: 'Acme', status: 'active', rateLimit: policy, licences: [] },
    });
    next();
  });
  app.use(rateLimit({ limiters: new RateLimiters(config, redis), logger: createLogger('silent'), onLimited: (v) => limited.push(v) }));
  app.get('/', (_req, res) => {
    res.send('ok');
  });
  const onError: ErrorRequestHandler = (err: GatewayError, _req, res, _next) => {
    res
      .status(err.status)
      .set(err.headers ?? {})
      .send(err.code);
  };
  app.use(onError);
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function config(overrides: Partial<RateLimitConfig> = {}): RateLimitConfig {
  return {
    defaultPoints: 100,
    defaultDurationSeconds: 60,
    expectedInstances: 2,
    keyPrefix: `test:rl:${process.pid}:${++prefixCounter}`,
    publicFiles: { points: 120, durationSeconds: 60 },
    ...overrides,
  };
}

describe('rate limit per key', () => {
  afterAll(() => redisClients.disconnectAll());

  it('lets exactly the vendor limit through in one window across two instances sharing Redis', async () => {
    const shared = config();
    const a = redisClient(process.env.TEST_REDIS_URL as string);
    const b = redisClient(process.env.TEST_REDIS_URL as string);
    await Promise.all([whenReady(a), whenReady(b)]);
    const limited: string[] = [];
    const one = await startInstance(shared, a, limited);
    const two = await startInstance(shared, b, limited);
    try {
      const statuses = await Promise.all(Array.from({ length: 12 }, (_, i) => fetch(i % 2 ? one.url : two.url).then((r) => r.status)));
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(7);
      expect(limited).toEqual(Array(7).fill('acme'));
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('counts each key apart', async () => {
    const instance = await startInstance(config(), null);
    try {
      for (let i = 0; i < 5; i++) await fetch(instance.url, { headers: { 'x-key-id': 'k-a' } });
      expect((await fetch(instance.url, { headers: { 'x-key-id': 'k-a' } })).status).toBe(429);
      expect((await fetch(instance.url, { headers: { 'x-key-id': 'k-b' } })).status).toBe(200);
    } finally {
      await instance.close();
    }
  });

  it('states the policy and the remaining quota in the IETF draft headers, and Retry-After on 429', async () => {
    const instance = await startInstance(config(), null);
    try {
      const first = await fetch(instance.url);
      expect(first.headers.get('ratelimit-policy')).toBe('"per-key";q=5;w=30');
      expect(first.headers.get('ratelimit')).toMatch(/^"per-key";r=4;t=(29|30)$/);
      for (let i = 0; i < 4; i++) await fetch(instance.url);
      const refused = await fetch(instance.url);
      expect(refused.status).toBe(429);
      expect(await refused.text()).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(30);
      expect(refused.headers.get('ratelimit')).toMatch(/^"per-key";r=0;t=\d+$/);
    } finally {
      await instance.close();
    }
  });

  describe('with a 30-day window (longer than a Node timer waits)', () => {
    const MONTH: RateLimit = { points: 5, durationSeconds: 30 * 86_400 };
    const statusesOf = async (url: string, count: number): Promise<number[]> => {
      const statuses: number[] = [];
      for (let i = 0; i < count; i++) statuses.push((await fetch(url)).status);
      return statuses;
    };

    it('lets exactly 5 of 20 through in memory (sandbox mode), and says the window ends within 30 days', async () => {
      const warnings: string[] = [];
      const onWarning = (warning: Error): void => void warnings.push(warning.name);
      process.on('warning', onWarning);
      const instance = await startInstance(config(), null, [], MONTH);
      try {
        const statuses = await statusesOf(instance.url, 20);
        expect(statuses.filter((s) => s === 200)).toHaveLength(5);
        expect(statuses.slice(5).every((s) => s === 429)).toBe(true);
        const refused = await fetch(instance.url);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(30 * 86_400);
        expect(warnings).not.toContain('TimeoutOverflowWarning');
      } finally {
        process.off('warning', onWarning);
        await instance.close();
      }
    });

    it('lets exactly 5 of 20 through with Redis, and through the insurance limiter once Redis is gone', async () => {
      const redis = await startRedisServer();
      try {
        const client = redisClient(redis.url);
        await whenReady(client);
        const shared = await startInstance(config({ expectedInstances: 1 }), client, [], MONTH);
        try {
          expect((await statusesOf(shared.url, 20)).filter((s) => s === 200)).toHaveLength(5);
        } finally {
          await shared.close();
        }
        const insured = await startInstance(config({ expectedInstances: 1 }), client, [], MONTH);
        try {
          await redis.stop(true);
          expect((await statusesOf(insured.url, 20)).filter((s) => s === 200)).toHaveLength(5);
        } finally {
          await insured.close();
        }
      } finally {
        await redis.stop();
      }
    });
  });

  describe('with Redis gone', () => {
    let redis: RedisServerHandle;
    beforeAll(async () => {
      redis = await startRedisServer();
    });
    afterAll(async () => {
      await redis.stop();
    });

    it('falls back to the insurance limiter at ceil(points / instances), fast and without 5xx', async () => {
      const client = redisClient(redis.url);
      await whenReady(client);
      const instance = await startInstance(config({ expectedInstances: 2 }), client);
      try {
        expect((await fetch(instance.url)).status).toBe(200);
        await redis.stop(true);
        const timings: number[] = [];
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++) {
          const started = performance.now();
          statuses.push((await fetch(instance.url)).status);
          timings.push(performance.now() - started);
        }
        // ceil(5 / 2) = 3 allowed by the insurance limiter, then 429; never a 5xx.
        expect(statuses).toEqual([200, 200, 200, 429, 429]);
        expect(Math.max(...timings)).toBeLessThan(250);
      } finally {
        await instance.close();
      }
    });
  });
});
