/**
 * Readiness semantics of the status app on a real socket: 503 while the access config is not
 * loaded and from the moment shutdown begins, 200 otherwise, whatever Redis and the breakers
 * say (they are reported, not judged); liveness only says the event loop runs.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Registry } from 'prom-client';
import type { AccessCacheStatus } from '../access/cache';
import type { BreakerState } from '../core-client/breakers';
import { createStatusApp } from './status-app';

interface World {
  access: AccessCacheStatus;
  shuttingDown: boolean;
  redisUp: boolean;
  resources: BreakerState;
}

async function serve(world: World): Promise<{ url: string; server: Server }> {
  const app = createStatusApp({
    accessStatus: () => world.access,
    redisStatus: () => ({ up: world.redisUp, downSeconds: world.redisUp ? 0 : 12 }),
    breakerStates: () => ({ resources: world.resources, bankaccounts: 'closed', receipts: 'closed', customers: 'closed' }),
    isShuttingDown: () => world.shuttingDown,
    mode: { accessStore: 'redis', core: 'remote' },
    registry: new Registry(),
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('status app', () => {
  const world: World = { access: { loaded: false, version: null, ageSeconds: null, problem: null }, shuttingDown: false, redisUp: true, resources: 'closed' };
  let url: string;
  let server: Server;
  beforeAll(async () => ({ url, server } = await serve(world)));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('is not ready before the access config is loaded', async () => {
    const res = await fetch(`${url}/health/ready`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({
      status: 'not_ready',
      reason: 'the access config is not loaded yet',
      accessConfig: { loaded: false, version: null, ageSeconds: null },
    });
  });

  it('is not ready while the store is inconsistent and no copy is held, and says why', async () => {
    world.access = { loaded: false, version: null, ageSeconds: null, problem: 'version 2 holds no vendor, key or user record' };
    const res = await fetch(`${url}/health/ready`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({
      status: 'not_ready',
      reason: 'the access config in Redis is inconsistent: version 2 holds no vendor, key or user record',
      accessConfig: { loaded: false, problem: 'version 2 holds no vendor, key or user record' },
    });
  });

  it('stays ready while it serves a good copy of an inconsistent store, reporting the problem', async () => {
    world.access = { loaded: true, version: 2, ageSeconds: 5, problem: 'version 2 has lost records (keys 0 of 40)' };
    const res = await fetch(`${url}/health/ready`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'ready', accessConfig: { loaded: true, problem: 'version 2 has lost records (keys 0 of 40)' } });
    expect(body).not.toHaveProperty('reason');
  });

  it('is ready once loaded, and stays ready with Redis down and a breaker open, reporting both', async () => {
    world.access = { loaded: true, version: 4, ageSeconds: 30, problem: null };
    world.redisUp = false;
    world.resources = 'open';
    const res = await fetch(`${url}/health/ready`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: 'ready',
      accessConfig: { loaded: true, version: 4, ageSeconds: 30 },
      redis: { up: false, downSeconds: 12 },
      breakers: { resources: 'open', bankaccounts: 'closed', receipts: 'closed', customers: 'closed' },
    });
  });

  it('is not ready once shutdown has begun, while liveness still answers', async () => {
    world.shuttingDown = true;
    const ready = await fetch(`${url}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'not_ready', reason: 'shutting down', shuttingDown: true });
    const live = await fetch(`${url}/health/live`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
  });
});
