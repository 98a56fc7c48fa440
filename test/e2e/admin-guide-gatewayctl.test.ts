/**
 * The admin guide's gatewayctl lines (docs/admin-guide.md, "gatewayctl"), run exactly as written
 * (through npm and a shell) against a running gateway: their output is the command's alone, so
 * `export > access.yaml` writes a file that `apply` takes back, with no npm banner in it; a portal
 * user's invitation prints its token once, and the list only its prefix.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { readPage, REPOSITORY_ROOT as ROOT, section } from '../support/markdown';
import { testTempDir } from '../support/temp-dir';

const GUIDE = 'docs/admin-guide.md';

/** The `npm run -s gatewayctl -- …` lines of the admin guide's gatewayctl section. */
function guideLines(): string[] {
  return section(readPage(GUIDE), 'gatewayctl')
    .split('\n')
    .filter((line) => line.startsWith('npm run -s gatewayctl -- '));
}

function line(startingWith: string): string {
  const found = guideLines().find((l) => l.startsWith(`npm run -s gatewayctl -- ${startingWith}`));
  if (!found) throw new Error(`the gatewayctl section of ${GUIDE} has no line for "${startingWith}"`);
  return found;
}

let gateway: TestGateway;

/**
 * Runs a shell command line from the repository root, as a reader pasting it would; never
 * synchronously, since the gateway it talks to runs in this process.
 */
function sh(command: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, GATEWAY_ADMIN_URL: `http://127.0.0.1:${gateway.adminPort}`, ADMIN_TOKEN: TEST_ADMIN_TOKEN };
    execFile('bash', ['-c', command], { cwd: ROOT, encoding: 'utf8', env, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ status: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(() => gateway.stop());

describe("the admin guide's gatewayctl lines", () => {
  it('are all run through npm -s, so nothing of npm reaches their output', () => {
    const lines = guideLines();
    expect(lines.length).toBeGreaterThan(5);
    // A line calling an installed `gatewayctl` directly would go untested here.
    const direct = section(readPage(GUIDE), 'gatewayctl')
      .split('\n')
      .filter((l) => l.startsWith('gatewayctl '));
    expect(direct).toEqual([]);
  });

  it('export writes only the YAML document, which apply takes back', async () => {
    const exportLine = line('export');
    expect(exportLine).toBe('npm run -s gatewayctl -- export > access.yaml');
    // The same line, redirected into a temporary folder instead of the checkout.
    const [command] = exportLine.split(' > ');
    const exported = await sh(command as string);
    expect(exported.stderr).not.toMatch(/error/i);
    expect(exported.status).toBe(0);
    expect(exported.stdout).not.toMatch(/^>/m);
    const document = parse(exported.stdout) as { vendors: Array<{ id: string }> };
    expect(document.vendors.map((v) => v.id)).toContain('demo-vendor');

    const file = path.join(testTempDir('cbg-readme-'), 'access.yaml');
    writeFileSync(file, exported.stdout);
    const applied = await sh(line('apply -f').replace('config/sandbox-access.yaml', file));
    expect(applied.stderr).toBe('');
    expect(applied.status).toBe(0);
  }, 120_000);

  it('portal-users invite prints the portal token once, which list then shows by its prefix alone', async () => {
    const invited = await sh(line('portal-users invite').replace(' acme ', ' demo-vendor '));
    expect(invited.stderr).toBe('');
    expect(invited.status).toBe(0);
    const tokens = invited.stdout.match(/cbp_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}/g) ?? [];
    expect(tokens).toHaveLength(1);
    const listed = await sh(line('portal-users list').replace(/ acme$/, ' demo-vendor'));
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain('Dana Dev');
    expect(listed.stdout).toContain((tokens[0] as string).slice(0, 12));
    expect(listed.stdout).not.toContain(tokens[0]);
  }, 60_000);

  it('vendors list prints the table alone', async () => {
    const listed = await sh(line('vendors list'));
    expect(listed.status).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^id\b/i);
    expect(listed.stdout).toContain('demo-vendor');
  }, 60_000);
});
