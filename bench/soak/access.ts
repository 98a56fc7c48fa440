/**
 * The soak's access config: the sandbox access file with rate limits raised above the soak's own
 * rate (so that no 429 hides a fault), the whole-document writes made right after the start, and
 * a probe of the live access records in Redis.
 *
 * Reads config/sandbox-access.yaml and the admin API; writes <out>/access.yaml; the probe reads
 * Redis with its own connection (PTTL and HLEN of the record hashes, nothing else).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { apiKeyPrefix, generateApiKey, hashApiKey } from '../../src/access/api-key';

const ROOT = path.resolve(__dirname, '..', '..');

/** The sandbox's published keys (README, "Try it"). */
export const DEMO_KEY = 'cbk_5fd3cTg5ExVdUlVXmWrKUMJpvMzzJga5_3Ux21d';
export const READONLY_KEY = 'cbk_VOrQKC246PJIkp1pAGialSybSqII0647_4A7Wvg';

interface VendorEntry {
  id: string;
  rateLimit?: { points: number; durationSeconds: number };
  keys?: unknown[];
  licences?: unknown[];
  [field: string]: unknown;
}

interface AccessDocument {
  vendors: VendorEntry[];
  users: { id: string; permissions: unknown[] }[];
  [field: string]: unknown;
}

/** The sandbox file, every vendor allowed 100 times the soak's rate; the keys stay the published ones. */
export function writeSoakAccessFile(out: string, rate: number): string {
  const document = parseYaml(readFileSync(path.join(ROOT, 'config', 'sandbox-access.yaml'), 'utf8')) as AccessDocument;
  for (const vendor of document.vendors) vendor.rateLimit = { points: rate * 100 * 60, durationSeconds: 60 };
  const file = path.join(out, 'access.yaml');
  writeFileSync(file, stringifyYaml(document));
  return file;
}

interface AdminCall {
  readonly status: number;
  readonly body: string;
  readonly ms: number;
}

export async function adminCall(adminUrl: string, token: string, method: string, pathname: string, body?: unknown): Promise<AdminCall> {
  const started = performance.now();
  const res = await fetch(`${adminUrl}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, body: await res.text(), ms: performance.now() - started };
}

export interface WholeDocumentWrite {
  readonly what: string;
  readonly at: number;
  readonly status: number;
  readonly applied: boolean | null;
  readonly versionAfter: number | null;
  readonly ms: number;
}

function writeOutcome(what: string, at: number, call: AdminCall): WholeDocumentWrite {
  let applied: boolean | null = null;
  let versionAfter: number | null = null;
  try {
    const parsed = JSON.parse(call.body) as { applied?: boolean; version?: number };
    applied = parsed.applied ?? null;
    versionAfter = parsed.version ?? null;
  } catch {
    // A problem body: the status says enough.
  }
  return { what, at, status: call.status, applied, versionAfter, ms: call.ms };
}

/**
 * Two whole-document writes: the document in force sent back as it is (GET then PUT /v1/access:
 * the gateway writes nothing when nothing differs), then the same document with `bulkKeys` keys
 * of an extra vendor, which takes more than 1,000 record changes and so the staged path (records
 * written under a private key, then swapped in by one script), where a write once left the live
 * records to expire 10 minutes later.
 */
export async function wholeDocumentWrites(adminUrl: string, token: string, bulkKeys: number): Promise<WholeDocumentWrite[]> {
  const current = await adminCall(adminUrl, token, 'GET', '/v1/access');
  if (current.status !== 200) throw new Error(`GET /v1/access answered ${current.status}: ${current.body.slice(0, 200)}`);
  const writes = [writeOutcome('the document in force, as it is', Date.now(), await adminCall(adminUrl, token, 'PUT', '/v1/access', JSON.parse(current.body)))];
  if (bulkKeys > 0) {
    const document = JSON.parse(current.body) as AccessDocument;
    const keys = Array.from({ length: bulkKeys }, (_, i) => {
      const secret = generateApiKey();
      return { id: `soak-bulk-${i}`, prefix: apiKeyPrefix(secret), hash: hashApiKey(secret), userId: 'soak.bulk', status: 'active' };
    });
    document.vendors.push({ id: 'soak-bulk', name: 'Soak bulk keys', status: 'active', licences: [{ id: 'soak-bulk-read', api: 'GETbanks' }], keys });
    document.users.push({ id: 'soak.bulk', permissions: [{ id: 'soak-bulk-read', api: 'GETbanks' }] });
    writes.push(
      writeOutcome(`the document in force plus ${bulkKeys} keys (staged write)`, Date.now(), await adminCall(adminUrl, token, 'PUT', '/v1/access', document)),
    );
  }
  return writes;
}

export interface StoreSample {
  readonly at: number;
  /** What had just happened, for the samples taken at a moment of interest. */
  readonly label: string | null;
  /** Milliseconds each live record hash has left (-1: none set; -2: the hash is gone); null when Redis did not answer. */
  readonly ttlMs: Readonly<Record<string, number>> | null;
  /** Keys in the live key hash; null when Redis did not answer. */
  readonly keys: number | null;
}

const RECORD_HASHES = ['vendors', 'keys', 'users', 'keyhash'] as const;

/** Reads the live access records' time-to-live and size; a Redis down gives a sample of nulls. */
export class AccessStoreProbe {
  private readonly redis: Redis;
  readonly samples: StoreSample[] = [];

  constructor(
    redisUrl: string,
    private readonly keyPrefix = 'cbg:',
  ) {
    // Bounded: nothing queues while Redis is down, and each command gives up after a second.
    this.redis = new Redis(redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 1000,
      lazyConnect: false,
      retryStrategy: () => 500,
    });
    this.redis.on('error', () => undefined);
  }

  /** Waits (at most 5 s) for the first connection, so that the first sample is not lost to it. */
  async connected(): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5000);
      this.redis.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  async sample(label: string | null = null): Promise<StoreSample> {
    const at = Date.now();
    let sample: StoreSample;
    try {
      const pipeline = this.redis.pipeline();
      for (const name of RECORD_HASHES) pipeline.pttl(`${this.keyPrefix}{access}:${name}`);
      pipeline.hlen(`${this.keyPrefix}{access}:keys`);
      const results = (await pipeline.exec()) ?? [];
      if (results.some(([err]) => err)) throw new Error('probe failed');
      const values = results.map(([, value]) => Number(value));
      sample = {
        at,
        label,
        ttlMs: Object.fromEntries(RECORD_HASHES.map((name, i) => [name, values[i] as number])),
        keys: values[RECORD_HASHES.length] as number,
      };
    } catch {
      sample = { at, label, ttlMs: null, keys: null };
    }
    this.samples.push(sample);
    return sample;
  }

  close(): void {
    this.redis.disconnect();
  }
}
