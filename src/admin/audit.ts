/**
 * The admin audit log: who changed what, when, with the state before and after. Two stores
 * behind one interface: in memory (sandbox mode) and Redis (shared by every instance).
 * Both keep the newest entries only (10,000 by default), so the log cannot grow without end.
 *
 * Reads and writes its own store; sets nothing else. Entries are scrubbed before they are
 * kept: properties named like secrets are dropped and anything shaped like a vendor API key
 * is masked, a second line of defence behind callers that never pass a secret in.
 */
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../redis/redis-client';

export interface AuditEntry {
  readonly id: string;
  /** ISO 8601, UTC. */
  readonly at: string;
  readonly actor: string;
  /** `vendor.create`, `key.issue`, `access.replace`, ... */
  readonly action: string;
  /** The admin API path of what changed: `vendors/acme`, `keys/key-1`, `access`. */
  readonly target: string;
  readonly before: unknown;
  readonly after: unknown;
}

export type AuditEntryInput = Omit<AuditEntry, 'id' | 'at'>;

export interface AuditQuery {
  readonly limit: number;
  /** An entry id: list the entries older than it (the next page). Unknown id: nothing. */
  readonly before?: string;
}

export interface AuditLog {
  append(entry: AuditEntryInput): Promise<AuditEntry>;
  /** Newest first. */
  list(query: AuditQuery): Promise<AuditEntry[]>;
}

export const DEFAULT_AUDIT_CAPACITY = 10_000;

const SECRET_PROPERTIES = new Set(['secret', 'token', 'adminToken', 'password', 'authorization']);
const API_KEY_SHAPE = /cbk_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}/g;

function scrub(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(API_KEY_SHAPE, '[redacted]');
  if (Array.isArray(value)) return value.map(scrub);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [name, inner] of Object.entries(value)) {
      if (!SECRET_PROPERTIES.has(name) && inner !== undefined) out[name] = scrub(inner);
    }
    return out;
  }
  return value;
}

/** `id` comes first so a stored entry can be recognised by its opening characters. */
function newEntry(input: AuditEntryInput): AuditEntry {
  return {
    id: randomUUID(),
    at: new Date().toISOString(),
    actor: input.actor,
    action: input.action,
    target: input.target,
    before: scrub(input.before) ?? null,
    after: scrub(input.after) ?? null,
  };
}

export class MemoryAuditLog implements AuditLog {
  /** Oldest first; appends are cheap and the list reads it backwards. */
  private readonly entries: AuditEntry[] = [];

  constructor(private readonly capacity = DEFAULT_AUDIT_CAPACITY) {}

  async append(input: AuditEntryInput): Promise<AuditEntry> {
    const entry = newEntry(input);
    this.entries.push(entry);
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
    return entry;
  }

  async list(query: AuditQuery): Promise<AuditEntry[]> {
    let end = this.entries.length;
    if (query.before !== undefined) {
      end = this.entries.findIndex((e) => e.id === query.before);
      if (end < 0) return [];
    }
    return this.entries.slice(Math.max(0, end - query.limit), end).reverse();
  }
}

export interface RedisAuditLogOptions {
  /** Prepended to the hash-tagged key: `cbg:` gives `cbg:{audit}:log`. */
  readonly keyPrefix: string;
  readonly capacity?: number;
}

/** How many entries one LRANGE reads while looking for a `before` cursor. */
const SCAN_CHUNK = 500;

export class RedisAuditLog implements AuditLog {
  readonly key: string;
  private readonly capacity: number;

  constructor(
    private readonly redis: RedisClient,
    options: RedisAuditLogOptions,
  ) {
    this.key = `${options.keyPrefix}{audit}:log`;
    this.capacity = options.capacity ?? DEFAULT_AUDIT_CAPACITY;
  }

  async append(input: AuditEntryInput): Promise<AuditEntry> {
    const entry = newEntry(input);
    // One MULTI, so the list never holds more than its capacity between the two commands.
    const results = await this.redis
      .multi()
      .lpush(this.key, JSON.stringify(entry))
      .ltrim(this.key, 0, this.capacity - 1)
      .exec();
    const failed = results?.find(([err]) => err !== null);
    if (!results || failed) throw failed?.[0] ?? new Error('audit append was discarded');
    return entry;
  }

  async list(query: AuditQuery): Promise<AuditEntry[]> {
    if (query.before === undefined) return this.parse(await this.redis.lrange(this.key, 0, query.limit - 1));
    // Entries move down the list as others are pushed, so the cursor is an id, found by scanning.
    const marker = `{"id":${JSON.stringify(query.before)},`;
    for (let start = 0; start < this.capacity; start += SCAN_CHUNK) {
      const chunk = await this.redis.lrange(this.key, start, start + SCAN_CHUNK - 1);
      const index = chunk.findIndex((raw) => raw.startsWith(marker));
      if (index >= 0) {
        const from = start + index + 1;
        return this.parse(await this.redis.lrange(this.key, from, from + query.limit - 1));
      }
      if (chunk.length < SCAN_CHUNK) break;
    }
    return [];
  }

  private parse(raw: readonly string[]): AuditEntry[] {
    return raw.map((text) => JSON.parse(text) as AuditEntry);
  }
}
