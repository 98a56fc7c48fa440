/**
 * The tamper-evident audit log end to end: two gateways on one real redis-server, signing
 * checkpoints with one key file. Entries deleted, edited and reordered directly in Redis, and
 * the newest ones removed, are each found by `GET /v1/audit/verify` and by gatewayctl (spawned,
 * from dist/) naming the first bad entry; an export file edited the same ways is found offline
 * with the public key alone. Concurrent writes through both gateways keep one unbroken chain.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Redis from 'ioredis';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { testTempDir } from '../support/temp-dir';

const GATEWAYCTL = path.join(__dirname, '../../dist/cli/gatewayctl.js');

interface Entry {
  readonly id: string;
  readonly action: string;
  readonly hash: string;
  readonly [field: string]: unknown;
}

interface Run {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

describe('tamper-evident audit log', () => {
  const keyPrefix = `tamper${process.pid}:`;
  const stream = `${keyPrefix}{access}:audit`;
  let dir: string;
  let publicKeyFile: string;
  let g1: TestGateway;
  let g2: TestGateway;
  let redis: Redis;
  let good: { entries: Array<[string, string[]]>; head: Record<string, string>; checkpoints: string[] };

  const adminUrl = (g: TestGateway) => `http://127.0.0.1:${g.adminPort}`;
  const get = async (g: TestGateway, p: string) =>
    (await (await fetch(`${adminUrl(g)}/v1/${p}`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).json()) as {
      ok: boolean;
      checked: number;
      firstBadId?: string;
    };
  const grant = (g: TestGateway, id: string) =>
    fetch(`${adminUrl(g)}/v1/users/auditor/permissions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id, api: 'GETgenders' }),
    });

  function ctl(...args: string[]): Promise<Run> {
    return new Promise((resolve) => {
      const env = { ...process.env, GATEWAY_ADMIN_URL: adminUrl(g1), ADMIN_TOKEN: TEST_ADMIN_TOKEN };
      execFile(process.execPath, [GATEWAYCTL, ...args], { env, encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
        resolve({ status: err ? Number(err.code) : 0, stdout, stderr });
      });
    });
  }

  /** The stream as it was (every entry with its id), the head and the checkpoint list, written back. */
  async function rewrite(entries: Array<[string, string[]]>, head = good.head): Promise<void> {
    await redis.del(stream, `${stream}:head`, `${stream}:checkpoints`);
    for (const [id, fields] of entries) await redis.xadd(stream, id, ...fields);
    await redis.hset(`${stream}:head`, head);
    if (good.checkpoints.length > 0) await redis.rpush(`${stream}:checkpoints`, ...good.checkpoints);
  }
  const body = (fields: string[]) => JSON.parse(fields[1] as string) as Entry;
  const withBody = ([id]: [string, string[]], entry: object): [string, string[]] => [id, ['e', JSON.stringify(entry)]];

  beforeAll(async () => {
    dir = testTempDir('audit-tamper-');
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const keyFile = path.join(dir, 'audit-signing.pem');
    publicKeyFile = path.join(dir, 'audit-public.pem');
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    writeFileSync(publicKeyFile, publicKey.export({ type: 'spki', format: 'pem' }));
    const config = {
      redis: { url: process.env.TEST_REDIS_URL as string, keyPrefix, seedAccessFile: 'never' as const },
      audit: { signingKeyFile: keyFile },
    };
    g1 = await startTestGateway(config);
    g2 = await startTestGateway(config);
    redis = new Redis(process.env.TEST_REDIS_URL as string);
    for (let i = 1; i <= 6; i++) expect((await grant(i % 2 ? g1 : g2, `p${i}`)).status).toBe(201);
    good = {
      entries: (await redis.xrange(stream, '-', '+')) as Array<[string, string[]]>,
      head: await redis.hgetall(`${stream}:head`),
      checkpoints: await redis.lrange(`${stream}:checkpoints`, 0, -1),
    };
  });
  afterEach(() => rewrite(good.entries));
  afterAll(async () => {
    await Promise.all([g1?.stop(), g2?.stop()]);
    await redis.quit();
  });

  it('verifies an untouched chain through the API, gatewayctl and either gateway, with the same public key', async () => {
    expect(await get(g1, 'audit/verify')).toMatchObject({ ok: true, checked: 6 });
    expect(await get(g2, 'audit/verify')).toMatchObject({ ok: true, checked: 6 });
    const run = await ctl('audit', 'verify');
    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.stdout).toMatch(/^audit chain intact: 6 entries .*head [0-9a-f]{64}\n$/);
    const key = await (await fetch(`${adminUrl(g2)}/v1/audit/public-key`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).text();
    expect(key).toBe(readFileSync(publicKeyFile, 'utf8'));
  });

  const tampered: Array<[string, () => Promise<unknown>, number]> = [
    ['a deleted entry (XDEL)', () => redis.xdel(stream, good.entries[2]![0]), 3],
    [
      'an edited entry (the stream written again, its body changed)',
      () => rewrite(good.entries.map((e, i) => (i === 3 ? withBody(e, { ...body(e[1]), target: 'users/someone-else' }) : e))),
      3,
    ],
    [
      'two entries swapped (the stream written again, their bodies swapped)',
      () => rewrite(good.entries.map((e, i) => (i === 1 ? withBody(e, body(good.entries[2]![1])) : i === 2 ? withBody(e, body(good.entries[1]![1])) : e))),
      1,
    ],
  ];
  it.each(tampered)('finds %s in Redis, naming the first bad entry in the API and gatewayctl', async (_, tamper, bad) => {
    await tamper();
    const id = good.entries[bad]![0];
    expect(await get(g1, 'audit/verify')).toMatchObject({ ok: false, firstBadId: id });
    const run = await ctl('audit', 'verify');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`audit chain broken at entry ${id}: `);
  });

  it('finds the newest entries removed: by the head Redis recorded, and by the head an auditor holds when that was rewound too', async () => {
    const kept = good.entries.slice(0, 4);
    const lastKept = kept[3]![0];
    await rewrite(kept);
    expect(await get(g1, 'audit/verify')).toMatchObject({ ok: false, firstBadId: lastKept, reason: expect.stringMatching(/recorded/) });

    const held = good.head.h as string;
    await rewrite(kept, { ...good.head, h: body(kept[3]![1]).hash, n: '4' });
    expect(await get(g1, 'audit/verify')).toMatchObject({ ok: true });
    expect(await get(g1, `audit/verify?head=${held}`)).toMatchObject({ ok: false, firstBadId: lastKept, reason: expect.stringMatching(/expected head/) });
    const run = await ctl('audit', 'verify', '--head', held);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`audit chain broken at entry ${lastKept}: `);
  });

  it('checks an export offline with the public key alone, and finds it edited, cut or reordered', async () => {
    const exported = await ctl('audit', 'export', '--since', '2000-01-01');
    expect(exported.status).toBe(0);
    const lines = exported.stdout.trimEnd().split('\n');
    const entries = lines.map((l) => JSON.parse(l) as Entry);
    expect(entries.at(-1)).toMatchObject({ action: 'audit.checkpoint', actor: 'gateway' });
    const file = (name: string, content: string[]) => {
      const at = path.join(dir, name);
      writeFileSync(at, `${content.join('\n')}\n`);
      return at;
    };
    const offline = (at: string, ...more: string[]) => ctl('audit', 'verify', '--file', at, '--public-key', publicKeyFile, ...more);

    const intact = await offline(file('intact.jsonl', lines));
    expect(intact).toMatchObject({ status: 0, stderr: '' });
    expect(intact.stdout).toMatch(new RegExp(`^audit chain intact: ${lines.length} entries .*head ${entries.at(-1)!.hash}\\n$`));

    const edited = lines.map((l, i) => (i === 2 ? JSON.stringify({ ...entries[2], target: 'users/nobody' }) : l));
    const cases: Array<[string, string[], string, ...string[]]> = [
      ['deleted.jsonl', lines.filter((_, i) => i !== 2), entries[3]!.id],
      ['edited.jsonl', edited, entries[2]!.id],
      ['swapped.jsonl', [lines[0]!, lines[2]!, lines[1]!, ...lines.slice(3)], entries[2]!.id],
      // The signed checkpoint and the entry before it cut off: the file no longer ends signed.
      ['cut.jsonl', lines.slice(0, -2), entries.at(-3)!.id],
      // An auditor's head from a later export than this file.
      ['older.jsonl', lines, entries.at(-1)!.id, '--head', 'f'.repeat(64)],
    ];
    for (const [name, content, id, ...more] of cases) {
      const run = await offline(file(name, content), ...more);
      expect({ name, status: run.status }).toEqual({ name, status: 1 });
      expect(run.stderr).toContain(`audit chain broken at entry ${id}: `);
    }
  });

  it('keeps one unbroken chain while both gateways write at once', async () => {
    const writes = Array.from({ length: 20 }, (_, i) => grant(i % 2 ? g1 : g2, `c${i}`));
    expect((await Promise.all(writes)).map((r) => r.status)).toEqual(Array(20).fill(201));
    const result = await get(g2, 'audit/verify');
    expect(result).toMatchObject({ ok: true });
    expect(result.checked).toBeGreaterThanOrEqual(26);
    const entries = ((await redis.xrange(stream, '-', '+')) as Array<[string, string[]]>).map(([, f]) => body(f));
    expect(entries.filter((e) => e.action === 'permission.grant')).toHaveLength(26);
  });
});
