/**
 * `npm run openapi:lint`: the vendor API's OpenAPI document exactly as a sandbox gateway serves it
 * (`GET /openapi.json`, once with the default token headers and once with the receipt header set
 * apart), linted by Redocly (its recommended rules) and Spectral (`spectral:oas`), both pinned and
 * fetched from the npm registry by npx. Exits 1 when either reports an error; warnings are shown.
 *
 * Reads nothing but the served document; writes it and the Spectral ruleset into a temporary
 * folder, removed at the end.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startGateway } from '../../src/gateway';
import { createLogger } from '../../src/logging/logger';
import { testConfig } from '../support/config';

const REDOCLY = '@redocly/cli@2.77.0';
const SPECTRAL = '@stoplight/spectral-cli@6.16.3';

async function servedDocument(receiptTokenHeader: string): Promise<string> {
  const gateway = await startGateway(testConfig({ authentication: { receiptTokenHeader } }), createLogger('silent'));
  try {
    const res = await fetch(`http://127.0.0.1:${gateway.vendorPort}/openapi.json`);
    if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
    return await res.text();
  } finally {
    await gateway.stop({ lameDuckMs: 0, drainTimeoutMs: 1000 });
  }
}

function lint(what: string, command: string[]): boolean {
  console.log(`openapi:lint: ${what}`);
  const run = spawnSync('npx', ['--yes', ...command], { stdio: 'inherit', timeout: 300_000 });
  return run.status === 0;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cbg-openapi-'));
  let failures = 0;
  try {
    const ruleset = path.join(dir, '.spectral.yaml');
    writeFileSync(ruleset, 'extends: ["spectral:oas"]\n');
    for (const header of ['X-Vendor-Token', 'X-Receipt-Token']) {
      const file = path.join(dir, `openapi-${header.toLowerCase()}.json`);
      writeFileSync(file, await servedDocument(header));
      if (!lint(`redocly (receipt token header ${header})`, [REDOCLY, 'lint', file, '--format=summary'])) failures++;
      if (!lint(`spectral (receipt token header ${header})`, [SPECTRAL, 'lint', file, '--ruleset', ruleset, '--fail-severity', 'error', '--format', 'text']))
        failures++;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (failures > 0) {
    console.error(`openapi:lint: ${failures} lint run(s) reported errors`);
    process.exit(1);
  }
  console.log('openapi:lint: no errors');
}

void main();
