/**
 * Named admins (README "Admin identities"): accounts with a role, kept in the access store beside
 * the config (never part of the declarative document), each with a token shown once and stored
 * as its SHA-256 hash. The bootstrap ADMIN_TOKEN stays and acts as the owner `bootstrap`.
 *
 * Reads the live AccessIndex (admins by token hash, so authenticating costs one hash and one map
 * lookup); writes admin records through the shared AccessWriter, each with its audit entry. No
 * result, change or log line ever holds a token or its hash.
 */
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { GatewayError } from '../errors/error-catalogue';
import { ADMIN_ROLES, adminAccountSchema, type AdminAccount, type AdminRole } from './model';
import { parseInput } from './admin-inputs';
import type { AccessWriter, Outcome, WriteBy } from './access-writer';

/** Who an admin request acts as. */
export interface AdminIdentity {
  readonly id: string;
  readonly name: string;
  readonly role: AdminRole;
}

export const BOOTSTRAP_ADMIN: AdminIdentity = Object.freeze({ id: 'bootstrap', name: 'bootstrap', role: 'owner' });

export type AdminView = Omit<AdminAccount, 'tokenHash'>;
/** The answer to a create or a rotation: the only place the token ever appears. */
export type AdminWithToken = AdminView & { token: string };

const TOKEN_PREFIX = 'cba_';

export function generateAdminToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(24).toString('base64url')}`;
}

export function hashAdminToken(token: string): string {
  return `sha256:${createHash('sha256').update(token).digest('hex')}`;
}

const createAdminInput = z
  .object({
    id: adminAccountSchema.shape.id.refine((id) => id !== BOOTSTRAP_ADMIN.id, 'bootstrap is the ADMIN_TOKEN admin').optional(),
    name: adminAccountSchema.shape.name,
    role: z.enum(ADMIN_ROLES),
  })
  .strict();

function view(admin: AdminAccount): AdminView {
  const { tokenHash: _hash, ...rest } = admin;
  return rest;
}

export class AdminDirectory {
  constructor(private readonly writer: AccessWriter) {}

  /** The named admin a token belongs to; null when none (the caller checks the bootstrap token). */
  async authenticate(token: string): Promise<AdminIdentity | null> {
    if (!token.startsWith(TOKEN_PREFIX)) return null;
    const hash = hashAdminToken(token);
    // An admin created a moment ago on another instance: look again once this one has caught up.
    const found = this.writer.cache.index?.adminByTokenHash(hash) ?? (await this.writer.index()).adminByTokenHash(hash);
    return found ? { id: found.id, name: found.name, role: found.role } : null;
  }

  /** The admin a browser session names, while it still holds the token the session began with. */
  async sessionIdentity(adminId: string, tokenFingerprint: string): Promise<AdminIdentity | null> {
    const admin = (await this.writer.index()).admin(adminId);
    // The fingerprint is the first 16 hex digits of the token's SHA-256, as the hash stores it.
    return admin && admin.tokenHash.slice('sha256:'.length, 'sha256:'.length + 16) === tokenFingerprint ? { id: admin.id, name: admin.name, role: admin.role } : null;
  }

  async list(): Promise<AdminView[]> {
    return (await this.writer.index()).adminList().map(view);
  }

  async create(input: unknown, by: WriteBy): Promise<Outcome<AdminWithToken>> {
    const body = parseInput(createAdminInput, input, 'admin');
    const token = generateAdminToken();
    return this.writer.write(by, (index) => {
      const id = body.id ?? `adm-${randomBytes(6).toString('hex')}`;
      if (index.admin(id)) throw new GatewayError('conflict', `An admin with id "${id}" already exists.`);
      const admin: AdminAccount = { id, name: body.name, role: body.role, tokenPrefix: token.slice(0, 12), tokenHash: hashAdminToken(token), createdAt: new Date().toISOString() };
      return {
        result: { ...view(admin), token },
        change: { action: 'admin.create', target: `admins/${id}`, before: null, after: view(admin) },
        ops: [{ kind: 'admin', id, value: admin, expect: null }],
      };
    });
  }

  /** A new token for the admin; the old one stops working at once. */
  async rotate(adminId: string, by: WriteBy): Promise<Outcome<AdminWithToken>> {
    const token = generateAdminToken();
    return this.writer.write(by, (index) => {
      const admin = this.find(index.admin(adminId), adminId);
      const rotated: AdminAccount = { ...admin, tokenPrefix: token.slice(0, 12), tokenHash: hashAdminToken(token) };
      return {
        result: { ...view(rotated), token },
        change: { action: 'admin.rotate', target: `admins/${adminId}`, before: view(admin), after: view(rotated) },
        ops: [{ kind: 'admin', id: adminId, value: rotated, expect: admin }],
      };
    });
  }

  async remove(adminId: string, by: WriteBy): Promise<Outcome<null>> {
    return this.writer.write(by, (index) => {
      const admin = this.find(index.admin(adminId), adminId);
      return {
        result: null,
        change: { action: 'admin.delete', target: `admins/${adminId}`, before: view(admin), after: null },
        ops: [{ kind: 'admin', id: adminId, value: null, expect: admin }],
      };
    });
  }

  private find(admin: AdminAccount | undefined, adminId: string): AdminAccount {
    if (!admin) throw new GatewayError('not_found', `No admin "${adminId}".`);
    return admin;
  }
}
