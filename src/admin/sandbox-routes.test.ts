import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import { OutboxSmsProvider } from '../sms/outbox';
import { latestCodeSentTo, readSmsOutbox } from '../sms/outbox-client';
import { startRedisServer } from '../../test/support/redis-server';
import { RedisAuditLog, type AuditLog } from '../access/audit-log';
import { SANDBOX_ADMIN_TOKEN, sandboxAdminApp } from '../../test/support/sandbox-admin';

const TOKEN = SANDBOX_ADMIN_TOKEN;

async function startAdmin(options: { outbox?: OutboxSmsProvider; audit?: AuditLog }) {
  const { app, audit } = sandboxAdminApp({ smsOutbox: options.outbox, ...(options.audit ? { audit: options.audit } : {}) });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    audit,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const get = (url: string, token: string | null = TOKEN, method = 'GET') =>
  fetch(`${url}/v1/sandbox/sms`, { method, headers: token === null ? {} : { authorization: `Bearer ${token}` } });

describe('admin API: GET /v1/sandbox/sms', () => {
  it('lists the outbox newest first and records each read in the audit log, without the messages', async () => {
    const outbox = new OutboxSmsProvider(10);
    await outbox.send({ to: '+447400123456', text: 'Your code is 111111.' });
    await outbox.send({ to: '+447400654321', text: 'Your code is 222222.' });
    const admin = await startAdmin({ outbox });
    try {
      const response = await get(admin.url);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const messages = (await response.json()) as Array<{ to: string; text: string; id: string; sentAt: string }>;
      expect(messages.map((m) => m.text)).toEqual(['Your code is 222222.', 'Your code is 111111.']);
      expect(messages[0]).toEqual({
        id: expect.any(String),
        sentAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        to: '+447400654321',
        text: 'Your code is 222222.',
      });

      await get(admin.url);
      const entries = await admin.audit.list({ limit: 10 });
      expect(entries).toHaveLength(2);
      expect(entries[0]).toMatchObject({
        actor: expect.stringMatching(/^admin:bootstrap$/),
        action: 'sandbox.sms.read',
        target: 'sandbox/sms',
        before: null,
        after: { messages: 2 },
      });
      const recorded = JSON.stringify(entries);
      for (const secret of ['111111', '222222', '7400123456', '7400654321', TOKEN]) expect(recorded).not.toContain(secret);
    } finally {
      await admin.close();
    }
  });

  it('gives the newest code sent to a number to the outbox client, in any accepted spelling', async () => {
    const outbox = new OutboxSmsProvider(10);
    await outbox.send({ to: '+447400123456', text: 'Your code is 111111.' });
    await outbox.send({ to: '+447400654321', text: 'Your code is 999999.' });
    await outbox.send({ to: '+447400123456', text: 'Your code is 333333.' });
    const admin = await startAdmin({ outbox });
    try {
      expect(await latestCodeSentTo(admin.url, TOKEN, '07400 123456')).toBe('333333');
      await expect(latestCodeSentTo(admin.url, TOKEN, '07400 000000')).rejects.toThrow('no code');
      await expect(readSmsOutbox(admin.url, 'wrong-token-0123456789')).rejects.toThrow('401');
    } finally {
      await admin.close();
    }
  });

  it('needs the admin token, and answers other methods with 405', async () => {
    const admin = await startAdmin({ outbox: new OutboxSmsProvider(10) });
    try {
      expect((await get(admin.url, null)).status).toBe(401);
      const post = await get(admin.url, TOKEN, 'POST');
      expect(post.status).toBe(405);
      expect(post.headers.get('allow')).toBe('GET');
      expect(await admin.audit.list({ limit: 10 })).toEqual([]);
    } finally {
      await admin.close();
    }
  });

  it('lets owners and operators read the live codes, never viewers or approvers', async () => {
    const outbox = new OutboxSmsProvider(10);
    await outbox.send({ to: '+447400123456', text: 'Your code is 111111.' });
    const admin = await startAdmin({ outbox });
    try {
      const tokens: Record<string, string> = {};
      for (const role of ['viewer', 'approver', 'operator', 'owner']) {
        const created = await fetch(`${admin.url}/v1/admins`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ id: `sms-${role}`, name: `${role} of the outbox test`, role }),
        });
        expect(created.status).toBe(201);
        const { enrolmentCode } = (await created.json()) as { enrolmentCode: string };
        const enrolled = await fetch(`${admin.url}/v1/admins/enrol`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ enrolmentCode }),
        });
        tokens[role] = ((await enrolled.json()) as { token: string }).token;
      }
      for (const role of ['viewer', 'approver']) {
        const response = await get(admin.url, tokens[role]);
        expect(response.status).toBe(403);
        const text = await response.text();
        expect(JSON.parse(text)).toMatchObject({ code: 'permission_denied' });
        expect(text).not.toContain('111111');
      }
      for (const role of ['operator', 'owner']) expect((await get(admin.url, tokens[role])).status).toBe(200);
      const reads = (await admin.audit.list({ limit: 20 })).filter((entry) => entry.action === 'sandbox.sms.read');
      expect(reads.map((entry) => entry.actor).sort()).toEqual(['admin:sms-operator', 'admin:sms-owner']);
    } finally {
      await admin.close();
    }
  });

  it('does not exist without an outbox (outside sandbox mode)', async () => {
    const admin = await startAdmin({});
    try {
      const response = await get(admin.url);
      expect(response.status).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe('not_found');
    } finally {
      await admin.close();
    }
  });

  it('refuses the read with 503 when the audit log cannot record it', async () => {
    const redisServer = await startRedisServer();
    const client = new Redis(redisServer.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 100, disconnectTimeout: 50 });
    client.on('error', () => undefined);
    await new Promise<void>((resolve) => client.once('ready', () => resolve()));
    const outbox = new OutboxSmsProvider(10);
    await outbox.send({ to: '+447400123456', text: 'Your code is 111111.' });
    const admin = await startAdmin({ outbox, audit: new RedisAuditLog(client, { keyPrefix: 'test:' }) });
    try {
      expect((await get(admin.url)).status).toBe(200);
      await redisServer.stop();
      const response = await get(admin.url);
      expect(response.status).toBe(503);
      const text = await response.text();
      expect(JSON.parse(text)).toMatchObject({ code: 'store_unavailable' });
      expect(text).not.toContain('111111');
    } finally {
      await admin.close();
      client.disconnect();
      await redisServer.stop();
    }
  });
});
