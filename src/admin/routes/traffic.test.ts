/**
 * `GET /v1/traffic`'s query checks over real HTTP: an `at` so large that adding a step no longer
 * moves it (or past what a date can hold) is a 400 naming `at`, answered at once, not a window
 * loop that never ends and holds the event loop of the whole gateway.
 */
import path from 'node:path';
import request from 'supertest';
import { MemoryAccessStore, readAccessFile } from '../../access/access-store';
import { MemoryAuditLog } from '../../access/memory-audit-log';
import { accessServiceFor } from '../../../test/support/access-service';
import { listenOnLoopback } from '../../../test/support/listen';
import { createLogger } from '../../logging/logger';
import { MemoryTrafficStore, TrafficCounter } from '../../metrics/traffic-counts';
import { createAdminApp } from '../admin-app';

const TOKEN = 'admin-token-for-tests-0123456789';
const SANDBOX_ACCESS = path.join(__dirname, '../../../config/sandbox-access.yaml');

describe('GET /v1/traffic query', () => {
  let close: () => Promise<void>;
  let api: ReturnType<typeof request>;

  beforeAll(async () => {
    const audit = new MemoryAuditLog();
    const store = new MemoryAccessStore(readAccessFile(SANDBOX_ACCESS), { audit });
    const logger = createLogger('silent');
    const traffic = new TrafficCounter(new MemoryTrafficStore(), { logger });
    const app = createAdminApp({ service: accessServiceFor(store), audit, adminToken: TOKEN, logger, traffic });
    const listening = await listenOnLoopback(app);
    close = listening.close;
    api = request(listening.url);
  });
  afterAll(() => close());

  it('refuses a by other than class with a 400 naming by', async () => {
    const res = await api.get('/v1/traffic?by=vendor').set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'by' })]);
  });

  it.each(['100000000000000000000', '9000000000000'])('refuses at=%s with a 400 naming at', async (at) => {
    const res = await api.get(`/v1/traffic?at=${at}`).set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'at' })]);
  });

  it('answers no caller without the admin token', async () => {
    const res = await api.get('/v1/traffic');
    expect(res.status).toBe(401);
    expect(res.body.series).toBeUndefined();
  });

  it('answers a window at a time given in unix seconds', async () => {
    const res = await api.get('/v1/traffic?at=1700000000&range=1h').set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ source: 'gateway', from: '2023-11-14T21:14:00.000Z', to: '2023-11-14T22:14:00.000Z', series: [] });
  });
});
