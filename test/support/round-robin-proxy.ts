/**
 * A tiny TCP load balancer for scale-out tests: each client connection goes to the next
 * backend in turn and is piped both ways; a backend can be taken out of the rotation. Like a layer-4 load balancer that takes a backend
 * out once it refuses connections, a backend that refuses one is skipped and the next one
 * tried (nothing was sent yet, so this is safe); a backend that dies with connections open
 * cuts them, and those clients see the failure.
 *
 * Listens on a free loopback port; connects only to the loopback ports it is given. Counts,
 * per backend, the connections handed to it and those open right now, so that a test can
 * bound what a dying backend may lose.
 */
import net from 'node:net';

export interface RoundRobinProxy {
  readonly port: number;
  readonly url: string;
  /** Connections handed to each backend since the start (refused ones not counted). */
  assigned(): number[];
  /** Connections open to each backend right now, including ones still connecting. */
  open(): number[];
  /** Sends no new connection to this backend (as Kubernetes does with a terminating pod's endpoint). */
  remove(index: number): void;
  close(): Promise<void>;
}

export function startRoundRobinProxy(backendPorts: readonly number[]): Promise<RoundRobinProxy> {
  const assigned = backendPorts.map(() => 0);
  const open = backendPorts.map(() => 0);
  const removed = new Set<number>();
  const clients = new Set<net.Socket>();
  let next = 0;

  /** The next backend in turn that is in the rotation and that this client has not tried yet. */
  const nextBackend = (tried: ReadonlySet<number>): number | null => {
    for (let step = 0; step < backendPorts.length; step++) {
      const index = next;
      next = (next + 1) % backendPorts.length;
      if (!removed.has(index) && !tried.has(index)) return index;
    }
    return null;
  };

  const connect = (client: net.Socket, tried: Set<number>): void => {
    const index = nextBackend(tried);
    if (index === null) {
      client.destroy();
      return;
    }
    tried.add(index);
    open[index] = (open[index] ?? 0) + 1;
    let established = false;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      open[index] = (open[index] ?? 0) - 1;
    };
    const backend = net.connect(backendPorts[index] as number, '127.0.0.1');
    backend.once('connect', () => {
      established = true;
      assigned[index] = (assigned[index] ?? 0) + 1;
      client.pipe(backend);
      backend.pipe(client);
      client.resume();
    });
    backend.once('error', () => {
      if (!established && !client.destroyed) {
        release();
        connect(client, tried);
        return;
      }
      client.destroy();
    });
    backend.once('close', (hadError) => {
      release();
      // A clean close has already ended the client through the pipe, which flushes what is
      // left of the answer; destroying it here would cut that short.
      if (established && hadError) client.destroy();
    });
    client.once('close', () => backend.destroy());
  };

  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    clients.add(client);
    client.once('close', () => clients.delete(client));
    client.on('error', () => undefined);
    connect(client, new Set());
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      resolve({
        port,
        url: `http://127.0.0.1:${port}`,
        assigned: () => [...assigned],
        open: () => [...open],
        remove: (index) => removed.add(index),
        close: () =>
          new Promise<void>((done) => {
            for (const client of clients) client.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
