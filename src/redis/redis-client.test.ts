import { StartupError } from '../errors/startup-error';
import { TlsFileError } from '../tls/pem-files';
import { createRedisClient } from './redis-client';
import { redisSchema } from './redis.schema';

describe('Redis client', () => {
  it('fails the start naming redis.tls.caFile when the CA file cannot be read (a start-up error, exit 2)', () => {
    const config = redisSchema.parse({ url: 'rediss://127.0.0.1:6390', tls: { enabled: true, caFile: '/nonexistent/redis-ca.pem' } });
    const attempt = () => createRedisClient(config, { name: 'cbg-test' });
    expect(attempt).toThrow(TlsFileError);
    expect(attempt).toThrow(StartupError);
    expect(attempt).toThrow(/redis\.tls\.caFile \/nonexistent\/redis-ca\.pem cannot be read: ENOENT/);
  });
});
