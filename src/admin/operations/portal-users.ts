/**
 * Vendor portal users (README "Vendor portal"): a vendor's developers, invited by an admin, who
 * sign in to the portal with a portal token. The token is in the answer to the invitation (and to
 * each re-issue) only, once; the store keeps its hash and prefix, and it works for
 * `portal.tokenTtlDays` after it was issued. A portal user belongs to one vendor and is reached
 * only through it: another vendor's portal user id is not found.
 *
 * Reads the live AccessIndex and writes portal user records through the shared AccessWriter (plan
 * on the current records, commit with the audit entry in one step). Audit actions
 * `portal_user.invite`, `portal_user.token` and `portal_user.remove` on
 * `vendors/<vendorId>/portal-users/<id>`; no audit entry, preview or view ever holds the token or
 * its hash. Deleting a vendor deletes its portal users (AccessService.deleteVendor).
 */
import { z } from 'zod';
import { GatewayError } from '../../errors/error-catalogue';
import { hashApiKey } from '../../access/api-key';
import { generatePortalToken, portalTokenPrefix } from '../../access/portal-token';
import { portalUserSchema, type PortalUser } from '../../access/model';
import type { AccessIndex } from '../../access/access-index';
import { findVendor, newId, pageOf, type Page, type PageRequest } from './access-service';
import { writerOf, type AccessWriter, type Outcome, type WriteBy } from './access-writer';
import { parseInput } from './admin-inputs';

/** A portal user as every answer and audit entry shows it: without the token's hash. */
type PortalUserView = Omit<PortalUser, 'tokenHash'>;
/** The answer to an invitation or a re-issue: the only place the token ever appears. */
type WithToken = PortalUserView & { token: string };

/**
 * `POST /v1/vendors/{vendorId}/portal-users`. `id` is not for callers: four eyes keeps the id the
 * maker's preview made up, so approval makes the portal user the preview showed.
 */
const inviteInput = z
  .object({
    id: portalUserSchema.shape.id.optional(),
    email: portalUserSchema.shape.email,
    name: z.string().trim().min(1).max(200),
  })
  .strict();

interface PortalUsersOptions {
  /** A portal token works this long after it is issued (portal.tokenTtlDays). */
  readonly tokenTtlDays: number;
}

const DAY_MS = 86_400_000;

function portalUserView(record: PortalUser): PortalUserView {
  const { tokenHash: _hash, ...view } = record;
  return view;
}

const targetOf = (vendorId: string, portalUserId: string): string => `vendors/${vendorId}/portal-users/${portalUserId}`;

/** The admin a write is made for: the maker of a proposal being approved, else the writer. */
function adminIdOf(by: WriteBy): string {
  const writer = writerOf(by);
  return writer.approving ? writer.approving.proposal.makerId : writer.actor.replace(/^admin:/, '');
}

/** The vendor's portal user, or 404 (also when the id belongs to another vendor). */
function findPortalUser(index: AccessIndex, vendorId: string, portalUserId: string): PortalUser {
  findVendor(index, vendorId);
  const record = index.portalUser(portalUserId);
  if (!record || record.vendorId !== vendorId) throw new GatewayError('not_found', `Vendor "${vendorId}" has no portal user "${portalUserId}".`);
  return record;
}

export class PortalUsers {
  constructor(
    private readonly writer: AccessWriter,
    private readonly options: PortalUsersOptions,
  ) {}

  async list(vendorId: string, page: PageRequest = {}): Promise<Page<PortalUserView>> {
    const index = await this.writer.index();
    findVendor(index, vendorId);
    const records = index.portalUsersOf(vendorId);
    const { ids, next } = pageOf(
      records.map((record) => record.id),
      page,
    );
    const chosen = new Set(ids);
    return { items: records.filter((record) => chosen.has(record.id)).map(portalUserView), next };
  }

  async get(vendorId: string, portalUserId: string): Promise<PortalUserView> {
    return portalUserView(findPortalUser(await this.writer.index(), vendorId, portalUserId));
  }

  /** Invites a portal user of the vendor: the token is in the result only, once. */
  async invite(vendorId: string, input: unknown, by: WriteBy): Promise<Outcome<WithToken>> {
    const body = parseInput(inviteInput, input, 'portal user');
    const token = generatePortalToken();
    return this.writer.write(by, (index) => {
      findVendor(index, vendorId);
      const id = body.id ?? newId('pu');
      if (index.portalUser(id)) throw new GatewayError('conflict', `A portal user with id "${id}" already exists.`);
      const email = body.email.toLowerCase();
      if (index.portalUsersOf(vendorId).some((other) => other.email.toLowerCase() === email)) {
        throw new GatewayError('conflict', `Vendor "${vendorId}" already has a portal user with email "${body.email}".`);
      }
      const now = new Date();
      const record: PortalUser = {
        id,
        vendorId,
        email: body.email,
        name: body.name,
        ...this.tokenFields(token, now),
        createdAt: now.toISOString(),
        createdBy: adminIdOf(by),
      };
      const view = portalUserView(record);
      return {
        result: { ...view, token },
        change: { action: 'portal_user.invite', target: targetOf(vendorId, id), before: null, after: view },
        // The store refuses a portal user whose vendor is gone by then; the retry then answers 404.
        ops: [{ kind: 'portalUser', id, value: record, expect: null }],
      };
    });
  }

  /** A new token for the portal user, in the result only, once; the one before stops working. */
  async reissueToken(vendorId: string, portalUserId: string, by: WriteBy): Promise<Outcome<WithToken>> {
    const token = generatePortalToken();
    return this.writer.write(by, (index) => {
      const record = findPortalUser(index, vendorId, portalUserId);
      const updated: PortalUser = { ...record, ...this.tokenFields(token, new Date()) };
      const after = portalUserView(updated);
      return {
        result: { ...after, token },
        change: { action: 'portal_user.token', target: targetOf(vendorId, portalUserId), before: portalUserView(record), after },
        ops: [{ kind: 'portalUser', id: portalUserId, value: updated, expect: record }],
      };
    });
  }

  async remove(vendorId: string, portalUserId: string, by: WriteBy): Promise<Outcome<null>> {
    return this.writer.write(by, (index) => {
      const record = findPortalUser(index, vendorId, portalUserId);
      return {
        result: null,
        change: { action: 'portal_user.remove', target: targetOf(vendorId, portalUserId), before: portalUserView(record), after: null },
        ops: [{ kind: 'portalUser', id: portalUserId, value: null, expect: record }],
      };
    });
  }

  private tokenFields(token: string, now: Date): Pick<PortalUser, 'tokenPrefix' | 'tokenHash' | 'tokenIssuedAt' | 'tokenExpiresAt'> {
    return {
      tokenPrefix: portalTokenPrefix(token),
      tokenHash: hashApiKey(token),
      tokenIssuedAt: now.toISOString(),
      tokenExpiresAt: new Date(now.getTime() + this.options.tokenTtlDays * DAY_MS).toISOString(),
    };
  }
}
