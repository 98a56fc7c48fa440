/** The sign-out epochs on a real Redis: one instance's sign-out is seen by another's at once. */
import { TestRedisClients } from '../../test/support/redis-clients';
import { RedisSessionEpochs } from './session-epochs';
import { SignedSessions } from './signed-sessions';

const clients = new TestRedisClients();
afterAll(() => clients.disconnectAll());

describe('sign-out epochs in Redis', () => {
  it('ends a session issued by one instance when another signs the subject out', async () => {
    const prefix = `epochs${process.pid}:`;
    const instance = async (): Promise<SignedSessions> =>
      new SignedSessions({
        namespace: 'admin',
        secret: 'shared-bootstrap-token-0123',
        idleMs: 60_000,
        maxMs: 3_600_000,
        epochs: new RedisSessionEpochs(await clients.ready(process.env.TEST_REDIS_URL as string), prefix),
      });
    const a = await instance();
    const b = await instance();
    const { value } = await a.issue('otto', 'f');
    expect(await b.read(value)).toMatchObject({ subject: 'otto' });
    await b.revoke('otto');
    expect(await a.read(value)).toBeNull();
    expect(await b.read(value)).toBeNull();
    expect(await a.read((await a.issue('otto', 'f')).value)).toMatchObject({ subject: 'otto' });
  });

  it('fails the read, rather than letting the session through, when Redis cannot answer', async () => {
    const client = clients.create('redis://127.0.0.1:1');
    const sessions = new SignedSessions({
      namespace: 'admin',
      secret: 'shared-bootstrap-token-0123',
      idleMs: 60_000,
      maxMs: 3_600_000,
      epochs: new RedisSessionEpochs(client, 'x:'),
    });
    await expect(sessions.issue('otto', 'f')).rejects.toThrow();
  });
});
