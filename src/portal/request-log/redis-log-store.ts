/**
 * The request log in Redis, shared by every instance: each writes its batches, any reads them.
 *
 * Key layout (under `redis.keyPrefix`; the hash tag puts a vendor's keys in one cluster slot):
 * - `{reqlog:<vendorId>}:log`: a stream, one entry per request, fields `r` (request id) and `e`
 *   (the stored form, stored-entry.ts), its id the log id `<atMs>-<seq>` (raised to the previous id
 *   for an entry that arrives late, since stream ids only increase). Newest first is XREVRANGE;
 *   a time range is an id range; a stream keeps its entries in compact blocks (listpacks), with
 *   no per-entry allocation.
 * - `{reqlog:<vendorId>}:ids`: a hash, request id → log id: find by request id. Another vendor's
 *   request id is not in it.
 * - `{reqlog}:vendors`: a hash, vendor id → its entry count at its last write: the total cap.
 * Every write of a vendor is one script (add, drop past retention, cut to the cap, renew the
 * keys' expiry to the retention so a silent vendor's keys go by themselves); one batch is one
 * round trip of those scripts, then one for the counts. When the counts exceed the total cap, the
 * vendors over their fair share (log-store.ts fairShare) are cut to it, oldest entries first.
 * A listing scans at most LIST_BUDGET entries per script call, so a rare filter never holds
 * Redis for long, and LIST_CALLS calls per page: a page may then come short, with a cursor.
 * Measured (`npm run bench:request-log-ab`): 24 MB of Redis per 100,000 entries with the
 * gateway's 36-character request ids, half of it the stream and half the id hash.
 *
 * Reads and sets those keys only.
 */
import type { RedisClient } from '../../redis/redis-client';
import type { RequestLogEntry, RequestLogPage } from './request-log';
import { fromStored, storedTail } from './stored-entry';
import { fairShare, formatLogId, TOTAL_CAP_TRIM_TO, type ListQuery, type LogBounds, type LogStore, type VendorBatch } from './log-store';

/** Drops the entries past retention, then the oldest beyond `keep`, with their ids (read in chunks for the HDELs). */
const TRIM = `
local function forget(log, ids, upTo, count)
  local from, left = '-', count
  while left > 0 do
    local rows = redis.call('XRANGE', log, from, upTo, 'COUNT', math.min(left, 1000))
    for _, row in ipairs(rows) do redis.call('HDEL', ids, row[2][2]) end
    if #rows < math.min(left, 1000) then break end
    left = left - #rows
    from = '(' .. rows[#rows][1]
  end
end
local function trim(log, ids, oldestMs, keep)
  forget(log, ids, string.format('%d', oldestMs - 1), math.huge)
  redis.call('XTRIM', log, 'MINID', string.format('%d', oldestMs))
  local over = redis.call('XLEN', log) - keep
  if over > 0 then
    forget(log, ids, '+', over)
    redis.call('XTRIM', log, 'MAXLEN', keep)
  end
  return redis.call('XLEN', log)
end
`;

/** KEYS log, ids; ARGV nowMs, retentionMs, keep, then (atMs, requestId, packed) per entry. Answers the vendor's count. */
const WRITE = `${TRIM}
local log, ids = KEYS[1], KEYS[2]
local now, retention, keep = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local lastMs, lastSeq = 0, -1
if redis.call('EXISTS', log) == 1 then
  local info = redis.call('XINFO', 'STREAM', log)
  for i = 1, #info, 2 do
    if info[i] == 'last-generated-id' then
      local ms, seq = string.match(info[i + 1], '^(%d+)%-(%d+)$')
      lastMs, lastSeq = tonumber(ms), tonumber(seq)
    end
  end
end
for i = 4, #ARGV, 3 do
  local rid = ARGV[i + 1]
  if redis.call('HEXISTS', ids, rid) == 0 then
    local ms, seq = tonumber(ARGV[i]), 0
    if ms <= lastMs then ms, seq = lastMs, lastSeq + 1 end
    local id = string.format('%d-%d', ms, seq)
    redis.call('XADD', log, id, 'r', rid, 'e', string.format('%d|', ms - tonumber(ARGV[i])) .. ARGV[i + 2])
    redis.call('HSET', ids, rid, id)
    lastMs, lastSeq = ms, seq
  end
end
local count = trim(log, ids, now - retention, keep)
if count > 0 then
  redis.call('PEXPIRE', log, retention)
  redis.call('PEXPIRE', ids, retention)
end
return count
`;

/** KEYS log, ids; ARGV requestId. Answers { log id, stored form }, or nil. */
const FIND = `
local id = redis.call('HGET', KEYS[2], ARGV[1])
if not id then return false end
local rows = redis.call('XRANGE', KEYS[1], id, id)
if #rows == 0 then return false end
return { id, rows[1][2][4] }
`;

/**
 * KEYS log; ARGV start (an XREVRANGE end), stop, limit, status digit or '', API id or '', oldest
 * atMs, atMs bound or '', budget. Answers { next or '', id, requestId, packed, ... }.
 */
const LIST = `
local start, stop = ARGV[1], ARGV[2]
local limit, digit, api = tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local oldest, to, budget = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local out, found, scanned, lastItem = {''}, 0, 0, nil
while scanned < budget do
  local chunk = math.min(200, budget - scanned)
  local rows = redis.call('XREVRANGE', KEYS[1], start, stop, 'COUNT', chunk)
  for _, row in ipairs(rows) do
    scanned = scanned + 1
    local delay, entryApi, status = string.match(row[2][4], '^(%d+)|([^|]*)|(%d+)|')
    local at = tonumber(string.match(row[1], '^%d+')) - tonumber(delay)
    if at >= oldest and (to == nil or at < to) and (digit == nil or math.floor(tonumber(status) / 100) == digit) and (api == '' or entryApi == api) then
      if found == limit then
        out[1] = lastItem
        return out
      end
      found = found + 1
      lastItem = row[1]
      out[#out + 1] = row[1]
      out[#out + 1] = row[2][2]
      out[#out + 1] = row[2][4]
    end
  end
  if #rows < chunk then return out end
  start = '(' .. rows[#rows][1]
end
out[1] = string.gsub(start, '^%(', '')
return out
`;

/** KEYS log, ids; ARGV nowMs, retentionMs, keep. Answers the vendor's count. */
const CUT = `${TRIM}
return trim(KEYS[1], KEYS[2], tonumber(ARGV[1]) - tonumber(ARGV[2]), tonumber(ARGV[3]))
`;

/** Entries one listing script looks at, at most: a few milliseconds of Redis. */
const LIST_BUDGET = 2000;
/** Script calls one listing makes, at most, to fill a page under a rare filter. */
const LIST_CALLS = 10;
/**
 * How far after `to` a listing starts looking: an entry that reached Redis late has a log id
 * after its time (see the header).
 */
const LATE_MS = 60_000;

type Commands = {
  cbgRequestLogWrite(log: string, ids: string, ...args: Array<string | number>): Promise<number>;
  cbgRequestLogCut(log: string, ids: string, nowMs: number, retentionMs: number, keep: number): Promise<number>;
  cbgRequestLogFind(log: string, ids: string, requestId: string): Promise<[logId: string, stored: string] | null>;
  cbgRequestLogList(log: string, ...args: Array<string | number>): Promise<string[]>;
};

export class RedisLogStore implements LogStore {
  private readonly client: RedisClient & Commands;

  constructor(
    client: RedisClient,
    private readonly keyPrefix: string,
    private readonly bounds: LogBounds,
  ) {
    client.defineCommand('cbgRequestLogWrite', { numberOfKeys: 2, lua: WRITE });
    client.defineCommand('cbgRequestLogCut', { numberOfKeys: 2, lua: CUT });
    client.defineCommand('cbgRequestLogFind', { numberOfKeys: 2, lua: FIND });
    client.defineCommand('cbgRequestLogList', { numberOfKeys: 1, lua: LIST });
    this.client = client as RedisClient & Commands;
  }

  private keys(vendorId: string): [log: string, ids: string] {
    const tag = `${this.keyPrefix}{reqlog:${vendorId}}`;
    return [`${tag}:log`, `${tag}:ids`];
  }

  private get vendorsKey(): string {
    return `${this.keyPrefix}{reqlog}:vendors`;
  }

  async add(batches: readonly VendorBatch[], nowMs: number): Promise<void> {
    if (batches.length === 0) return;
    const { retentionMs, maxEntriesPerVendor } = this.bounds;
    // Issued together: one round trip (each vendor's keys may live on another cluster node).
    const counts = await Promise.all(
      batches.map(({ vendorId, entries }) => {
        const args: Array<string | number> = [nowMs, retentionMs, maxEntriesPerVendor];
        for (const entry of entries) args.push(Date.parse(entry.at), entry.requestId, storedTail(entry));
        return this.client.cbgRequestLogWrite(...this.keys(vendorId), ...args);
      }),
    );
    const written: Record<string, number> = {};
    batches.forEach(({ vendorId }, i) => (written[vendorId] = counts[i] as number));
    const [, , all] = (await this.client.multi().hset(this.vendorsKey, written).pexpire(this.vendorsKey, retentionMs).hgetall(this.vendorsKey).exec()) ?? [];
    if (all?.[0]) throw all[0];
    await this.keepTotal((all?.[1] ?? {}) as Record<string, string>, nowMs);
  }

  /** Over the total cap: counts renewed (a silent vendor's may have expired), then the biggest vendors cut to their share. */
  private async keepTotal(known: Record<string, string>, nowMs: number): Promise<void> {
    const { retentionMs, maxEntriesPerVendor, maxEntriesTotal } = this.bounds;
    let total = 0;
    for (const n of Object.values(known)) total += Number(n);
    if (total <= maxEntriesTotal) return;
    const vendorIds = Object.keys(known);
    const cut = (keep: (i: number) => number | null, counts: readonly number[]) =>
      Promise.all(
        vendorIds.map((vendorId, i) => {
          const n = keep(i);
          return n === null ? (counts[i] as number) : this.client.cbgRequestLogCut(...this.keys(vendorId), nowMs, retentionMs, n);
        }),
      );
    const current = await cut(() => maxEntriesPerVendor, []);
    const share = fairShare(current, Math.floor(maxEntriesTotal * TOTAL_CAP_TRIM_TO));
    const after = share === null ? current : await cut((i) => ((current[i] as number) > share ? share : null), current);
    const update = this.client.multi();
    vendorIds.forEach((vendorId, i) => {
      const n = after[i] as number;
      if (n === 0) update.hdel(this.vendorsKey, vendorId);
      else update.hset(this.vendorsKey, vendorId, n);
    });
    await update.exec();
  }

  async find(vendorId: string, requestId: string, nowMs: number): Promise<RequestLogEntry | null> {
    const found = await this.client.cbgRequestLogFind(...this.keys(vendorId), requestId);
    if (found === null) return null;
    const entry = fromStored(requestId, ...found);
    return Date.parse(entry.at) >= nowMs - this.bounds.retentionMs ? entry : null;
  }

  async list(vendorId: string, query: ListQuery, nowMs: number): Promise<RequestLogPage> {
    const [log] = this.keys(vendorId);
    const oldestMs = Math.max(nowMs - this.bounds.retentionMs, query.fromMs ?? 0);
    let start = query.after ? `(${formatLogId(query.after)}` : query.toMs !== null ? String(query.toMs + LATE_MS) : '+';
    const items: RequestLogEntry[] = [];
    for (let call = 0; call < LIST_CALLS; call++) {
      const reply = await this.client.cbgRequestLogList(
        log,
        start,
        String(oldestMs),
        query.limit - items.length,
        query.statusDigit ?? '',
        query.apiId ?? '',
        oldestMs,
        query.toMs ?? '',
        LIST_BUDGET,
      );
      for (let i = 1; i + 2 < reply.length; i += 3) items.push(fromStored(reply[i + 1] as string, reply[i] as string, reply[i + 2] as string));
      const next = reply[0] as string;
      if (next === '' || items.length === query.limit) return { items, next: next === '' ? null : next };
      start = `(${next}`;
    }
    return { items, next: start.slice(1) };
  }
}
