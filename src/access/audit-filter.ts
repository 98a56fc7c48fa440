/**
 * One filtered page of the audit log, newest first, the same for both stores: the store reads
 * batches of entries (newest first, below a cursor, inside the time range), this matches them by
 * vendor, actor and action until the page is full or the scan budget is spent. A page cut short
 * by the budget still has a `next` cursor (the last entry scanned), so a rare vendor's entries
 * are reached page by page and a page is never wrong, only short.
 *
 * Reads what the store's `read` gives; sets nothing.
 */
import type { AuditEntry, AuditFilter, AuditPage, AuditQuery } from './audit-types';

/** Entries one filtered page reads at most before it answers with what it found. */
export const AUDIT_SCAN_BUDGET = 10_000;
/** Entries read per step of a filtered scan. */
const SCAN_BATCH = 1000;

/** An entry as stored: those written before `vendorIds` existed have none. */
export type StoredAuditEntry = Omit<AuditEntry, 'vendorIds'> & { readonly vendorIds?: readonly string[] };

/**
 * Up to `count` entries, newest first, older than `before` (an entry id) when it is given, and
 * written inside the query's `sinceMs`..`untilMs` (both inclusive). An entry the store already
 * knows cannot match (`storedTextMayMatch`) may be given as its id alone: it counts as scanned.
 */
type AuditBatchReader = (before: string | undefined, count: number) => Promise<Array<StoredAuditEntry | string>>;

/** A value as it appears inside the stored JSON text (escaped as JSON.stringify escapes it). */
const asStored = (value: string): string => JSON.stringify(value).slice(1, -1);

/**
 * A cheap first test on an entry's stored JSON text, before it is parsed: false only when the
 * entry cannot match (every filter value must appear in the text, escaped as stored), so a scan
 * of a rare vendor parses only the entries that mention it.
 */
export function storedTextMayMatch(filter: AuditFilter): (text: string) => boolean {
  const needles: string[][] = [];
  if (filter.vendor !== undefined) needles.push([`"${asStored(filter.vendor)}"`, `vendors/${asStored(filter.vendor)}`]);
  if (filter.actor !== undefined) needles.push([asStored(filter.actor)]);
  if (filter.action !== undefined) needles.push([asStored(filter.action)]);
  return (text) => needles.every((any) => any.some((needle) => text.includes(needle)));
}

const narrows = (filter: AuditFilter): boolean => filter.vendor !== undefined || filter.actor !== undefined || filter.action !== undefined;

/** Whether an entry passes the vendor, actor and action filters (the time range is the reader's). */
function auditMatcher(filter: AuditFilter): (entry: StoredAuditEntry) => boolean {
  const { vendor, actor, action } = filter;
  return (entry) => {
    if (vendor !== undefined) {
      // Older entries name no vendors: their target is the vendor's path or below it, never a
      // prefix of another id (`vendors/acme` is not `vendors/acme-corp`).
      const named = entry.vendorIds ? entry.vendorIds.includes(vendor) : entry.target === `vendors/${vendor}` || entry.target.startsWith(`vendors/${vendor}/`);
      if (!named) return false;
    }
    if (actor !== undefined && entry.actor !== actor && !(!actor.includes(':') && entry.actor.endsWith(`:${actor}`))) return false;
    if (action !== undefined && entry.action !== action && !(!action.includes('.') && entry.action.startsWith(`${action}.`))) return false;
    return true;
  };
}

/** An entry as callers see it: `vendorIds` always there. */
export const withVendorIds = (entry: StoredAuditEntry): AuditEntry => (entry.vendorIds ? (entry as AuditEntry) : { ...entry, vendorIds: [] });

/** A page of `query` over what `read` gives (see the module header). */
export async function scanPage(query: AuditQuery, read: AuditBatchReader): Promise<AuditPage> {
  const matches = auditMatcher(query);
  const filtered = narrows(query);
  const items: AuditEntry[] = [];
  let scanned = 0;
  let cursor = query.before;
  for (;;) {
    // One more than the page: finding it is how the page knows there is a next one.
    const count = filtered ? Math.min(SCAN_BATCH, AUDIT_SCAN_BUDGET - scanned) : query.limit + 1 - items.length;
    const batch = await read(cursor, count);
    for (const entry of batch) {
      scanned += 1;
      cursor = typeof entry === 'string' ? entry : entry.id;
      if (typeof entry === 'string' || !matches(entry)) continue;
      items.push(withVendorIds(entry));
      if (items.length > query.limit) {
        items.length = query.limit;
        return { items, next: (items[items.length - 1] as AuditEntry).id };
      }
    }
    if (batch.length < count) return { items, next: null };
    if (filtered && scanned >= AUDIT_SCAN_BUDGET) return { items, next: cursor ?? null };
  }
}
