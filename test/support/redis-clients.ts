/**
 * ioredis clients for tests, set up as the gateway's are (no offline queue, a short command
 * timeout, quick reconnects) so a stopped Redis fails fast; the set disconnects them all.
 */
import Redis from 'ioredis';

export function whenReady(client: Redis): Promise<void> {
  return new Promise((resolve) => (client.status === 'ready' ? resolve() : client.once('ready', () => resolve())));
}

export class TestRedisClients {
  private readonly clients: Redis[] = [];

  /** Connecting, not yet ready. */
  create(url: string, commandTimeoutMs = 200): Redis {
    const client = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: commandTimeoutMs,
      retryStrategy: () => 50,
      disconnectTimeout: 50,
    });
    client.on('error', () => undefined);
    this.clients.push(client);
    return client;
  }

  async ready(url: string, commandTimeoutMs?: number): Promise<Redis> {
    const client = this.create(url, commandTimeoutMs);
    await whenReady(client);
    return client;
  }

  disconnectAll(): void {
    for (const client of this.clients.splice(0)) client.disconnect();
  }
}
