/** The test support's real redis-server: shared instance reachable; own instance can crash and return. */
import Redis from 'ioredis';
import { startRedisServer } from '../support/redis-server';

describe('test support: real Redis', () => {
  it('gives every test worker the shared redis-server at TEST_REDIS_URL', async () => {
    const client = new Redis(process.env.TEST_REDIS_URL as string, { lazyConnect: true });
    await client.connect();
    try {
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.disconnect();
    }
  });

  it('starts a private redis-server that a fault test can kill and start again empty', async () => {
    const redis = await startRedisServer();
    const client = new Redis(redis.url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.set('probe', '1');
      await redis.stop(true);
      await expect(client.get('probe')).rejects.toThrow();
      await redis.start();
      if (client.status !== 'ready') await new Promise<void>((resolve) => client.once('ready', () => resolve()));
      expect(await client.get('probe')).toBeNull();
    } finally {
      client.disconnect();
      await redis.stop();
    }
  });
});
