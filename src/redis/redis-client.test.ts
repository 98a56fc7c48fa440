import { StartupError } from '../errors/startup-error';
import { TlsFileError } from '../tls/pem-files';
import type { Socket } from 'node:net';
import { closeRedisClient, createRedisClient, whenReady } from './redis-client';
import { redisSchema } from './redis.schema';

describe('Redis client', () => {
  it('fails the start naming redis.tls.caFile when the CA file cannot be read (a start-up error, exit 2)', () => {
    const config = redisSchema.parse({ url: 'rediss://127.0.0.1:6390', tls: { enabled: true, caFile: '/nonexistent/redis-ca.pem' } });
    const attempt = () => createRedisClient(config, { name: 'cbg-test' });
    expect(attempt).toThrow(TlsFileError);
    expect(attempt).toThrow(StartupError);
    expect(attempt).toThrow(/redis\.tls\.caFile \/nonexistent\/redis-ca\.pem cannot be read: ENOENT/);
  });

  it('keeps the process alive when one Redis socket reports a second error (ioredis hears only the first), and reconnects', async () => {
    const client = createRedisClient(redisSchema.parse({ url: process.env.TEST_REDIS_URL }), { name: 'cbg-test-double-error' });
    const errors: string[] = [];
    client.on('error', (err: Error) => errors.push(err.message));
    try {
      await whenReady(client, 5000);
      const socket = (client as unknown as { stream: Socket }).stream;
      // What a TLS socket does when the client refuses the certificate and the server's alert follows.
      socket.emit('error', new Error('first failure'));
      expect(() => socket.emit('error', new Error('the alert that followed'))).not.toThrow();
      socket.destroy();
      await new Promise((resolve) => client.once('ready', resolve));
      expect(await client.ping()).toBe('PONG');
      expect(errors).toEqual(['first failure']);
    } finally {
      await closeRedisClient(client);
    }
  });
});
