/**
 * The audit log through the admin API: `/v1/audit` (newest first, filtered by `vendor`, `actor`,
 * `action`, `since` and `until` on the server, paged by a `before` cursor that `Link: rel="next"`
 * carries), `/v1/audit/export` (the archive export: JSON lines, oldest first, from the newest
 * checkpoint at or before `since` to a checkpoint signed for this export), `/v1/audit/verify`
 * (the hash chain checked, optionally against a head the auditor holds) and
 * `/v1/audit/public-key` (the key an auditor checks checkpoints with, offline).
 *
 * Reads the query only; sets nothing but the answer, its Link header and the checkpoint an export
 * writes (reading the log is not itself audited: it holds no secret, unlike the access document).
 */
import { once } from 'node:events';
import type { Request, Response, Router } from 'express';
import { ChainVerifier, type VerifyResult } from '../../access/audit-chain';
import type { AuditLog } from '../../access/audit-log';
import { GatewayError } from '../../errors/error-catalogue';
import type { AuditQuery } from '../../access/audit-log';
import { methodNotAllowed, queryInteger, setNextLink, type Routes } from './route-kit';

const DEFAULT_AUDIT_LIMIT = 50;
const MAX_AUDIT_LIMIT = 1000;
const MAX_FILTER_LENGTH = 300;
const DAY_MS = 86_400_000;
/** A date, or a date-time with its offset: what `since` and `until` take. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

const invalid = (field: string, message: string): GatewayError =>
  new GatewayError('invalid_request', `The query parameter ${field} is not valid.`, { errors: [{ field, message }] });

function queryText(req: Request, name: string): string | undefined {
  const value = req.query[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || value.length > MAX_FILTER_LENGTH) throw invalid(name, `one value of at most ${MAX_FILTER_LENGTH} characters`);
  return value;
}

/**
 * A time bound in ms. A date alone is the whole UTC day: `since` from its start, `until` to its
 * end, so `since=2026-03-01&until=2026-03-01` is that day.
 */
function queryTime(req: Request, name: 'since' | 'until'): number | undefined {
  const value = queryText(req, name);
  if (value === undefined) return undefined;
  const ms = ISO_DATE.test(value) || ISO_DATE_TIME.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw invalid(name, 'a date or date-time (ISO 8601, e.g. 2026-03-01 or 2026-03-01T09:30:00Z)');
  return name === 'until' && ISO_DATE.test(value) ? ms + DAY_MS - 1 : ms;
}

function auditQuery(req: Request): AuditQuery {
  const limit = queryInteger(req, 'limit', DEFAULT_AUDIT_LIMIT, MAX_AUDIT_LIMIT);
  const before = queryText(req, 'before');
  const [vendor, actor, action] = [queryText(req, 'vendor'), queryText(req, 'actor'), queryText(req, 'action')];
  const [sinceMs, untilMs] = [queryTime(req, 'since'), queryTime(req, 'until')];
  if (sinceMs !== undefined && untilMs !== undefined && untilMs < sinceMs) throw invalid('until', 'a time at or after since');
  return { limit, before, vendor, actor, action, sinceMs, untilMs };
}

/** Entries read from the store per step of an export or a verification. */
const PAGE = 1000;
const HASH = /^[0-9a-f]{64}$/;

type Entry = Awaited<ReturnType<AuditLog['range']>>[number];

/** Every entry from `fromId` (or the oldest) to `untilId` (or the newest), oldest first. */
async function* entries(audit: AuditLog, fromId: string | null, untilId?: string): AsyncGenerator<Entry> {
  let after: string | undefined;
  const sinceMs = fromId ? Number(fromId.split('-')[0]) : 0;
  for (;;) {
    const page = await audit.range({ sinceMs, after, until: untilId, limit: PAGE });
    // The first page starts at fromId itself: entries of the same millisecond before it are not the export's.
    const from =
      after === undefined && fromId
        ? Math.max(
            0,
            page.findIndex((e) => e.id === fromId),
          )
        : 0;
    yield* page.slice(from);
    if (page.length < PAGE) return;
    after = page.at(-1)?.id;
  }
}

/** The whole log checked: the chain, the checkpoints with this gateway's key, the recorded head, and `expectedHead`. */
async function verifyAudit(audit: AuditLog, expectedHead: string | undefined): Promise<VerifyResult> {
  // The head first: entries appended during the walk are then after it, never a false alarm.
  const head = await audit.head();
  const verifier = new ChainVerifier({
    keys: new Map([[audit.signer.keyId, audit.signer.publicKey]]),
    expectedHead,
    recordedHead: head.count > 0 ? head.hash : undefined,
  });
  for await (const entry of entries(audit, null)) if (!verifier.add(entry)) break;
  return verifier.result();
}

function expectedHeadOf(req: Request): string | undefined {
  const head = req.query.head;
  if (head === undefined) return undefined;
  if (typeof head !== 'string' || !HASH.test(head)) {
    throw new GatewayError('invalid_request', 'The query parameter head is not valid.', {
      errors: [{ field: 'head', message: 'a SHA-256 hash: 64 lowercase hexadecimal digits' }],
    });
  }
  return head;
}

export function registerAudit(router: Router, { audit }: Routes): void {
  router
    .route('/audit')
    .get(async function listAudit(req: Request, res: Response) {
      const page = await audit.page(auditQuery(req));
      if (page.next !== null) setNextLink(req, res, 'before', page.next);
      res.json(page.items);
    })
    .all(methodNotAllowed('GET'));
  router
    .route('/audit/verify')
    .get(async function verifyAuditChain(req: Request, res: Response) {
      const expectedHead = expectedHeadOf(req);
      res.json({ ...(await verifyAudit(audit, expectedHead)), keyId: audit.signer.keyId });
    })
    .all(methodNotAllowed('GET'));
  router
    .route('/audit/public-key')
    .get(function auditPublicKey(_req: Request, res: Response) {
      res.type('application/x-pem-file').send(audit.signer.publicKeyPem);
    })
    .all(methodNotAllowed('GET'));
  // The archive export, streamed as JSON lines so a long retention never sits in memory.
  router
    .route('/audit/export')
    .get(async function exportAudit(req: Request, res: Response) {
      const since = typeof req.query.since === 'string' ? Date.parse(req.query.since) : NaN;
      if (Number.isNaN(since)) {
        throw new GatewayError('invalid_request', 'The query parameter since is not valid.', {
          errors: [{ field: 'since', message: 'a date or date-time (ISO 8601)' }],
        });
      }
      // Signed first, so the export ends with it. It starts at the newest checkpoint at or before
      // since (or, without one, at the oldest entry), so it verifies on its own.
      const end = (await audit.checkpoint()) as { id: string };
      const start = await audit.checkpointBefore(since);
      res.status(200).type('application/x-ndjson');
      for await (const entry of entries(audit, start, end.id)) {
        if (res.destroyed) return;
        // A reader that went away while we waited ends the wait too (its 'drain' never comes).
        if (!res.write(`${JSON.stringify(entry)}\n`)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
      }
      res.end();
    })
    .all(methodNotAllowed('GET'));
}
