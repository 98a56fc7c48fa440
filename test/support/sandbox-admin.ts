/**
 * An admin app over the sandbox access document in memory, as the gateway builds one (access
 * service, admin directory, audit log), for tests that drive the admin API without a gateway;
 * and the same listening on loopback with one enrolled named admin per role asked for.
 */
import request from 'supertest';
import type { Express } from 'express';
import path from 'node:path';
import { MemoryAccessStore, readAccessFile } from '../../src/access/access-store';
import { type AuditLog } from '../../src/access/audit-log';
import { MemoryAuditLog } from '../../src/access/memory-audit-log';
import { continueFromRoutes, createAdminApp, type AdminAppDeps } from '../../src/admin/admin-app';
import { AdminDirectory } from '../../src/admin/operations/admin-directory';
import { createLogger } from '../../src/logging/logger';
import { accessServiceFor } from './access-service';
import { listenOnLoopback, type Listening } from './listen';

export const SANDBOX_ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
const SANDBOX_ACCESS = path.join(__dirname, '../../config/sandbox-access.yaml');

type Overrides = Partial<Omit<AdminAppDeps, 'service' | 'admins' | 'audit'>> & { readonly audit?: AuditLog };

/** The admin app over the sandbox document; `overrides.audit` also becomes the store's audit log. */
export function sandboxAdminApp(overrides: Overrides = {}): { app: Express; audit: AuditLog } {
  const audit = overrides.audit ?? new MemoryAuditLog();
  const service = accessServiceFor(new MemoryAccessStore(readAccessFile(SANDBOX_ACCESS), { audit }));
  const app = createAdminApp({
    admins: new AdminDirectory(service.writer),
    adminToken: SANDBOX_ADMIN_TOKEN,
    logger: createLogger('silent'),
    ...overrides,
    service,
    audit,
  });
  return { app, audit };
}

/**
 * sandboxAdminApp on loopback, answering from its routes as the gateway's admin server does
 * (continueFromRoutes), with a named admin `<idPrefix>-<role>` enrolled per role; their tokens by role.
 */
export async function startSandboxAdmin(
  roles: readonly string[],
  idPrefix: string,
  overrides: Overrides = {},
): Promise<{ server: Listening; tokens: Record<string, string> }> {
  const server = await listenOnLoopback(sandboxAdminApp(overrides).app);
  continueFromRoutes(server.server);
  const tokens: Record<string, string> = {};
  for (const role of roles) {
    const filed = await request(server.url)
      .post('/v1/admins')
      .set('Authorization', `Bearer ${SANDBOX_ADMIN_TOKEN}`)
      .send({ id: `${idPrefix}-${role}`, name: role, role });
    const enrolled = await request(server.url).post('/v1/admins/enrol').send({ enrolmentCode: filed.body.enrolmentCode });
    tokens[role] = enrolled.body.token as string;
  }
  return { server, tokens };
}
