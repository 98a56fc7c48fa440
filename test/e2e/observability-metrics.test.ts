/**
 * Metrics and health after a mixed run through a whole gateway: every request a client sent
 * is counted once, under the API id and status it got (the expected API ids are written here by
 * hand, from the spec's paths); the exposition passes `promtool check metrics`; readiness
 * reports the access config, Redis and every breaker.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { AccessDocument } from '../../src/access/model';
import { type IssuedTestKey, testKey, testVendor, writeAccessFile } from '../support/access-fixture';
import { startFakeCore, type CoreBehaviour, type FakeCore } from '../support/fake-core';
import { startTestGateway, type TestGateway } from '../support/gateway';

const keys = { acme: testKey('k-acme', 'teller'), reader: testKey('k-reader', 'reader'), tight: testKey('k-tight', 'teller') };
const TIGHT_POINTS = 2;

function accessDocument(): AccessDocument {
  return {
    vendors: [
      testVendor({ id: 'acme', name: 'Acme', points: 100_000, licences: [{ id: 'l', api: '*' }], keys: [keys.acme.record] }),
      testVendor({ id: 'reader', name: 'Reader', points: 100_000, licences: [{ id: 'l', api: 'GET*' }], keys: [keys.reader.record] }),
      testVendor({ id: 'tight', name: 'Tight', points: TIGHT_POINTS, licences: [{ id: 'l', api: 'GET*' }], keys: [keys.tight.record] }),
    ],
    users: [
      { id: 'teller', permissions: [{ id: 'p', api: '*' }] },
      { id: 'reader', permissions: [{ id: 'p', api: '*' }] },
    ],
  };
}

interface Planned {
  readonly key: IssuedTestKey | null;
  readonly method: string;
  readonly path: string;
  readonly core: CoreBehaviour;
  /** What the gateway must count this request as. */
  readonly api: string;
  readonly vendor: string;
}

const ok: CoreBehaviour = { kind: 'answer', status: 200 };

function times(n: number, planned: Planned): Planned[] {
  return Array.from({ length: n }, () => planned);
}

const PLAN: Planned[] = [
  ...times(5, { key: keys.acme, method: 'GET', path: '/accounts/1', core: ok, api: 'GETaccounts/{accountId}', vendor: 'acme' }),
  ...times(3, { key: keys.acme, method: 'GET', path: '/accounts?paged=true&page=2', core: ok, api: 'GETaccounts', vendor: 'acme' }),
  ...times(2, {
    key: keys.reader,
    method: 'GET',
    path: '/customers/7/accounts',
    core: { kind: 'answer', status: 404 },
    api: 'GETcustomers/{memberId}/accounts',
    vendor: 'reader',
  }),
  { key: keys.acme, method: 'GET', path: '/genders/1', core: { kind: 'answer', status: 500 }, api: 'GETgenders/{genderId}', vendor: 'acme' },
  { key: keys.acme, method: 'GET', path: '/titles/1', core: { kind: 'hang' }, api: 'GETtitles/{titleId}', vendor: 'acme' },
  { key: keys.acme, method: 'POST', path: '/customers', core: { kind: 'reset' }, api: 'POSTcustomers', vendor: 'acme' },
  ...times(2, { key: null, method: 'GET', path: '/accounts/1', core: ok, api: 'GETaccounts/{accountId}', vendor: 'anonymous' }),
  { key: keys.acme, method: 'GET', path: '/no/such/path', core: ok, api: 'unmatched', vendor: 'acme' },
  { key: keys.acme, method: 'DELETE', path: '/banks', core: ok, api: 'unmatched', vendor: 'acme' },
  { key: keys.reader, method: 'POST', path: '/customers', core: ok, api: 'POSTcustomers', vendor: 'reader' },
  ...times(TIGHT_POINTS + 2, { key: keys.tight, method: 'GET', path: '/branches/3', core: ok, api: 'GETbranches/{branchId}', vendor: 'tight' }),
];

/** `name{labels} value` lines of one metric, with their labels parsed. */
function samples(exposition: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const out: Array<{ labels: Record<string, string>; value: number }> = [];
  for (const line of exposition.split('\n')) {
    const match = new RegExp(`^${name}\\{(.*)\\} (\\S+)$`).exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...(match[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    out.push({ labels, value: Number(match[2]) });
  }
  return out;
}

function tally(entries: Iterable<string>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of entries) counts[entry] = (counts[entry] ?? 0) + 1;
  return counts;
}

describe('metrics after a mixed run', () => {
  let core: FakeCore;
  let gateway: TestGateway;
  const sent: Array<{ api: string; status: number; vendor: string; core?: CoreBehaviour['kind'] }> = [];
  let exposition = '';

  beforeAll(async () => {
    core = await startFakeCore();
    gateway = await startTestGateway({
      core: { url: core.url, breakers: { resources: { timeoutMs: 300, volumeThreshold: 1000 } } },
      access: { file: writeAccessFile(accessDocument()) },
    });
    for (const planned of PLAN) {
      core.behaviour = planned.core;
      const res = await fetch(`${gateway.url}${planned.path}`, {
        method: planned.method,
        headers: {
          ...(planned.key ? { 'X-Vendor-Token': planned.key.secret } : {}),
          ...(planned.method === 'POST' ? { 'content-type': 'application/json' } : {}),
        },
        body: planned.method === 'POST' ? '{}' : undefined,
      });
      await res.arrayBuffer();
      sent.push({ api: planned.api, status: res.status, vendor: planned.vendor, core: planned.core.kind });
    }
    // One request Node itself refuses (header block too large), counted as unmatched/anonymous.
    await new Promise<void>((resolve) => {
      const socket = net.connect(gateway.vendorPort, '127.0.0.1', () => socket.write(`GET / HTTP/1.1\r\nHost: gw\r\nX-Pad: ${'p'.repeat(20_000)}\r\n\r\n`));
      socket.on('data', () => undefined);
      socket.on('error', () => undefined);
      socket.on('close', () => resolve());
    });
    sent.push({ api: 'unmatched', status: 431, vendor: 'anonymous' });
    exposition = await (await fetch(`${gateway.statusUrl}/metrics`)).text();
  });
  afterAll(async () => {
    await gateway.stop();
    await core.close();
  });

  it('got the answers the run was built to produce', () => {
    expect(tally(sent.map((s) => String(s.status)))).toEqual({ '200': 10, '401': 2, '403': 1, '404': 3, '405': 1, '429': 2, '431': 1, '502': 2, '504': 1 });
  });

  it('counts every request once in gateway_requests_total, by API id, status and vendor', () => {
    const counted: Record<string, number> = {};
    for (const { labels, value } of samples(exposition, 'gateway_requests_total')) counted[`${labels.api} ${labels.status} ${labels.vendor}`] = value;
    expect(counted).toEqual(tally(sent.map((s) => `${s.api} ${s.status} ${s.vendor}`)));
  });

  it('times every request the app answered in gateway_request_duration_seconds, by API id', () => {
    const counted: Record<string, number> = {};
    for (const { labels, value } of samples(exposition, 'gateway_request_duration_seconds_count')) counted[labels.api ?? ''] = value;
    const answeredByApp = sent.filter((s) => s.status !== 431);
    expect(counted).toEqual(tally(answeredByApp.map((s) => s.api)));
  });

  it('times every call the core answered or let time out in gateway_upstream_duration_seconds', () => {
    const byGroup = Object.fromEntries(samples(exposition, 'gateway_upstream_duration_seconds_count').map((s) => [s.labels.group, s.value]));
    // The core's answers (every 200, the 404s on a matched route, the 500 told as 502) and the timeout; not the reset.
    const reachedCore = sent.filter(
      (s) => [200, 504].includes(s.status) || (s.status === 502 && s.core === 'answer') || (s.status === 404 && s.api !== 'unmatched'),
    );
    expect(byGroup.resources).toBe(reachedCore.length);
  });

  it('counts refusals by reason and by vendor', () => {
    expect(exposition).toMatch(/^gateway_rate_limited_total\{vendor="tight"\} 2$/m);
    expect(exposition).toMatch(/^gateway_auth_failures_total\{reason="missing"\} 2$/m);
    expect(exposition).toMatch(/^gateway_access_denied_total\{reason="[a-z_]+"\} 1$/m);
  });

  it('exposes every metric the public contract names, the breaker gauges, and Node defaults', () => {
    for (const name of [
      'gateway_requests_total',
      'gateway_request_duration_seconds',
      'gateway_upstream_duration_seconds',
      'gateway_circuit_state',
      'gateway_rate_limited_total',
      'gateway_auth_failures_total',
      'gateway_access_denied_total',
      'gateway_access_config_version',
      'gateway_access_config_age_seconds',
      'gateway_redis_up',
      'gateway_idempotency_replays_total',
      'process_cpu_user_seconds_total',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(exposition).toContain(`# TYPE ${name} `);
    }
    for (const group of ['resources', 'bankaccounts', 'receipts', 'customers']) expect(exposition).toContain(`gateway_circuit_state{group="${group}"} 0`);
    expect(exposition).toMatch(/^gateway_redis_up 1$/m);
    expect(exposition).toMatch(/^gateway_access_config_age_seconds \d+$/m);
    // Buckets fine enough to show the gateway's own sub-millisecond overhead.
    expect(exposition).toContain('gateway_request_duration_seconds_bucket{le="0.0001",api="GETaccounts/{accountId}"}');
  });

  it("names the release (package.json's version) and the Node version in gateway_build_info, at 1", () => {
    const { version } = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as { version: string };
    expect(samples(exposition, 'gateway_build_info')).toEqual([{ labels: { version, node: process.versions.node }, value: 1 }]);
  });

  it('passes promtool check metrics', () => {
    const result = spawnSync('promtool', ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
    // Fails, never skips: CI installs promtool (.ci/run), and the README's set-up lists it.
    if (result.error) throw new Error(`promtool is not installed (apt-get install prometheus, as README "Set-up" says): ${result.error.message}`);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});

describe('readiness body', () => {
  it('reports the access config, Redis and every breaker in Redis mode', async () => {
    const redisUrl = process.env.TEST_REDIS_URL as string;
    const gateway = await startTestGateway({ redis: { url: redisUrl, keyPrefix: `obs${process.pid}:`, seedAccessFile: 'always' } });
    try {
      const res = await fetch(`${gateway.statusUrl}/health/ready`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        status: 'ready',
        shuttingDown: false,
        mode: { accessStore: 'redis', core: 'sandbox' },
        accessConfig: { loaded: true, version: expect.any(Number), ageSeconds: expect.any(Number), problem: null },
        redis: { up: true, downSeconds: 0, dataLossHoldSeconds: 0, evictingPolicy: null },
        breakers: { resources: 'closed', bankaccounts: 'closed', receipts: 'closed', customers: 'closed' },
      });
      expect(await (await fetch(`${gateway.statusUrl}/metrics`)).text()).toMatch(/^gateway_redis_up 1$/m);
    } finally {
      await gateway.stop();
    }
  });
});
